/**
 * Exact memoisation of query answers: the same query text, operation and variables against the
 * same world version always produce the same bytes (views are pure functions of the world, and
 * nothing in an answer depends on the clock), so answers are kept until the world changes.
 * Queries that ask for `rateLimit` (whose figures change per request) and mutations are never
 * cached; charging, limits and stats happen before the cache is consulted, as for any request.
 * Bounded, and emptied whenever the world version moves.
 */
export class ResultCache {
  readonly #max: number;
  #version = -1;
  #entries = new Map<string, string>();

  constructor(max = 2000) {
    this.#max = max;
  }

  get(key: string, version: number): string | undefined {
    if (version !== this.#version) return undefined;
    return this.#entries.get(key);
  }

  set(key: string, version: number, body: string): void {
    if (version !== this.#version) {
      this.#version = version;
      this.#entries = new Map();
    }
    if (this.#entries.size >= this.#max) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, body);
  }

  clear(): void {
    this.#version = -1;
    this.#entries = new Map();
  }
}
