/**
 * Where each session's life begins at t = 0, so a short window sees the steady-state mix of an
 * agent population rather than N agents all reading their issues at once. Systematic sampling:
 * counts per phase follow the weights as closely as integers allow (5 sessions with weights
 * 0.4/0.25/0.2/0.15 give 2/1/1/1), with one random offset and a shuffle deciding which session
 * gets which. How far into its first phase each already is is systematic too: a phase's k-th of n
 * sessions is (k + u) ÷ n through it, so its sessions leave it evenly over the phase's length
 * (72 sessions in `work` end it at a steady rate, not in the clumps of independent draws, which
 * moved a 240 s window's PR creates by ±20 %: docs/decisions/0030). Pure.
 */
import type { Rng } from "./rng.js";

export interface InitialPhase<P extends string> {
  readonly phase: P;
  /** Fraction of the first phase already behind the session, in [0, 1). */
  readonly elapsed: number;
}

export function initialPhases<P extends string>(
  weights: Readonly<Record<P, number>>,
  count: number,
  rng: Rng,
): InitialPhase<P>[] {
  const entries = (Object.entries(weights) as [P, number][]).filter(([, w]) => w > 0);
  const total = entries.reduce((sum, [, w]) => sum + w, 0);
  if (entries.length === 0 || total <= 0 || count <= 0) return [];
  const offset = rng.next();
  const out: InitialPhase<P>[] = [];
  for (let i = 0; i < count; i++) {
    let x = ((i + offset) / count) * total;
    let chosen = entries[entries.length - 1]?.[0] as P;
    for (const [phase, weight] of entries) {
      if (x < weight) {
        chosen = phase;
        break;
      }
      x -= weight;
    }
    out.push({ phase: chosen, elapsed: 0 });
  }
  const counts = new Map<P, number>();
  for (const { phase } of out) counts.set(phase, (counts.get(phase) ?? 0) + 1);
  // Per phase: how many of its sessions are placed so far (k) and its one random offset (u).
  const placed = new Map<P, { k: number; u: number }>();
  for (const [i, { phase }] of out.entries()) {
    const { k, u } = placed.get(phase) ?? { k: 0, u: rng.next() };
    placed.set(phase, { k: k + 1, u });
    out[i] = { phase, elapsed: (k + u) / (counts.get(phase) ?? 1) };
  }
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [out[i], out[j]] = [out[j] as InitialPhase<P>, out[i] as InitialPhase<P>];
  }
  return out;
}
