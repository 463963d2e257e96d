/** Error codes of the benchmark client (bad options, bad profiles, a target run without a cap...). */
export const BenchErrors = {
  /** A bench option is missing, malformed or out of range; the message names the flag. */
  AO_ERR_BENCH_OPTIONS_INVALID: "AO_ERR_BENCH_OPTIONS_INVALID",
  /** A workload profile (built-in name or FILE) is unknown, unreadable or fails validation. */
  AO_ERR_BENCH_PROFILE_INVALID: "AO_ERR_BENCH_PROFILE_INVALID",
  /** `--target` was given without `--max-points`: a run against real GitHub needs a hard cap. */
  AO_ERR_BENCH_TARGET_NEEDS_CAP: "AO_ERR_BENCH_TARGET_NEEDS_CAP",
  /** `--target` was given but the environment variable named by `--token-env` is empty or unset. */
  AO_ERR_BENCH_TARGET_NO_TOKEN: "AO_ERR_BENCH_TARGET_NO_TOKEN",
  /** A target run reached its `--max-points` cap; the run stopped and nothing more was sent. */
  AO_ERR_BENCH_CAP_REACHED: "AO_ERR_BENCH_CAP_REACHED",
  /** An arm could not be started (the broker, the proxy or the simulator failed to come up). */
  AO_ERR_BENCH_ARM_FAILED: "AO_ERR_BENCH_ARM_FAILED",
  /** `--real-gh` needs the gh binary (2.23) and it could not be run. */
  AO_ERR_BENCH_GH_UNAVAILABLE: "AO_ERR_BENCH_GH_UNAVAILABLE",
  /** The JSON or SVG output file could not be written. */
  AO_ERR_BENCH_OUTPUT_FAILED: "AO_ERR_BENCH_OUTPUT_FAILED",
} as const;
export type BenchErrorCode = keyof typeof BenchErrors;
