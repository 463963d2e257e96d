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
 * forgets them at once.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { AoError } from "../../common/index.js";
import { BrokerErrors } from "../errors.js";
import { autoRegisteredGroup } from "./budget-group.js";
import {
  isValidRepo,
  isValidSessionId,
  summarizeArgv,
  TOKEN_PREFIX,
  type TokenKind,
} from "./core/identifiers.js";

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
}

export interface TokenRecord {
  readonly kind: TokenKind;
  readonly sessionId: string;
  readonly invocationId?: string | undefined;
  readonly readOnly: boolean;
  readonly expiresAt: number;
}

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
}

export interface SessionStoreOptions {
  readonly redis: Redis;
  readonly prefix: string;
  readonly sessionTokenTtlSeconds: number;
  readonly invocationTokenTtlSeconds: number;
  /** @defaultValue Date.now */
  readonly now?: () => number;
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

  constructor(options: SessionStoreOptions) {
    this.#redis = options.redis;
    this.#p = options.prefix;
    this.#options = options;
    this.#now = options.now ?? Date.now;
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
    const existing = await this.get(input.id);
    const session: SessionRecord = existing ?? {
      id: input.id,
      repo: input.repo,
      weight,
      readOnly: input.readOnly ?? false,
      projectId: input.projectId,
      issueId: input.issueId,
      worktree: input.worktree,
      createdAt: this.#now(),
      budgetGroup: input.autoRegistered ? autoRegisteredGroup(input.worktree) : undefined,
    };
    if (!existing) {
      await this.#redis
        .multi()
        .hset(`${this.#p}:session:${session.id}`, sessionFields(session))
        .sadd(`${this.#p}:sessions`, session.id)
        .exec();
    }
    const token = await this.#issue({
      kind: "session",
      sessionId: session.id,
      readOnly: session.readOnly,
      ttlSeconds: this.#options.sessionTokenTtlSeconds,
    });
    return { session, token, created: !existing };
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    if (!isValidSessionId(id)) return undefined;
    const raw = await this.#redis.hgetall(`${this.#p}:session:${id}`);
    return raw.id ? parseSession(raw) : undefined;
  }

  async list(): Promise<SessionRecord[]> {
    const ids = (await this.#redis.smembers(`${this.#p}:sessions`)).sort();
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) pipeline.hgetall(`${this.#p}:session:${id}`);
    const results = (await pipeline.exec()) ?? [];
    return results
      .map(([, raw]) => raw as Record<string, string>)
      .filter((raw) => raw?.id)
      .map(parseSession);
  }

  async close(id: string): Promise<{ closed: boolean; revokedTokens: number }> {
    const session = await this.get(id);
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
  async issueInvocationToken(input: {
    sessionId: string;
    argv?: readonly string[] | undefined;
    cwd?: string | undefined;
    ttlSeconds?: number | undefined;
    readOnly?: boolean | undefined;
  }): Promise<{ token: string; invocationId: string; expiresAt: number }> {
    const session = await this.get(input.sessionId);
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
      argv: JSON.stringify(argv.map((a) => summarizeArgv([a]))),
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
    });
    await this.#redis.hset(`${this.#p}:invocation:${invocationId}`, "tokenHash", hashToken(token));
    return { token, invocationId, expiresAt: now + ttlSeconds * 1000 };
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
      argv: JSON.stringify(input.argv.map((a) => summarizeArgv([a]))),
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
  async restore(tokenHash: string, token: TokenRecord, session: SessionRecord): Promise<void> {
    const sessionKey = `${this.#p}:session:${session.id}`;
    const multi = this.#redis.multi();
    if (!(await this.#redis.exists(sessionKey)))
      multi.hset(sessionKey, sessionFields(session)).sadd(`${this.#p}:sessions`, session.id);
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
  }): Promise<string> {
    const token = newToken(input.kind);
    const hash = hashToken(token);
    const expiresAt = this.#now() + input.ttlSeconds * 1000;
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
  };
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
