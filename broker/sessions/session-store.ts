/**
 * Sessions and their tokens, kept in Redis so they survive a broker restart and are shared by every
 * broker on the same Redis.
 *
 * Keys (prefix p):
 *   p:sessions                 SET of open session ids
 *   p:session:<id>             HASH of the session record
 *   p:session:<id>:tokens      SET of sha256(token) issued to the session (for revocation)
 *   p:token:<sha256>           HASH {kind, sessionId, invocationId?, readOnly, expiresAt}, PEXPIREAT expiresAt
 *   p:invocation:<id>          HASH {sessionId, command, argv, cwd, startedAt, finishedAt?, exitCode?, durationMs?}
 *
 * Tokens are stored only as SHA-256 hashes: a Redis dump never yields a usable token. Revocation
 * deletes the token keys and publishes the hashes on p:revoked so every broker's resolver cache
 * forgets them at once. gh arguments are stored redacted (core/identifiers.ts).
 *
 * A session opened with `ttlSeconds` expires then (its record and keys go, its tokens stop working
 * at that instant). A re-open applies a new weight and a new ttlSeconds, narrows its token to
 * read-only on `readOnly: true`, and refuses to widen a read-only session (AO_ERR_SESSION_CONFLICT).
 *
 * While Redis is unreachable, the sessions this broker opened or read recently are answered from
 * memory (KnownSessions), and anything that must write refuses with AO_ERR_STATE_UNAVAILABLE; when
 * Redis comes back empty, restoreKnown() writes them back with their tokens' hashes.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { AoError } from "../../common/index.js";
import { BrokerErrors } from "../errors.js";
import { autoRegisteredGroup } from "./budget-group.js";
import {
  isValidRepo,
  isValidSessionId,
  redactGhArgs,
  summarizeArgv,
  TOKEN_PREFIX,
  type TokenKind,
} from "./core/identifiers.js";
import { KnownSessions, type KnownSessionsOptions } from "./known-sessions.js";
import type { SessionRecord, TokenRecord } from "./session-records.js";

export type { SessionRecord, TokenRecord } from "./session-records.js";

export interface InvocationRecord {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly argv: readonly string[];
  readonly cwd?: string | undefined;
  readonly startedAt: number;
  readonly finishedAt?: number | undefined;
  readonly exitCode?: number | undefined;
  readonly signal?: string | undefined;
  readonly durationMs?: number | undefined;
}

export interface InvocationTokenInput {
  readonly sessionId: string;
  readonly argv?: readonly string[] | undefined;
  readonly cwd?: string | undefined;
  readonly ttlSeconds?: number | undefined;
  readonly readOnly?: boolean | undefined;
}

export interface OpenSessionInput {
  readonly id: string;
  readonly repo: string;
  /** @defaultValue 1 */
  readonly weight?: number | undefined;
  /** @defaultValue false */
  readonly readOnly?: boolean | undefined;
  readonly projectId?: string | undefined;
  readonly issueId?: string | undefined;
  readonly worktree?: string | undefined;
  /** The shim opened it on first use: it joins its checkout's parent budget. */
  readonly autoRegistered?: boolean | undefined;
  /** The session ends this many seconds after this (re)open. */
  readonly ttlSeconds?: number | undefined;
}

export interface SessionStoreOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly sessionTokenTtlSeconds: number;
  readonly invocationTokenTtlSeconds: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
  /** Bounds of the in-memory copy kept for Redis outages (sessions settings). */
  readonly known?: Omit<KnownSessionsOptions, "now">;
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

function newToken(kind: TokenKind): string {
  return `${TOKEN_PREFIX[kind]}${randomBytes(32).toString("base64url")}`;
}

const INVOCATION_RETENTION_MS = 24 * 3600 * 1000;
/**
 * Once gh has exited its record is only history (the calls stream keeps the attribution), so it
 * goes after an hour: at hundreds of agents a day of records would be millions of keys.
 */
const FINISHED_INVOCATION_RETENTION_MS = 3600 * 1000;

export class SessionStore {
  readonly #redis: Redis;
  readonly #p: string;
  readonly #options: SessionStoreOptions;
  readonly #now: () => number;
  readonly #known: KnownSessions;

  constructor(options: SessionStoreOptions) {
    this.#redis = options.redis;
    this.#p = options.prefix;
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#known = new KnownSessions({ ...options.known, now: this.#now });
  }

