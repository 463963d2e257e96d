/**
 * What an arm gives a step: a channel per agent session (how its gh commands reach GitHub) and an
 * orchestrator (how PR state is polled: AO's sequential loop, or the broker's lifecycle service).
 * The step runner drives all arms through this one seam, so the workload cannot differ by arm.
 */
import type { Bindings } from "../core/capture-template.js";
import type { ArmName, ResourceUse } from "../core/report-types.js";
import type { CommandOutcome, ReplayContext } from "../replay/replay-types.js";

export type CommandRun<T> = (ctx: ReplayContext) => Promise<CommandOutcome<T>>;

export interface SessionSpec {
  readonly id: string;
  readonly index: number;
  readonly issue: number;
  readonly branch: string;
}

export interface SessionChannel {
  /** Runs one gh command (argv as an agent typed it, bindings: the session's numbers) through this arm. */
  run<T>(argv: readonly string[], bindings: Bindings, command: CommandRun<T>): Promise<CommandOutcome<T>>;
  close(): Promise<void>;
}

export interface Orchestrator {
  /** A session exists (its branch may not have a PR yet). */
  watch(session: SessionSpec, pr?: number): Promise<void>;
  /** AO's gh wrapper records `gh pr create`; the broker learns it from the shim's session. */
  prCreated(session: SessionSpec, pr: number): Promise<void>;
  unwatch(session: SessionSpec): Promise<void>;
  close(): Promise<void>;
}

export interface ArmInstance {
  readonly name: ArmName;
  openSession(session: SessionSpec): Promise<SessionChannel>;
  readonly orchestrator: Orchestrator;
  /** A separate broker process's CPU and memory since `markWindowStart`, when there is one. */
  markWindowStart(): void;
  resourceUse(): ResourceUse | null;
  /** The broker's Prometheus /metrics text, when it serves one (the per-answer breakdown's counters). */
  scrapeMetrics?(): Promise<string | undefined>;
  close(): Promise<void>;
}
