/** Error codes of the observability layer (OTel setup, AO's trace file, trace report input). */
export const OtelErrors = {
  /** An OTEL_* environment variable holds a value ao-broker cannot use (unknown protocol, sampler, bad URL, bad number). */
  AO_ERR_OTEL_CONFIG_INVALID: "AO_ERR_OTEL_CONFIG_INVALID",
  /** AO_GH_TRACE_FILE names a file that cannot be created or opened for appending. */
  AO_ERR_OTEL_TRACE_FILE_UNWRITABLE: "AO_ERR_OTEL_TRACE_FILE_UNWRITABLE",
  /** A duration such as `--since 15m` could not be parsed. */
  AO_ERR_OTEL_DURATION_INVALID: "AO_ERR_OTEL_DURATION_INVALID",
} as const;
export type OtelErrorCode = keyof typeof OtelErrors;
