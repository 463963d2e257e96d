/**
 * Bounded metric labels for session ids. A Prometheus series per session is what makes "who burned
 * the budget" visible on a dashboard, but AO spawns sessions without end, and every distinct label
 * value is a series kept for the life of the process (cumulative counters never forget an attribute
 * set). So the first `max` distinct sessions seen keep their own label and every later one is
 * counted under "other". Per-session detail beyond that lives in the broker's CallRecords
 * (`ao-broker trace report`), which have no cardinality limit.
 *
 * Invariants: at most `max` + 3 distinct values are ever returned ("other", "none", "redacted");
 * a session's label never changes once assigned (a counter must not hop between series); a value
 * that looks like a token is never used as a label.
 */
import { containsSecret } from "./secret-scrub.js";

export const OTHER_SESSION = "other";
export const NO_SESSION = "none";
export const REDACTED_SESSION = "redacted";
/** Longest session label kept verbatim; longer ids are cut (AO's ids are short, e.g. "ta-12"). */
export const MAX_SESSION_LABEL_LENGTH = 64;

export interface SessionLabelerOptions {
  /** Distinct sessions that get their own label. @defaultValue 50 */
  readonly max?: number;
  /** Values that must never become a label (the PAT). */
  readonly secrets?: () => readonly string[];
}

export class SessionLabeler {
  readonly #max: number;
  readonly #labels = new Map<string, string>();
  readonly #secrets: () => readonly string[];

  constructor(options: SessionLabelerOptions = {}) {
    this.#max = Math.max(0, options.max ?? 50);
    this.#secrets = options.secrets ?? (() => []);
  }

  /** Number of sessions holding their own label. */
  get size(): number {
    return this.#labels.size;
  }

  label(sessionId: string | undefined): string {
    if (sessionId === undefined || sessionId === "") return NO_SESSION;
    const known = this.#labels.get(sessionId);
    if (known !== undefined) return known;
    if (this.#labels.size >= this.#max) return OTHER_SESSION;
    if (containsSecret(sessionId, this.#secrets())) return REDACTED_SESSION;
    const label = sessionId.slice(0, MAX_SESSION_LABEL_LENGTH);
    this.#labels.set(sessionId, label);
    return label;
  }
}
