/**
 * Simulator options and their defaults, validated once at the edge: a bad value is an AoError
 * (AO_ERR_SIM_OPTIONS_INVALID / AO_ERR_SIM_SCENARIO_INVALID) naming the field, never a silently
 * odd simulator.
 */
import { AoError } from "../common/index.js";
import { DEFAULT_SCENARIO } from "./core/default-scenario.js";
import type { PrimaryResource } from "./core/primary-limits.js";
import { type ParsedScenario, parseScenario, type Scenario } from "./core/scenario-schema.js";
import { DEFAULT_SECONDARY_LIMITS, type SecondaryLimitsConfig } from "./core/secondary-limits.js";
import { SimErrors } from "./errors.js";
import type { FaultInjector } from "./http/layers/faults.js";
import type { SimClock } from "./sim-state.js";
import { WEBHOOK_EVENTS } from "./webhooks/webhook-payloads.js";
import type { WebhookTarget } from "./webhooks/webhook-sender.js";

export interface SimulatorOptions {
  /** TCP port; 0 picks a free one. @defaultValue 0 (the CLI defaults to 3990) */
  readonly port?: number;
  /** @defaultValue "127.0.0.1" */
  readonly host?: string;
  /** The PAT the simulator accepts; anything else gets 401 Bad credentials. @defaultValue "ghp_simulated" */
  readonly token?: string;
  /** The world to serve. @defaultValue the default scenario (acme/widgets, PRs #1–#3, issues #10–#12) */
  readonly scenario?: Scenario;
  /** Adds N generated open PRs with passing CI (#101.., branches gen/pr-<n>) to the first repo. @defaultValue 0 */
  readonly prs?: number;
  /** Fixed latency added to every GitHub-facing answer, ms. @defaultValue 0 */
  readonly latencyMs?: number;
  /** Extra uniform random latency in [0, jitterMs), ms. @defaultValue 0 */
  readonly jitterMs?: number;
  /** Primary limits per window. @defaultValue { graphql: 5000, core: 5000, search: 30 } */
  readonly limits?: Partial<Record<PrimaryResource, number>>;
  /** Window length for core and graphql (search keeps GitHub's 60 s unless shorter). @defaultValue 3600 */
  readonly windowSeconds?: number;
  /** GitHub's secondary limits. @defaultValue 100 concurrent, 900 REST / 2,000 GraphQL points/min, 80/min and 500/h content */
  readonly secondary?: Partial<SecondaryLimitsConfig>;
  /** Time source; `advance()` adds an offset to it. @defaultValue the real clock */
  readonly clock?: SimClock;
  /** HTML base for `url`/`html_url` fields. @defaultValue "http://github.localhost" */
  readonly webUrl?: string;
  /** Largest request body, bytes (larger → 413). @defaultValue 10 MiB */
  readonly maxBodyBytes?: number;
  /** Source of jitter randomness, uniform [0, 1). @defaultValue Math.random */
  readonly random?: () => number;
  /** Fault injection (see http/layers/faults.ts). @defaultValue none */
  readonly faults?: FaultInjector;
  /**
   * Memoise GraphQL query answers per world version (exact: the same query on the same world
   * gives the same bytes; queries asking for rateLimit and mutations are never memoised).
   * @defaultValue true
   */
  readonly cacheResults?: boolean;
  /**
   * Deliver webhooks like GitHub (webhooks/webhook-sender.ts): every world change that GitHub
   * reports by webhook is POSTed to `url`, signed with `secret`, off the request path.
   * @defaultValue none (no deliveries)
   */
  readonly webhooks?: WebhookTarget;
}

export interface ResolvedOptions {
  readonly port: number;
  readonly host: string;
  readonly token: string;
  readonly scenario: ParsedScenario;
  readonly latencyMs: number;
  readonly jitterMs: number;
  readonly limits: Record<PrimaryResource, number>;
  readonly windowMs: Record<PrimaryResource, number>;
  readonly secondary: SecondaryLimitsConfig;
  readonly clock: SimClock;
  readonly webUrl: string;
  readonly maxBodyBytes: number;
  readonly random: () => number;
  readonly faults: FaultInjector | undefined;
  readonly cacheResults: boolean;
  readonly webhooks: WebhookTarget | undefined;
}

function check(ok: boolean, field: string, expected: string, value: unknown): void {
  if (!ok) {
    throw new AoError(
      SimErrors.AO_ERR_SIM_OPTIONS_INVALID,
      `simulator option ${field}: expected ${expected}, got ${JSON.stringify(value)}`,
      {
        data: { field },
      },
    );
  }
}

