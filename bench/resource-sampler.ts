/**
 * CPU, memory and event-loop lag of a process over the measured window: this process (agents,
 * simulator, in-process proxy or broker) via process.cpuUsage, or another process (a broker run
 * as a child) via /proc/<pid>/stat and /proc/<pid>/status on Linux.
 */
import { readFileSync } from "node:fs";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { ResourceUse } from "./core/report-types.js";

export class SelfSampler {
  readonly #histogram = monitorEventLoopDelay({ resolution: 10 });
  #cpu = process.cpuUsage();
  #started = performance.now();
  #maxRss = 0;
  #timer: NodeJS.Timeout | undefined;

  start(): void {
    this.#cpu = process.cpuUsage();
    this.#started = performance.now();
    this.#maxRss = process.memoryUsage().rss;
    this.#histogram.reset();
    this.#histogram.enable();
    this.#timer = setInterval(() => {
      this.#maxRss = Math.max(this.#maxRss, process.memoryUsage().rss);
    }, 500);
    this.#timer.unref();
  }

  stop(): ResourceUse & { eventLoopLagP95Ms: number | null } {
    if (this.#timer) clearInterval(this.#timer);
    this.#histogram.disable();
    const cpu = process.cpuUsage(this.#cpu);
    const seconds = (cpu.user + cpu.system) / 1e6;
    const wall = (performance.now() - this.#started) / 1000;
    const lag = this.#histogram.count > 0 ? this.#histogram.percentile(95) / 1e6 : null;
    return {
      cpuSeconds: round(seconds),
      cpuPercent: round(wall > 0 ? (seconds / wall) * 100 : 0),
      rssMb: round(Math.max(this.#maxRss, process.memoryUsage().rss) / 1024 / 1024),
      eventLoopLagP95Ms: lag === null ? null : round(lag),
    };
  }
}

const round = (n: number) => Math.round(n * 10) / 10;

/** CPU seconds (user + system) and RSS of another process; undefined where /proc is absent. */
export function readProcess(pid: number): { cpuSeconds: number; rssMb: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { cpuSeconds: ticks / 100, rssMb: rssKb / 1024 };
  } catch {
    return undefined;
  }
}
