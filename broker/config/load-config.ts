/**
 * Builds the one frozen Config from, in rising precedence: schema defaults, the config file (JSON),
 * environment variables, CLI flags. Every problem is reported with the key it concerns and where it
 * came from ("config file /x.json: cache.restFreshMs: expected number, received string"). The PAT is
 * read here (GITHUB_TOKEN, GH_TOKEN or upstream.tokenFile) and wrapped in a Secret.
 */
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { z } from "zod";
import { AoError, CommonErrors } from "../../common/index.js";
import { BrokerErrors } from "../errors.js";
import { type Config, configSchema } from "./config-schema.js";
import { Secret } from "./secret.js";

export interface ResolvedConfig {
  readonly config: Readonly<Config>;
  /** Absent only with `simulate`. */
  readonly token: Secret | undefined;
  readonly webhookSecret: Secret | undefined;
  readonly socketPath: string;
  readonly stateDir: string;
}

export interface LoadConfigOptions {
  /** Path of a JSON config file. */
  readonly file?: string | undefined;
  /** Values from CLI flags, already shaped like the config (partial). */
  readonly overrides?: Readonly<Record<string, unknown>> | undefined;
  /** @defaultValue process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function describeIssues(error: z.ZodError, origin: string): string {
  return error.issues
    .map(
      (issue) => `${origin}: ${issue.path.length ? issue.path.join(".") : "(top level)"}: ${issue.message}`,
    )
    .join("; ");
}

function deepMerge(
  base: Record<string, unknown>,
  over: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    const existing = out[key];
    if (
      value &&
      typeof value === "object" &&
      !Array.isArray(value) &&
      existing &&
      typeof existing === "object" &&
      !Array.isArray(existing)
    ) {
      out[key] = deepMerge(existing as Record<string, unknown>, value as Record<string, unknown>);
    } else {
      out[key] = value;
    }
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      `config file ${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      `config file ${file}: not valid JSON (${(error as Error).message})`,
    );
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      `config file ${file}: expected a JSON object at the top level`,
    );
  }
  return parsed as Record<string, unknown>;
}

function envLayer(env: Readonly<Record<string, string | undefined>>): Record<string, unknown> {
  const layer: Record<string, unknown> = {};
  if (env.REDIS_URL) layer.redis = { url: env.REDIS_URL };
  if (env.AO_BROKER_SOCKET) layer.socket = env.AO_BROKER_SOCKET;
  if (env.AO_BROKER_STATE_DIR) layer.stateDir = env.AO_BROKER_STATE_DIR;
  if (env.LOG_LEVEL) layer.logLevel = env.LOG_LEVEL;
  return layer;
}

export function loadConfig(options: LoadConfigOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  const fromFile = options.file ? readConfigFile(options.file) : {};
  const fileCheck = configSchema.safeParse(fromFile);
  if (!fileCheck.success && options.file) {
    throw new AoError(
      CommonErrors.AO_ERR_CONFIG_INVALID,
      describeIssues(fileCheck.error, `config file ${options.file}`),
    );
  }
  const merged = deepMerge(deepMerge(fromFile, envLayer(env)), options.overrides ?? {});
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, describeIssues(result.error, "configuration"));
  }
  const config = deepFreeze(result.data);

  let token: Secret | undefined;
  if (config.upstream.tokenFile) {
    try {
      const value = readFileSync(config.upstream.tokenFile, "utf8").trim();
      if (value) token = new Secret(value);
    } catch (error) {
      throw new AoError(
        CommonErrors.AO_ERR_CONFIG_INVALID,
        `upstream.tokenFile: cannot read ${config.upstream.tokenFile} (${(error as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
  }
  const envToken = env.GITHUB_TOKEN || env.GH_TOKEN;
  if (!token && envToken) token = new Secret(envToken);
  if (!token && !config.simulate) {
    throw new AoError(
      BrokerErrors.AO_ERR_NO_TOKEN,
      "no GitHub token: set GITHUB_TOKEN or GH_TOKEN, name a file in upstream.tokenFile, or use --simulate",
    );
  }
  const webhookValue = config.webhooks.secret ?? env.AO_BROKER_WEBHOOK_SECRET;
  const stateDir = config.stateDir ?? join(homedir(), ".ao-broker");
  return {
    config,
    token,
    webhookSecret: webhookValue ? new Secret(webhookValue) : undefined,
    stateDir,
    socketPath: config.socket ?? join(stateDir, "broker.sock"),
  };
}

export function parseListen(listen: string): { host: string; port: number } {
  const index = listen.lastIndexOf(":");
  const host = listen.slice(0, index).replace(/^\[|\]$/g, "");
  return { host, port: Number(listen.slice(index + 1)) };
}
