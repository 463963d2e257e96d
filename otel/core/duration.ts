/**
 * Human durations for CLI flags (`--since 15m`): one or more `<number><unit>` parts, units ms, s,
 * m, h, d, w (`90s`, `1h30m`, `2d`). A bare number is seconds. Returns undefined for anything else
 * (the caller names the flag in its error); zero and negative durations are not durations.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

export function parseDurationMs(text: string): number | undefined {
  const trimmed = text.trim().toLowerCase();
  if (trimmed === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) {
    const seconds = Number(trimmed);
    return seconds > 0 ? Math.round(seconds * 1000) : undefined;
  }
  let total = 0;
  let consumed = 0;
  // matchAll works on a copy of PART, so the sticky regex's lastIndex is never shared.
  for (const match of trimmed.matchAll(PART)) {
    total += Number(match[1]) * (UNIT_MS[match[2] ?? ""] ?? Number.NaN);
    consumed = (match.index ?? 0) + match[0].length;
  }
  if (consumed !== trimmed.length || !Number.isFinite(total) || total <= 0) return undefined;
  return Math.round(total);
}

/** 5400000 → "1h30m"; sub-second values in ms. */
export function formatDurationMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  let rest = Math.round(ms / 1000);
  const parts: string[] = [];
  for (const [unit, size] of [
    ["d", 86_400],
    ["h", 3600],
    ["m", 60],
    ["s", 1],
  ] as const) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count}${unit}`);
    rest -= count * size;
  }
  return parts.join("");
}
