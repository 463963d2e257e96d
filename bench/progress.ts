/**
 * Progress while a bench runs (stderr): with a TTY, cli-progress bars — one per arm (steps done of
 * its plan) and one for the step in flight (warm-up, then the measured window); without one, a
 * line per step start and result, so CI logs stay readable.
 */
import { MultiBar, Presets, type SingleBar } from "cli-progress";
import type { ArmName, StepResult } from "./core/report-types.js";
import type { StepPhase } from "./step-runner.js";

export interface BenchProgress {
  armStarted(arm: ArmName, plannedSteps: number): void;
  stepStarted(arm: ArmName, sessions: number, scale: number, expectedSeconds: number): void;
  stepProgress(phase: StepPhase, fraction: number): void;
  stepDone(result: StepResult): void;
  note(line: string): void;
  stop(): void;
}

const summary = (r: StepResult) =>
  `${r.arm} @ ${r.sessions}: ${Math.round(r.graphqlPointsPerHour).toLocaleString("en-US")} GraphQL pts/h, ` +
  `${Math.round(r.restCorePerHour).toLocaleString("en-US")} REST/h — ${r.withinBudget ? "within budget" : r.reasons.join("; ")}`;

export function createProgress(stream: NodeJS.WriteStream = process.stderr, enabled = true): BenchProgress {
  if (!enabled) {
    return {
      armStarted: () => undefined,
      stepStarted: () => undefined,
      stepProgress: () => undefined,
      stepDone: () => undefined,
      note: () => undefined,
      stop: () => undefined,
    };
  }
  if (!stream.isTTY) {
    return {
      armStarted: (arm, planned) => stream.write(`bench: arm ${arm} (up to ${planned} steps)\n`),
      stepStarted: (arm, n, scale, seconds) =>
        stream.write(`bench: ${arm} @ ${n} sessions, time ×${scale}, ~${Math.round(seconds)} s\n`),
      stepProgress: () => undefined,
      stepDone: (r) => stream.write(`bench:   ${summary(r)}\n`),
      note: (line) => stream.write(`bench: ${line}\n`),
      stop: () => undefined,
    };
  }
  const multi = new MultiBar(
    {
      stream,
      hideCursor: true,
      clearOnComplete: false,
      format: "{label} |{bar}| {value}/{total} {info}",
      barsize: 30,
      fps: 5,
    },
    Presets.shades_classic,
  );
  const arms = new Map<ArmName, SingleBar>();
  let current: SingleBar | undefined;
  let currentArm: ArmName | undefined;
  let done = 0;
  return {
    armStarted: (arm, planned) => {
      if (currentArm) arms.get(currentArm)?.update(done, { info: "done" });
      arms.set(arm, multi.create(planned, 0, { label: arm.padEnd(8), info: "" }));
      currentArm = arm;
      done = 0;
    },
    stepStarted: (arm, n, scale, seconds) => {
      current?.stop();
      if (current) multi.remove(current);
      current = multi.create(100, 0, {
        label: `  ${n}`.padEnd(8),
        info: `sessions ×${scale} ~${Math.round(seconds)}s starting`,
      });
      arms.get(arm)?.update(done, { info: `@ ${n} sessions` });
    },
    stepProgress: (phase, fraction) => {
      const base = phase === "measure" ? 20 : 0;
      const span = phase === "warmup" ? 20 : phase === "measure" ? 80 : 0;
      current?.update(phase === "stopping" ? 100 : Math.round(base + span * fraction), { info: phase });
    },
    stepDone: (r) => {
      done++;
      if (currentArm)
        arms.get(currentArm)?.update(done, { info: `last: ${r.sessions} ${r.withinBudget ? "ok" : "over"}` });
      multi.log(`${summary(r)}\n`);
    },
    note: (line) => multi.log(`${line}\n`),
    stop: () => {
      if (current) multi.remove(current);
      multi.stop();
    },
  };
}
