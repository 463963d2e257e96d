/**
 * bench/: the benchmark client — workloads replaying gh 2.23, the direct / proxy / broker arms,
 * sessions-to-budget, the scorecard and the plot. The CLI calls `runBenchCommand`; other code may
 * run `runBench` and render or write the report itself. bench/README.md has the options.
 */

export { type BenchCommandIo, runBenchCommand } from "./bench-command.js";
export {
  type BenchFlags,
  type ParsedBenchFlags,
  parseBenchFlags,
  type TargetOptions,
} from "./bench-flags.js";
export { plotSubtitle, writeBenchOutputs } from "./bench-outputs.js";
export {
  type BenchOptions,
  type BenchRun,
  CALIBRATION_TARGET,
  CALIBRATION_TOLERANCE,
  runBench,
} from "./bench-runner.js";
export type { ExplainReport } from "./core/answer-breakdown.js";
export { renderExplainTable } from "./core/explain-table.js";
export {
  ARMS,
  type ArmName,
  type BenchReport,
  type Calibration,
  type RealGhReport,
  type StepResult,
} from "./core/report-types.js";
export { renderScorecardTable } from "./core/scorecard-table.js";
export { renderPlot } from "./core/svg-plot.js";
export { type BenchErrorCode, BenchErrors } from "./errors.js";
export { BUILTIN_PROFILES, loadProfile } from "./load-profile.js";
