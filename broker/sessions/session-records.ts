/**
 * What the session store keeps of a session and of a token: declared apart so the store and its
 * in-memory fallback (known-sessions.ts), which the store holds, do not import each other.
 */
import type { TokenKind } from "./core/identifiers.js";

export interface SessionRecord {
  readonly id: string;
  readonly repo: string;
  readonly weight: number;
  readonly readOnly: boolean;
  readonly projectId?: string | undefined;
  readonly issueId?: string | undefined;
  readonly worktree?: string | undefined;
  readonly createdAt: number;
  /** Parent budget of an auto-registered session (budget-group.ts); absent for opened ones. */
  readonly budgetGroup?: string | undefined;
  /** Epoch ms the session ends at (opened with ttlSeconds); absent: lives until closed. */
  readonly expiresAt?: number | undefined;
}

export interface TokenRecord {
  readonly kind: TokenKind;
  readonly sessionId: string;
  readonly invocationId?: string | undefined;
  readonly readOnly: boolean;
  readonly expiresAt: number;
}
