/**
 * `trace.report`: an IPC method outside the protocol (the CLI's `ao-broker trace report`) that
 * summarises the call records of the last `since` (e.g. "1h") by session, command and cost.
 */
import { z } from "zod";
import { buildTraceReport, parseDuration } from "../../otel/index.js";
import type { SessionStats } from "../sessions/session-stats.js";
import type { IpcExtraMethod } from "./types.js";

const traceReportParams = z.strictObject({
  since: z.string().max(32).optional(),
  top: z.int().min(1).max(1000).optional(),
});

export function traceReportMethod(stats: SessionStats, now: () => number = Date.now): IpcExtraMethod {
  return {
    params: traceReportParams,
    handler: async (params) => {
      const { since, top } = params as z.infer<typeof traceReportParams>;
      const sinceMs = since ? parseDuration(since) : undefined;
      const at = now();
      const records = await stats.calls(sinceMs === undefined ? undefined : at - sinceMs);
      return buildTraceReport(records, { now: at, sinceMs, ...(top ? { top } : {}) });
    },
  };
}