const isCount = (v: number) => Number.isInteger(v) && v >= 0;

export function parseScenarioOrThrow(input: unknown, source = "scenario"): ParsedScenario {
  const parsed = parseScenario(input);
  if (!parsed.ok) {
    throw new AoError(
      SimErrors.AO_ERR_SIM_SCENARIO_INVALID,
      `${source} is not a valid scenario:\n${parsed.message}`,
    );
  }
  return parsed.value;
}

/** Checks a webhook target (options.webhooks, setWebhooks); throws AO_ERR_SIM_OPTIONS_INVALID naming the field. */
export function checkWebhookTarget(webhooks: WebhookTarget): void {
  let url: URL | undefined;
  try {
    url = new URL(webhooks.url);
  } catch {
    url = undefined;
  }
  check(
    url?.protocol === "http:" || url?.protocol === "https:",
    "webhooks.url",
    "an http(s) URL",
    webhooks.url,
  );
  check(
    typeof webhooks.secret === "string" && webhooks.secret.length > 0,
    "webhooks.secret",
    "a non-empty string",
    "<redacted>",
  );
  for (const event of webhooks.events ?? [])
    check(
      (WEBHOOK_EVENTS as readonly string[]).includes(event),
      "webhooks.events",
      `one of ${WEBHOOK_EVENTS.join(", ")}`,
      event,
    );
  for (const field of ["maxAttempts", "retryDelayMs", "timeoutMs", "maxQueue"] as const) {
    const value = webhooks[field];
    if (value !== undefined) check(isCount(value) && value > 0, `webhooks.${field}`, "an integer > 0", value);
  }
}

export function resolveOptions(options: SimulatorOptions = {}): ResolvedOptions {
  const port = options.port ?? 0;
  check(Number.isInteger(port) && port >= 0 && port <= 65535, "port", "an integer 0..65535", port);
  const token = options.token ?? "ghp_simulated";
  check(token.length > 0 && !/\s/.test(token), "token", "a non-empty string without spaces", "<redacted>");
  const prs = options.prs ?? 0;
  check(isCount(prs) && prs <= 10_000, "prs", "an integer 0..10000", prs);
  const latencyMs = options.latencyMs ?? 0;
  const jitterMs = options.jitterMs ?? 0;
  check(Number.isFinite(latencyMs) && latencyMs >= 0, "latencyMs", "a number >= 0", latencyMs);
  check(Number.isFinite(jitterMs) && jitterMs >= 0, "jitterMs", "a number >= 0", jitterMs);
  const windowSeconds = options.windowSeconds ?? 3600;
  check(Number.isFinite(windowSeconds) && windowSeconds > 0, "windowSeconds", "a number > 0", windowSeconds);
  const limits = { graphql: 5000, core: 5000, search: 30, ...options.limits };
  for (const [name, value] of Object.entries(limits))
    check(isCount(value), `limits.${name}`, "an integer >= 0", value);
  const secondary = { ...DEFAULT_SECONDARY_LIMITS, ...options.secondary };
  for (const [name, value] of Object.entries(secondary))
    check(isCount(value) && value > 0, `secondary.${name}`, "an integer > 0", value);
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  check(isCount(maxBodyBytes) && maxBodyBytes > 0, "maxBodyBytes", "an integer > 0", maxBodyBytes);

  const webhooks = options.webhooks;
  if (webhooks) checkWebhookTarget(webhooks);

  let scenario = parseScenarioOrThrow(options.scenario ?? DEFAULT_SCENARIO);
  if (prs > 0) {
    const [first, ...rest] = scenario.repos;
    if (first)
      scenario = {
        ...scenario,
        repos: [{ ...first, generatedPulls: (first.generatedPulls ?? 0) + prs }, ...rest],
      };
  }
  const windowMs = windowSeconds * 1000;
  return {
    port,
    host: options.host ?? "127.0.0.1",
    token,
    scenario,
    latencyMs,
    jitterMs,
    limits,
    windowMs: { core: windowMs, graphql: windowMs, search: Math.min(windowMs, 60_000) },
    secondary,
    clock: options.clock ?? { now: () => Date.now() },
    webUrl: (options.webUrl ?? "http://github.localhost").replace(/\/+$/, ""),
    maxBodyBytes,
    random: options.random ?? Math.random,
    faults: options.faults,
    cacheResults: options.cacheResults ?? true,
    webhooks,
  };
}
