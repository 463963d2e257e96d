/**
 * The HTTP edge for the composition root: the GatewayServer on the configured listener, wired to the
 * pipeline, the caller resolver, the budget's per-session view, observability, /metrics, webhooks
 * and blob fetches. Its stop step lets in-flight requests finish (the drain) before anything they
 * need goes away.
 */

import type { WebhookHandler } from "../../lifecycle/index.js";
import type { Telemetry } from "../../otel/index.js";
import { type BrokerContext, GATEWAY_DRAIN_MS, SHUTDOWN_STEP_TIMEOUT_MS } from "../broker-context.js";
import { parseListen } from "../config/load-config.js";
import type { BrokerObservability } from "../observability/observability.js";
import type { BrokerPipeline } from "../pipeline/build-pipeline.js";
import type { BudgetPort } from "../pipeline/ports.js";
import type { BrokerSessions } from "../sessions/start-sessions.js";
import { fetchBlob } from "../upstream/blob-fetch.js";
import { GatewayServer } from "./gateway-server.js";

export async function startGateway(
  context: BrokerContext,
  parts: {
    readonly upstreamUrl: string;
    readonly pipeline: BrokerPipeline;
    readonly sessions: BrokerSessions;
    readonly budget: BudgetPort;
    readonly observability: BrokerObservability;
    readonly telemetry: Telemetry;
    readonly webhooks: WebhookHandler | undefined;
  },
): Promise<{ readonly gateway: GatewayServer; readonly url: string }> {
  const { config, logger } = context;
  const { observability, sessions, webhooks } = parts;
  const listen = parseListen(config.listen);
  const gateway = new GatewayServer({
    host: listen.host,
    port: listen.port,
    publicHost: config.gateway.publicHost,
    blobHosts: config.gateway.blobHosts,
    maxBodyBytes: config.gateway.maxBodyBytes,
    connections: {
      maxConnections: config.gateway.maxConnections,
      headerTimeoutMs: config.gateway.headerTimeoutMs,
      idleTimeoutMs: config.gateway.idleTimeoutMs,
    },
    defaultDeadlineMs: config.gateway.defaultDeadlineMs,
    allowRemoteMetrics: config.gateway.allowRemoteMetrics,
    upstreamBase: parts.upstreamUrl,
    forwardClientHost: config.upstream.forwardClientHost || config.simulate,
    pipeline: parts.pipeline.pipeline,
    authenticate: (t) => sessions.resolver.resolve(t),
    classify: parts.pipeline.classify,
    sessionView: (sessionId, resource, weight) => parts.budget.sessionView(sessionId, resource, weight),
    logger: logger.child({ component: "gateway" }),
    instrument: (request, run) => observability.traceRequest(request, run),
    observe: (event) => observability.onGatewayEvent(event),
    metrics: () => parts.telemetry.renderPrometheus(),
    webhook: webhooks ? (input) => webhooks.handleWebhook(input) : undefined,
    blobFetch: (url) => fetchBlob(url, config.upstream.timeoutMs),
    invocationFinished: async (caller, report) => {
      if (!caller.invocationId) return;
      await sessions.store.finishInvocation({ invocationId: caller.invocationId, ...report });
      observability.invocationFinished(caller.invocationId, report);
    },
  });
  const url = await gateway.start();
  context.shutdown.add(
    "gateway",
    () => gateway.close(GATEWAY_DRAIN_MS),
    GATEWAY_DRAIN_MS + SHUTDOWN_STEP_TIMEOUT_MS,
  );
  return { gateway, url };
}
