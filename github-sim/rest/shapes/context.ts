/**
 * What every REST shape needs: the world and the two URL bases. `api` is where the client
 * reached the simulator (API links must be followable: gh fetches `jobs_url` as given); `web`
 * is the HTML base (`html_url`), fixed per simulator so HTML links never depend on the route.
 */
import type { World } from "../../core/world.js";

export interface ShapeContext {
  readonly world: World;
  /** e.g. `http://api.github.localhost` (no trailing slash). */
  readonly api: string;
  /** e.g. `http://github.localhost` (no trailing slash). */
  readonly web: string;
}

/** GitHub's REST timestamps: ISO-8601 UTC, seconds precision. */
export function restTime(ms: number): string;
export function restTime(ms: number | null): string | null;
export function restTime(ms: number | null): string | null {
  return ms === null ? null : new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

export function reactions(url: string) {
  return {
    url: `${url}/reactions`,
    total_count: 0,
    "+1": 0,
    "-1": 0,
    laugh: 0,
    hooray: 0,
    confused: 0,
    heart: 0,
    rocket: 0,
    eyes: 0,
  };
}