  get revocationChannel(): string {
    return `${this.#p}:revoked`;
  }

  async open(input: OpenSessionInput): Promise<{ session: SessionRecord; token: string; created: boolean }> {
    if (!isValidSessionId(input.id)) {
      throw new AoError(
        BrokerErrors.AO_ERR_INVALID_SESSION,
        `invalid session id "${input.id}": use 1-128 of A-Z a-z 0-9 . _ : @ + -`,
        {
          httpStatus: 422,
        },
      );
    }
    if (!isValidRepo(input.repo)) {
      throw new AoError(
        BrokerErrors.AO_ERR_INVALID_SESSION,
        `invalid repo "${input.repo}": expected OWNER/NAME`,
        { httpStatus: 422 },
      );
    }
    const weight = input.weight ?? 1;
    if (!(weight > 0 && weight <= 1000)) {
      throw new AoError(
        BrokerErrors.AO_ERR_INVALID_SESSION,
        `invalid weight ${weight}: expected a number in (0, 1000]`,
        { httpStatus: 422 },
      );
    }
    const now = this.#now();
    const expiresAt = input.ttlSeconds === undefined ? undefined : now + input.ttlSeconds * 1000;
    return this.#whileReachable("open a session", async () => {
      const existing = await this.#read(input.id);
      if (existing?.readOnly && input.readOnly === false) {
        throw new AoError(
          BrokerErrors.AO_ERR_SESSION_CONFLICT,
          `session "${input.id}" is read-only; a re-open cannot make it writable (close it and open it again)`,
          { httpStatus: 409 },
        );
      }
      const session: SessionRecord = existing
        ? {
            ...existing,
            ...(input.weight !== undefined ? { weight } : {}),
            ...(expiresAt !== undefined ? { expiresAt } : {}),
          }
        : {
            id: input.id,
            repo: input.repo,
            weight,
            readOnly: input.readOnly ?? false,
            projectId: input.projectId,
            issueId: input.issueId,
            worktree: input.worktree,
            createdAt: now,
            expiresAt,
            budgetGroup: input.autoRegistered ? autoRegisteredGroup(input.worktree) : undefined,
          };
      const sessionKey = `${this.#p}:session:${session.id}`;
      const multi = this.#redis
        .multi()
        .hset(sessionKey, sessionFields(session))
        .sadd(`${this.#p}:sessions`, session.id);
      if (session.expiresAt !== undefined) {
        multi.pexpireat(sessionKey, session.expiresAt).pexpireat(`${sessionKey}:tokens`, session.expiresAt);
      }
      await multi.exec();
      // A read-only re-open of a writable session narrows this token, not the session.
      const readOnly = session.readOnly || input.readOnly === true;
      const token = await this.#issue({
        kind: "session",
        sessionId: session.id,
        readOnly,
        ttlSeconds: this.#options.sessionTokenTtlSeconds,
        notAfter: session.expiresAt,
      });
      this.#known.remember(session);
      return {
        session: readOnly === session.readOnly ? session : { ...session, readOnly },
        token,
        created: !existing,
      };
    });
  }

  /**
   * A session, or undefined when it does not exist (or expired). While Redis is unreachable, a
   * session this broker knows answers from memory; any other is AO_ERR_STATE_UNAVAILABLE.
   */
  async get(id: string): Promise<SessionRecord | undefined> {
    if (!isValidSessionId(id)) return undefined;
    try {
      const session = await this.#read(id);
      if (session) this.#known.remember(session);
      return session;
    } catch (error) {
      const known = this.#known.session(id);
      if (known) return known;
      throw unavailable("look the session up", error);
    }
  }

  /** Open sessions; while Redis is unreachable, the ones this broker knows. */
  async list(): Promise<SessionRecord[]> {
    let results: [Error | null, unknown][];
    try {
      const ids = (await this.#redis.smembers(`${this.#p}:sessions`)).sort();
      if (ids.length === 0) return [];
      const pipeline = this.#redis.pipeline();
      for (const id of ids) pipeline.hgetall(`${this.#p}:session:${id}`);
      results = (await pipeline.exec()) ?? [];
    } catch {
      return this.#known.sessions();
    }
    const now = this.#now();
    return results
      .map(([, raw]) => raw as Record<string, string>)
      .filter((raw) => raw?.id)
      .map(parseSession)
      .filter((session) => session.expiresAt === undefined || session.expiresAt > now);
  }

  /** True while Redis answers nothing and the session is answered from memory. */
  knows(id: string): boolean {
    return this.#known.session(id) !== undefined;
  }

  /**
   * After Redis lost its data: writes back the sessions this broker knows (opened or used here,
   * IPC-only ones included) with the hashes of the tokens it issued them. Keeps what exists.
   */
  async restoreKnown(): Promise<number> {
    let restored = 0;
    for (const { session, tokens } of this.#known.entries()) {
      const live = [...tokens].filter(([, token]) => token.expiresAt > this.#now());
      if (live.length === 0) await this.restore(undefined, undefined, session);
      for (const [hash, token] of live) await this.restore(hash, token, session);
      restored += 1;
    }
    return restored;
  }

  async #read(id: string): Promise<SessionRecord | undefined> {
    const raw = await this.#redis.hgetall(`${this.#p}:session:${id}`);
    if (!raw.id) return undefined;
    const session = parseSession(raw);
    return session.expiresAt !== undefined && session.expiresAt <= this.#now() ? undefined : session;
  }

  /** Runs a step that needs Redis; an unreachable Redis becomes AO_ERR_STATE_UNAVAILABLE. */
  async #whileReachable<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof AoError) throw error;
      throw unavailable(what, error);
    }
  }

  async close(id: string): Promise<{ closed: boolean; revokedTokens: number }> {
    return this.#whileReachable("close the session", () => this.#close(id));
  }

  async #close(id: string): Promise<{ closed: boolean; revokedTokens: number }> {
    this.#known.forget(id);
    const session = await this.#read(id);
    if (!session) return { closed: false, revokedTokens: 0 };
    const hashes = await this.#redis.smembers(`${this.#p}:session:${id}:tokens`);
    const multi = this.#redis.multi();
    for (const hash of hashes) multi.del(`${this.#p}:token:${hash}`);
    multi.del(`${this.#p}:session:${id}:tokens`, `${this.#p}:session:${id}`);
    multi.srem(`${this.#p}:sessions`, id);
    await multi.exec();
    if (hashes.length > 0) await this.#redis.publish(this.revocationChannel, JSON.stringify(hashes));
    return { closed: true, revokedTokens: hashes.length };
  }

  /** A per-invocation token: one gh command, attributed to its session, argv and cwd. */
  async issueInvocationToken(
    input: InvocationTokenInput,
  ): Promise<{ token: string; invocationId: string; expiresAt: number }> {
    return this.#whileReachable("issue an invocation token", () => this.#issueInvocationToken(input));
  }

  async #issueInvocationToken(
    input: InvocationTokenInput,
  ): Promise<{ token: string; invocationId: string; expiresAt: number }> {
    const session = await this.#read(input.sessionId);
    if (!session) {
      throw new AoError(BrokerErrors.AO_ERR_UNKNOWN_SESSION, `unknown session "${input.sessionId}"`, {
        httpStatus: 404,
      });
    }
    const invocationId = randomUUID();
    const argv = input.argv ?? [];
    const ttlSeconds = Math.min(
      input.ttlSeconds ?? this.#options.invocationTokenTtlSeconds,
      this.#options.invocationTokenTtlSeconds,
    );
    const now = this.#now();
    const record: Record<string, string> = {
      id: invocationId,
      sessionId: session.id,
      command: summarizeArgv(["gh", ...argv]),
      argv: JSON.stringify(redactGhArgs(argv).map((a) => summarizeArgv([a]))),
      startedAt: String(now),
    };
    if (input.cwd) record.cwd = input.cwd;
    await this.#redis
      .multi()
      .hset(`${this.#p}:invocation:${invocationId}`, record)
      .pexpireat(`${this.#p}:invocation:${invocationId}`, now + INVOCATION_RETENTION_MS)
      .exec();
    const token = await this.#issue({
      kind: "invocation",
      sessionId: session.id,
      invocationId,
      readOnly: session.readOnly || (input.readOnly ?? false),
      ttlSeconds,
      notAfter: session.expiresAt,
    });
    await this.#redis.hset(`${this.#p}:invocation:${invocationId}`, "tokenHash", hashToken(token));
    return {
      token,
      invocationId,
      expiresAt: Math.min(now + ttlSeconds * 1000, session.expiresAt ?? Infinity),
    };
  }

  /**
   * Records an invocation the shim announced through a derived token (first request wins across
   * brokers). `ok` is false when the id already belongs to another session.
   */
  async recordInvocation(input: {
    id: string;
    sessionId: string;
    argv: readonly string[];
    cwd?: string | undefined;
  }): Promise<{ ok: boolean; created: boolean }> {
    const key = `${this.#p}:invocation:${input.id}`;
    const created = await this.#redis.hsetnx(key, "sessionId", input.sessionId);
    if (created === 0) {
      const owner = await this.#redis.hget(key, "sessionId");
      return { ok: owner === input.sessionId, created: false };
    }
    const now = this.#now();
    const fields: Record<string, string> = {
      id: input.id,
      command: summarizeArgv(["gh", ...input.argv]),
      argv: JSON.stringify(redactGhArgs(input.argv).map((a) => summarizeArgv([a]))),
      startedAt: String(now),
    };
    if (input.cwd) fields.cwd = input.cwd;
    await this.#redis
      .multi()
      .hset(key, fields)
      .pexpireat(key, now + INVOCATION_RETENTION_MS)
      .exec();
    return { ok: true, created: true };
  }

  async finishInvocation(input: {
    invocationId: string;
    exitCode: number;
    signal?: string | undefined;
    durationMs: number;
  }): Promise<InvocationRecord | undefined> {
    return this.#whileReachable("record the invocation's end", () => this.#finishInvocation(input));
  }

  async #finishInvocation(input: {
    invocationId: string;
    exitCode: number;
    signal?: string | undefined;
    durationMs: number;
  }): Promise<InvocationRecord | undefined> {
    const key = `${this.#p}:invocation:${input.invocationId}`;
    const fields: Record<string, string> = {
      finishedAt: String(this.#now()),
      exitCode: String(input.exitCode),
      durationMs: String(Math.max(0, Math.round(input.durationMs))),
    };
    if (input.signal) fields.signal = input.signal;
    const [, , [, raw]] = (await this.#redis
      .multi()
      .hset(key, fields)
      .pexpire(key, FINISHED_INVOCATION_RETENTION_MS)
      .hgetall(key)
      .exec()) as [unknown, unknown, [unknown, Record<string, string>]];
    if (!raw?.sessionId) {
      await this.#redis.del(key);
      return undefined;
    }
    // gh has exited: its token has no further use, so it stops working now rather than at expiry.
    if (raw.tokenHash) {
      await this.#redis
        .multi()
        .del(`${this.#p}:token:${raw.tokenHash}`)
        .srem(`${this.#p}:session:${raw.sessionId}:tokens`, raw.tokenHash)
        .hdel(key, "tokenHash")
        .exec();
      await this.#redis.publish(this.revocationChannel, JSON.stringify([raw.tokenHash]));
    }
    return parseInvocation(raw);
  }

  async getInvocation(id: string): Promise<InvocationRecord | undefined> {
    const raw = await this.#redis.hgetall(`${this.#p}:invocation:${id}`);
    return raw.sessionId ? parseInvocation(raw) : undefined;
  }

  /** Puts a session and one of its tokens back (after Redis lost its data); keeps what exists. */
  async restore(
    tokenHash: string | undefined,
    token: TokenRecord | undefined,
    session: SessionRecord,
  ): Promise<void> {
    if (session.expiresAt !== undefined && session.expiresAt <= this.#now()) return;
    const sessionKey = `${this.#p}:session:${session.id}`;
    const multi = this.#redis.multi();
    if (!(await this.#redis.exists(sessionKey))) {
      multi.hset(sessionKey, sessionFields(session)).sadd(`${this.#p}:sessions`, session.id);
      if (session.expiresAt !== undefined) multi.pexpireat(sessionKey, session.expiresAt);
    }
    if (tokenHash && token)
      multi
        .hset(`${this.#p}:token:${tokenHash}`, tokenFields(token))
        .pexpireat(`${this.#p}:token:${tokenHash}`, token.expiresAt)
        .sadd(`${this.#p}:session:${session.id}:tokens`, tokenHash);
    await multi.exec();
  }

  /** Looks a presented token up. Undefined for unknown, expired or revoked tokens. */
  async resolveToken(token: string): Promise<TokenRecord | undefined> {
    const raw = await this.#redis.hgetall(`${this.#p}:token:${hashToken(token)}`);
    if (!raw.sessionId) return undefined;
    const record: TokenRecord = {
      kind: raw.kind === "invocation" ? "invocation" : "session",
      sessionId: raw.sessionId,
      invocationId: raw.invocationId || undefined,
      readOnly: raw.readOnly === "1",
      expiresAt: Number(raw.expiresAt),
    };
    return record.expiresAt > this.#now() ? record : undefined;
  }

  async #issue(input: {
    kind: TokenKind;
    sessionId: string;
    invocationId?: string;
    readOnly: boolean;
    ttlSeconds: number;
    /** The session's own end: no token outlives it. */
    notAfter?: number | undefined;
  }): Promise<string> {
    const token = newToken(input.kind);
    const hash = hashToken(token);
    const expiresAt = Math.min(this.#now() + input.ttlSeconds * 1000, input.notAfter ?? Infinity);
    const record: TokenRecord = {
      kind: input.kind,
      sessionId: input.sessionId,
      invocationId: input.invocationId,
      readOnly: input.readOnly,
      expiresAt,
    };
    await this.#redis
      .multi()
      .hset(`${this.#p}:token:${hash}`, tokenFields(record))
      .pexpireat(`${this.#p}:token:${hash}`, expiresAt)
      .sadd(`${this.#p}:session:${input.sessionId}:tokens`, hash)
      .exec();
    this.#known.rememberToken(input.sessionId, hash, record);
    return token;
  }
}

function sessionFields(session: SessionRecord): Record<string, string> {
  const fields: Record<string, string> = {
    id: session.id,
    repo: session.repo,
    weight: String(session.weight),
    readOnly: session.readOnly ? "1" : "0",
    createdAt: String(session.createdAt),
  };
  if (session.projectId) fields.projectId = session.projectId;
  if (session.issueId) fields.issueId = session.issueId;
  if (session.worktree) fields.worktree = session.worktree;
  if (session.budgetGroup) fields.budgetGroup = session.budgetGroup;
  if (session.expiresAt !== undefined) fields.expiresAt = String(session.expiresAt);
  return fields;
}

function tokenFields(token: TokenRecord): Record<string, string> {
  const fields: Record<string, string> = {
    kind: token.kind,
    sessionId: token.sessionId,
    readOnly: token.readOnly ? "1" : "0",
    expiresAt: String(token.expiresAt),
  };
  if (token.invocationId) fields.invocationId = token.invocationId;
  return fields;
}

function parseSession(raw: Record<string, string>): SessionRecord {
  return {
    id: raw.id ?? "",
    repo: raw.repo ?? "",
    weight: Number(raw.weight ?? 1),
    readOnly: raw.readOnly === "1",
    projectId: raw.projectId || undefined,
    issueId: raw.issueId || undefined,
    worktree: raw.worktree || undefined,
    createdAt: Number(raw.createdAt ?? 0),
    budgetGroup: raw.budgetGroup || undefined,
    expiresAt: raw.expiresAt ? Number(raw.expiresAt) : undefined,
  };
}

function unavailable(what: string, cause: unknown): AoError {
  return new AoError(
    BrokerErrors.AO_ERR_STATE_UNAVAILABLE,
    `ao-broker cannot ${what} right now: its Redis is unreachable; retry shortly`,
    { httpStatus: 503, data: { retryAfterSeconds: 5 }, cause },
  );
}

function parseInvocation(raw: Record<string, string>): InvocationRecord {
  let argv: string[] = [];
  try {
    argv = JSON.parse(raw.argv ?? "[]") as string[];
  } catch {
    argv = [];
  }
  return {
    id: raw.id ?? "",
    sessionId: raw.sessionId ?? "",
    command: raw.command ?? "gh",
    argv,
    cwd: raw.cwd || undefined,
    startedAt: Number(raw.startedAt ?? 0),
    finishedAt: raw.finishedAt ? Number(raw.finishedAt) : undefined,
    exitCode: raw.exitCode ? Number(raw.exitCode) : undefined,
    signal: raw.signal || undefined,
    durationMs: raw.durationMs ? Number(raw.durationMs) : undefined,
  };
}
