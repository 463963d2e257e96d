/**
 * `ao-broker bench` flags → BenchOptions: the CLI stays a parser, and every rule about flags
 * (what combines with what, ranges, the hard cap a `--target` run needs) lives here, tested.
 */
import { readFileSync } from "node:fs";
import { AoError } from "../common/index.js";
import type { BenchOptions } from "./bench-runner.js";
import { ARMS, type ArmName } from "./core/report-types.js";
import { BenchErrors } from "./errors.js";

export interface BenchFlags {
  readonly quick?: boolean;
  readonly profile?: string;
  readonly arms?: string;
  readonly sessions?: string;
  readonly windowS?: string;
  readonly warmupS?: string;
  readonly json?: string;
  readonly svg?: string;
  readonly realGh?: boolean;
  readonly target?: string;
  readonly tokenEnv?: string;
  readonly maxPoints?: string;
  readonly repo?: string;
  readonly enforceLimits?: boolean;
  readonly timeBudgetS?: string;
  readonly maxSessions?: string;
  readonly requestsPerS?: string;
  readonly brokerConfig?: string;
  readonly brokerProcess?: string;
  readonly progress?: boolean;
  readonly explain?: boolean;
  readonly webhooks?: boolean;
}

export interface TargetOptions {
  readonly url: string;
  readonly tokenEnv: string;
  /** Hard cap on GraphQL points (and REST requests) the run may spend. */
  readonly maxPoints: number;
  readonly repo: string;
}

export interface ParsedBenchFlags {
  readonly options: BenchOptions;
  readonly json: string | undefined;
  readonly svg: string | undefined;
  readonly realGh: boolean;
  readonly target: TargetOptions | undefined;
  /** Print the per-answer breakdown (it is in the JSON either way). */
  readonly explain: boolean;
}

const invalid = (flag: string, message: string) =>
  new AoError(BenchErrors.AO_ERR_BENCH_OPTIONS_INVALID, `${flag}: ${message}`, { data: { flag } });

function number(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
  integer = true,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min || n > max) {
    throw invalid(
      flag,
      `expected ${integer ? "an integer" : "a number"} from ${min} to ${max}, got "${value}"`,
    );
  }
  return n;
}

export function parseArms(value: string | undefined): ArmName[] | undefined {
  if (value === undefined) return undefined;
  const names = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) throw invalid("--arms", "name at least one of direct, proxy, broker");
  for (const name of names)
    if (!ARMS.includes(name as ArmName))
      throw invalid("--arms", `unknown arm "${name}" (expected direct, proxy, broker)`);
  return [...new Set(names)] as ArmName[];
}

export function parseSessions(value: string | undefined): number[] | "auto" | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "auto") return "auto";
  const counts = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (counts.length === 0) throw invalid("--sessions", 'expected a list such as "5,10,20" or "auto"');
  return counts.map((c) => number("--sessions", c, 1, 10_000) as number);
}

