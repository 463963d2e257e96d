/**
 * The whole `ao-broker bench` flow behind the CLI: flags → the run (simulator arms, or a capped
 * `--target`) → the optional real-gh check → the scorecard on stdout and in the files asked for.
 */
import { AoError } from "../common/index.js";
import { type BenchFlags, parseBenchFlags } from "./bench-flags.js";
import { writeBenchOutputs } from "./bench-outputs.js";
import { runBench } from "./bench-runner.js";
import { renderExplainTable } from "./core/explain-table.js";
import type { BenchReport } from "./core/report-types.js";
import { renderScorecardTable } from "./core/scorecard-table.js";
import { CostEstimator } from "./cost-estimator.js";
import { BenchErrors } from "./errors.js";
import { HttpTransport } from "./http-transport.js";
import { stopOnSignals } from "./process-guard.js";
import { runRealGhCheck } from "./real-gh-check.js";
import { runTargetBench } from "./target-run.js";

export interface BenchCommandIo {
  /** Where the scorecard goes. @defaultValue process.stdout */
  readonly write?: (text: string) => void;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The command line, for the report. */
  readonly commandLine?: string;
  /** Stop what the run started on SIGINT/SIGTERM, then exit (the CLI). @defaultValue true */
  readonly handleSignals?: boolean;
}

export async function runBenchCommand(flags: BenchFlags, io: BenchCommandIo = {}): Promise<BenchReport> {
  const env = io.env ?? process.env;
  const write = io.write ?? ((text: string) => process.stdout.write(text));
  const parsed = parseBenchFlags(flags, env);
  const options = { ...parsed.options, ...(io.commandLine ? { commandLine: io.commandLine } : {}) };
  // The JSON is rewritten after every step: a run stopped half-way keeps what it measured.
  const onStep = (partial: BenchReport) => writeBenchOutputs(partial, { json: parsed.json });
  // SIGINT/SIGTERM stop the redis-server and broker processes the run started (process-guard.ts).
  const release = io.handleSignals === false ? () => undefined : stopOnSignals();
  let report: BenchReport;
  try {
    report = parsed.target
      ? await runTargetBench(options, parsed.target, env)
      : (await runBench({ ...options, onStep })).report;
  } finally {
    release();
  }
  if (parsed.realGh) {
    const transport = new HttpTransport({ connections: 16 });
    try {
      report = { ...report, realGh: await runRealGhCheck({ transport, costs: new CostEstimator() }) };
    } finally {
      await transport.close();
    }
  }
  writeBenchOutputs(report, { json: parsed.json, svg: parsed.svg });
  write(`${renderScorecardTable(report)}\n`);
  if (parsed.explain) write(`\n${renderExplainTable(report)}\n`);
  if (parsed.target && report.notes.some((n) => n.includes("cap") && n.includes("was reached"))) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_CAP_REACHED,
      `the --max-points cap (${parsed.target.maxPoints}) was reached; the run stopped there (the scorecard above covers what ran)`,
    );
  }
  return report;
}
