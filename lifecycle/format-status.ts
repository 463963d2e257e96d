/**
 * `ao-broker lifecycle status` without --json: one line per session and a summary of the last
 * cycle, for people. Machines use the JSON form (the LifecycleStatus object as is).
 */
import type { LifecycleStatus } from "./lifecycle-service.js";

function pad(text: string, width: number): string {
  return text.length >= width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export function formatLifecycleStatus(status: LifecycleStatus): string {
  const lines = [
    `${pad("SESSION", 24)} ${pad("STATUS", 18)} ${pad("PR", 28)} ${pad("CI", 8)} REVIEW`,
    ...status.sessions.map((s) =>
      [
        pad(s.id, 24),
        pad(s.status, 18),
        pad(s.prKey ?? `${s.repo} (${s.branch})`, 28),
        pad(s.pr?.ciStatus ?? "-", 8),
        s.pr?.reviewDecision ?? "-",
      ].join(" "),
    ),
  ];
  const cycle = status.lastCycle;
  lines.push(
    "",
    `${status.sessions.length} sessions, ${status.prs} PRs in ${status.repos} repositories; loop ${status.running ? "running" : "stopped"}`,
  );
  if (cycle) {
    lines.push(
      `last cycle: ${Math.round(cycle.durationMs)} ms, ${cycle.guards.requests} guards (${cycle.guards.notModified} not modified), ` +
        `${cycle.enrichment.queries + cycle.detection.queries} GraphQL queries, ${cycle.enrichment.points + cycle.detection.points} points, ${cycle.events} events`,
    );
  }
  const t = status.totals;
  lines.push(
    `totals: ${t.cycles} cycles, ${t.graphqlPoints} GraphQL points in ${t.graphqlQueries} queries, ` +
      `${t.restRequests} REST guards (${t.restNotModified} not modified), ${t.events} events`,
  );
  return `${lines.join("\n")}\n`;
}