export function parseTarget(
  flags: BenchFlags,
  env: Readonly<Record<string, string | undefined>>,
): TargetOptions | undefined {
  if (flags.target === undefined) {
    for (const [flag, value] of [
      ["--token-env", flags.tokenEnv],
      ["--max-points", flags.maxPoints],
      ["--repo", flags.repo],
    ] as const) {
      if (value !== undefined) throw invalid(flag, "only makes sense with --target URL");
    }
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(flags.target);
  } catch {
    throw invalid("--target", `expected a URL such as https://api.github.com, got "${flags.target}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw invalid("--target", "expected an http(s) URL");
  if (flags.maxPoints === undefined) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_TARGET_NEEDS_CAP,
      "--target runs against a real GitHub and needs a hard cap: add --max-points N (the run stops before spending more)",
    );
  }
  const maxPoints = number("--max-points", flags.maxPoints, 1, 5000) as number;
  const tokenEnv = flags.tokenEnv ?? "GITHUB_TOKEN";
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(tokenEnv))
    throw invalid("--token-env", `not an environment variable name: "${tokenEnv}"`);
  if (!env[tokenEnv]) {
    throw new AoError(
      BenchErrors.AO_ERR_BENCH_TARGET_NO_TOKEN,
      `--token-env ${tokenEnv}: the variable is empty or unset (export the PAT there)`,
    );
  }
  if (flags.repo === undefined || !/^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/.test(flags.repo)) {
    throw invalid("--repo", "a --target run reads one repository's open PRs: give --repo OWNER/NAME");
  }
  return { url: url.toString().replace(/\/+$/, ""), tokenEnv, maxPoints, repo: flags.repo };
}

/** `--broker-config FILE`: a JSON object shaped like the broker's config (validated by the broker). */
export function readBrokerConfig(file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw invalid("--broker-config", `cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw invalid("--broker-config", `${file} must hold a JSON object`);
  return value as Record<string, unknown>;
}

export function parseBenchFlags(
  flags: BenchFlags,
  env: Readonly<Record<string, string | undefined>> = process.env,
): ParsedBenchFlags {
  const target = parseTarget(flags, env);
  const arms = parseArms(flags.arms);
  const sessions = parseSessions(flags.sessions);
  const windowS = number("--window-s", flags.windowS, 10, 86_400, false);
  const warmupS = number("--warmup-s", flags.warmupS, 0, 86_400, false);
  const timeBudgetS = number("--time-budget-s", flags.timeBudgetS, 10, 7 * 86_400, false);
  const maxSessions = number("--max-sessions", flags.maxSessions, 1, 10_000);
  const requestsPerS = number("--requests-per-s", flags.requestsPerS, 10, 5000, false);
  const brokerConfig = flags.brokerConfig === undefined ? undefined : readBrokerConfig(flags.brokerConfig);
  if (
    flags.brokerProcess !== undefined &&
    flags.brokerProcess !== "child" &&
    flags.brokerProcess !== "in-process"
  ) {
    throw invalid("--broker-process", `expected child or in-process, got "${flags.brokerProcess}"`);
  }
  if (target && flags.realGh)
    throw invalid(
      "--real-gh",
      "compares the replay with real gh on the simulator; it cannot run with --target",
    );
  const options: BenchOptions = {
    ...(flags.quick ? { quick: true } : {}),
    ...(flags.profile ? { profile: flags.profile } : {}),
    ...(arms ? { arms } : {}),
    ...(sessions ? { sessions } : {}),
    ...(windowS !== undefined ? { windowS } : {}),
    ...(warmupS !== undefined || requestsPerS !== undefined
      ? {
          plan: {
            ...(warmupS !== undefined ? { warmupS } : {}),
            ...(requestsPerS !== undefined ? { targetRequestsPerSecond: requestsPerS } : {}),
          },
        }
      : {}),
    ...(timeBudgetS !== undefined ? { timeBudgetS } : {}),
    ...(maxSessions !== undefined ? { maxSessions } : {}),
    ...(flags.enforceLimits ? { enforceLimits: true } : {}),
    ...(brokerConfig ? { brokerConfig } : {}),
    ...(flags.brokerProcess ? { brokerProcess: flags.brokerProcess as "child" | "in-process" } : {}),
    ...(flags.progress === false ? { progress: false } : {}),
    ...(flags.webhooks ? { webhooks: true } : {}),
  };
  if (target && flags.webhooks)
    throw invalid("--webhooks", "the simulator delivers the webhooks; it cannot run with --target");
  if (target && flags.explain)
    throw invalid(
      "--explain",
      "breaks down the broker arm's answers on the simulator; it cannot run with --target",
    );
  return {
    options,
    json: flags.json,
    svg: flags.svg,
    realGh: flags.realGh ?? false,
    target,
    explain: flags.explain ?? false,
  };
}
