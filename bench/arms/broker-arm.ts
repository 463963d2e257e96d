/**
 * The `broker` arm: everything ao-broker does. A broker per step (fresh Redis prefix, socket and
 * state directory; the arm's private Redis) with its time constants scaled like the rest of the
 * step; each agent session is opened over IPC and runs every gh command the way the shim does —
 * a per-invocation token carrying the command line, requests to the gateway, then
 * `invocation.finish`. The orchestrator side is the broker's lifecycle service (`lifecycle.watch`);
 * a broker without one gets AO's loop THROUGH its gateway instead, and the report says so.
 */
import { join } from "node:path";
import { configSchema } from "../../broker/index.js";
import { type BrokerClient, connectBroker } from "../../client/index.js";
import { isAoError } from "../../common/index.js";
import { DEFAULT_LIFECYCLE_CONFIG } from "../../lifecycle/index.js";
import { type AgentRequestPath, sendAgentRequest } from "../agent-requests.js";
import { scaleTimeConstants } from "../core/scale-config.js";
import type { ArmEnv } from "./arm-env.js";
import type { ArmInstance, Orchestrator, SessionChannel, SessionSpec } from "./arm-types.js";
import { type BrokerProcessMode, launchBroker } from "./broker-launcher.js";
import { aoOrchestrator } from "./token-arm.js";

export interface BrokerArmInfo {
  /** Broker settings scaled for this step ("cache.restFreshMs 10000→333", ...). */
  readonly scaled: readonly string[];
  readonly orchestrator: "broker-lifecycle" | "ao-loop-through-gateway";
  readonly process: BrokerProcessMode;
}

export interface StartedBrokerArm {
  readonly arm: ArmInstance;
  readonly info: () => BrokerArmInfo;
}

/** The longest an agent's GraphQL query may wait for partners by this config (simulated ms). */
function agentBatchBoundMs(config: Record<string, unknown>): number {
  const budgets = (config.batching as { latencyBudgetMs?: Record<string, number> } | undefined)
    ?.latencyBudgetMs;
  // The lifecycle class is the broker's own poller, never an agent's gh command.
  const agentClasses = ["interactive", "repeat", "watch", "background"] as const;
  // A first-time read held for a partner (batching.partnerHold) waits its hold instead.
  const hold = (config.batching as { partnerHold?: { enabled?: boolean; windowMs?: number } } | undefined)
    ?.partnerHold;
  const holdMs = hold?.enabled === false ? 0 : (hold?.windowMs ?? 0);
  return Math.max(0, holdMs, ...agentClasses.map((c) => budgets?.[c] ?? 0));
}

/** The least time between two mutations by this config (simulated ms). */
function mutationSpacingMs(config: Record<string, unknown>): number {
  const queue = config.queue as { pacing?: { mutationSpacingMs?: number } } | undefined;
  return queue?.pacing?.mutationSpacingMs ?? 0;
}

async function lifecycleOrchestrator(env: ArmEnv, client: BrokerClient): Promise<Orchestrator | undefined> {
  if (!client.methods.includes("lifecycle.watch")) return undefined;
  const watch = async (session: SessionSpec, pr?: number) => {
    await client.watch({
      sessionId: session.id,
      repo: env.repo,
      branch: session.branch,
      ...(pr ? { pr } : {}),
    });
  };
  // The poll cycle: the period between the lifecycle's cycle starts (its lastCycle.startedAt, wall ms).
  let lastStart: number | undefined;
  let sampling = false;
  const everyMs = Math.max(20, DEFAULT_LIFECYCLE_CONFIG.cycleIntervalMs / env.clock.scale / 4);
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    client
      .lifecycleStatus()
      .then((status) => {
        const started = (status as { lastCycle?: { startedAt?: unknown } | null }).lastCycle?.startedAt;
        if (typeof started !== "number") return;
        if (lastStart !== undefined && started > lastStart) {
          env.recorder.recordPollCycle(((started - lastStart) * env.clock.scale) / 1000);
        }
        lastStart = started;
      })
      .catch(() => undefined)
      .finally(() => {
        sampling = false;
      });
  }, everyMs);
  sampler.unref();
  return {
    watch,
    prCreated: watch,
    unwatch: async (session) => {
      await client.unwatch(session.id).catch(() => undefined);
    },
    close: async () => {
      clearInterval(sampler);
    },
  };
}

/** The gateway's /metrics text; undefined when it serves none (metrics off, an older broker) or fails. */
async function scrapeMetrics(gatewayUrl: string): Promise<string | undefined> {
  try {
    const response = await fetch(`${gatewayUrl}/metrics`, { signal: AbortSignal.timeout(5000) });
    return response.ok ? await response.text() : undefined;
  } catch {
    return undefined;
  }
}

/** Deep-merges config-shaped overrides (objects merge, values replace). */
/**
 * A scaled value past its setting's schema bound (a dilated step stretches
 * cache.staleWhileRevalidateMs past its 30 s cap) is set to the bound: the broker refuses a config
 * out of bounds, and the bound is what a user of that setting could have at most.
 */
function withinSchemaBounds(config: Record<string, unknown>): Record<string, unknown> {
  const parsed = configSchema.safeParse(config);
  if (parsed.success) return config;
  const out = structuredClone(config);
  for (const issue of parsed.error.issues) {
    const bound =
      issue.code === "too_big" ? issue.maximum : issue.code === "too_small" ? issue.minimum : undefined;
    if (typeof bound !== "number" || issue.path.length === 0) continue;
    let node = out as Record<string, unknown>;
    for (const key of issue.path.slice(0, -1)) node = node[String(key)] as Record<string, unknown>;
    const last = String(issue.path[issue.path.length - 1]);
    if (typeof node?.[last] === "number") node[last] = bound;
  }
  return out;
}

