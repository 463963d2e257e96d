/**
 * The sessions this broker opened or used recently, with the hashes of the tokens it issued them,
 * kept in memory for the two moments Redis cannot answer for them: while it is unreachable (IPC
 * calls of a known session keep working, as the gateway's resolver cache does for tokens), and
 * after it came back without its data (they are written back, so sessions used only over IPC
 * survive an empty restart too).
 *
 * Bounded: at most `maxSessions` sessions (the least recently used goes first), `maxTokensPerSession`
 * token hashes each, and nothing older than `retainMs` since its last use. A session closed through
 * another broker stays here until then; see docs/reliability.md for what that means after a loss.
 */
import type { SessionRecord, TokenRecord } from "./session-records.js";
import { SESSIONS_DEFAULTS } from "./sessions-settings.js";

export interface KnownSessionsOptions {
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /** @defaultValue 10000 */
  readonly maxSessions?: number;
  /** @defaultValue 8 */
  readonly maxTokensPerSession?: number;
  /** @defaultValue 24 h */
  readonly retainMs?: number;
}

interface Entry {
  session: SessionRecord;
  readonly tokens: Map<string, TokenRecord>;
  seenAt: number;
}

export class KnownSessions {
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #maxSessions: number;
  readonly #maxTokens: number;
  readonly #retainMs: number;

  constructor(options: KnownSessionsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxSessions = options.maxSessions ?? SESSIONS_DEFAULTS.knownSessionsMax;
    this.#maxTokens = options.maxTokensPerSession ?? SESSIONS_DEFAULTS.knownTokensPerSession;
    this.#retainMs = options.retainMs ?? SESSIONS_DEFAULTS.knownRetainMs;
  }

  remember(session: SessionRecord): void {
    const entry = this.#entries.get(session.id);
    this.#entries.delete(session.id);
    this.#entries.set(session.id, {
      session,
      tokens: entry?.tokens ?? new Map(),
      seenAt: this.#now(),
    });
    while (this.#entries.size > this.#maxSessions) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  rememberToken(sessionId: string, hash: string, token: TokenRecord): void {
    const entry = this.#entries.get(sessionId);
    if (!entry) return;
    entry.tokens.set(hash, token);
    while (entry.tokens.size > this.#maxTokens) {
      const oldest = entry.tokens.keys().next().value;
      if (oldest === undefined) break;
      entry.tokens.delete(oldest);
    }
  }

  forget(sessionId: string): void {
    this.#entries.delete(sessionId);
  }

  /** The session if known, still within its lifetime and seen within retainMs. */
  session(id: string): SessionRecord | undefined {
    const entry = this.#entries.get(id);
    return entry && this.#live(entry) ? entry.session : undefined;
  }

  sessions(): SessionRecord[] {
    return [...this.#entries.values()]
      .filter((entry) => this.#live(entry))
      .map((entry) => entry.session)
      .sort((a, b) => a.id.localeCompare(b.id));
  }

  entries(): { session: SessionRecord; tokens: ReadonlyMap<string, TokenRecord> }[] {
    return [...this.#entries.values()].filter((entry) => this.#live(entry));
  }

  #live(entry: Entry): boolean {
    const now = this.#now();
    if (entry.session.expiresAt !== undefined && entry.session.expiresAt <= now) return false;
    return now - entry.seenAt <= this.#retainMs;
  }
}
