/**
 * Writes the scorecard: `--json FILE` (the BenchReport) and `--svg FILE` (the plot). Parent
 * directories are created; a failure names the file.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { AoError } from "../common/index.js";
import type { BenchReport } from "./core/report-types.js";
import { renderPlot } from "./core/svg-plot.js";
import { BenchErrors } from "./errors.js";

function write(file: string, text: string): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  } catch (error) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_OUTPUT_FAILED,
      `cannot write ${file}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

export function plotSubtitle(report: BenchReport): string {
  const parts = Object.entries(report.sessionsToBudget).map(
    ([arm, n]) =>
      `${arm} ${report.sessionsToBudgetBound[arm as keyof typeof report.sessionsToBudgetBound] === "at-least" ? "≥ " : ""}${n}`,
  );
  return `profile ${String(report.options.profile)}; sessions to budget: ${parts.join(", ")}; ${report.finishedAt.slice(0, 10)}`;
}

export function writeBenchOutputs(
  report: BenchReport,
  files: { json?: string | undefined; svg?: string | undefined },
): void {
  if (files.json) write(files.json, `${JSON.stringify(report, null, 2)}\n`);
  if (files.svg) {
    write(
      files.svg,
      renderPlot(report.runs, {
        title: "GraphQL points per hour vs sessions, one token",
        subtitle: plotSubtitle(report),
      }),
    );
  }
}