function merge(
  base: Readonly<Record<string, unknown>>,
  over: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const existing = out[key];
    const bothObjects =
      value && typeof value === "object" && !Array.isArray(value) && existing && typeof existing === "object";
    out[key] = bothObjects
      ? merge(existing as Record<string, unknown>, value as Record<string, unknown>)
      : value;
  }
  return out;
}

/**
 * `brokerConfig` (from `--broker-config FILE`) is applied to the defaults BEFORE scaling, so a
 * tuned setting is compressed exactly like a default one.
 */
export async function startBrokerArm(
  env: ArmEnv,
  brokerConfig: Readonly<Record<string, unknown>> = {},
  processMode?: BrokerProcessMode,
  sessions: {
    readonly readOnly: boolean;
    /** Called with the gateway's URL before any agent starts (the bench's webhook deliveries). */
    readonly onGateway?: (gatewayUrl: string) => Promise<void>;
  } = { readOnly: false },
): Promise<StartedBrokerArm> {
  const base = configSchema.parse(brokerConfig) as Record<string, unknown>;
  // The lifecycle's settings default inside lifecycle/, not in the broker's schema: scale the
  // effective ones (defaults overlaid with any given) like every other constant.
  const lifecycle = base.lifecycle as { settings?: Record<string, unknown> } | undefined;
  const effective = {
    ...base,
    lifecycle: { ...lifecycle, settings: { ...DEFAULT_LIFECYCLE_CONFIG, ...lifecycle?.settings } },
  };
  const { overrides: scaledOverrides, scaled } = scaleTimeConstants(effective, env.clock.scale);
  env.recorder.setWaitBounds(agentBatchBoundMs(base), mutationSpacingMs(base));
  const overrides = withinSchemaBounds(merge(brokerConfig, scaledOverrides));
  const broker = await launchBroker({
    config: {
      ...overrides,
      listen: "127.0.0.1:0",
      socket: join(env.stateDir, "broker.sock"),
      stateDir: env.stateDir,
      upstream: { url: env.upstreamUrl },
      redis: { url: env.redisUrl, prefix: `b${env.stepId}` },
    },
    socketPath: join(env.stateDir, "broker.sock"),
    stateDir: env.stateDir,
    token: env.token,
    mode: processMode,
  });
  await sessions.onGateway?.(broker.gatewayUrl);
  const client = await connectBroker({
    socketPath: broker.socketPath,
    clientName: "ao-broker-bench",
    timeoutMs: 120_000,
  });
  const path: AgentRequestPath = {
    transport: env.transport,
    baseUrl: broker.gatewayUrl,
    recorder: env.recorder,
    now: env.now,
  };

  let orchestrator = await lifecycleOrchestrator(env, client);
  let mode: BrokerArmInfo["orchestrator"] = "broker-lifecycle";
  if (orchestrator) {
    // Probe once, on a session of its own: a broker may list the method but run no lifecycle service.
    await client.openSession({ id: "bench-probe", repo: env.repo });
    try {
      await client.watch({ sessionId: "bench-probe", repo: env.repo, branch: "bench-probe" });
      await client.unwatch("bench-probe");
    } catch (error) {
      if (!isAoError(error)) throw error;
      orchestrator = undefined;
    } finally {
      await client.closeSession("bench-probe").catch(() => undefined);
    }
  }
  if (!orchestrator) {
    const opened = await client.openSession({ id: "ao-orchestrator", repo: env.repo });
    orchestrator = aoOrchestrator(env, broker.gatewayUrl, opened.token);
    mode = "ao-loop-through-gateway";
  }

  const openSession = async (session: SessionSpec): Promise<SessionChannel> => {
    await client.openSession({
      id: session.id,
      repo: env.repo,
      issueId: String(session.issue),
      ...(sessions.readOnly ? { readOnly: true } : {}),
    });
    return {
      run: async (argv, bindings, command) => {
        const issued = await client.issueToken({ sessionId: session.id, argv: ["gh", ...argv] });
        const started = performance.now();
        let exitCode = 1;
        try {
          const outcome = await command({
            bindings,
            send: (request) => sendAgentRequest(path, request, issued.token, session.id),
            sleep: (ms) => env.clock.sleep(ms, env.signal),
            ghCache: env.ghCache,
          });
          exitCode = outcome.ok ? 0 : 1;
          return outcome;
        } finally {
          await client
            .finishInvocation({
              invocationId: issued.invocationId,
              exitCode,
              durationMs: performance.now() - started,
            })
            .catch(() => undefined);
        }
      },
      close: async () => {
        await client.closeSession(session.id).catch(() => undefined);
      },
    };
  };

  const finalOrchestrator = orchestrator;
  return {
    arm: {
      name: "broker",
      openSession,
      orchestrator: finalOrchestrator,
      markWindowStart: () => broker.markWindowStart(),
      resourceUse: () => broker.resourceUse(),
      scrapeMetrics: () => scrapeMetrics(broker.gatewayUrl),
      close: async () => {
        await finalOrchestrator.close();
        await client.close();
        await broker.close();
      },
    },
    info: () => ({ scaled, orchestrator: mode, process: broker.mode }),
  };
}
