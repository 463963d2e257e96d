/**
 * GitHub webhooks for the lifecycle: the broker mounts `handleWebhook` at `POST /webhooks/github`.
 * Order matters: the X-Hub-Signature-256 HMAC is checked (with @octokit/webhooks' `verify`, which
 * compares in constant time) before the body is even parsed, so an unsigned or badly signed
 * request gets 401 and changes nothing. Then: a repeated X-GitHub-Delivery → 200 without work;
 * `ping` → 200; malformed JSON → 400; events the lifecycle does not handle → 202; handled ones
 * are turned into refresh targets (core/webhook-signal.ts) and handed to the service, which
 * applies their partial facts, invalidates cached answers and re-reads the sessions at once.
 * With `patch` (the broker's webhook patcher, decision 0021) the payload is then handed over to
 * patch the cached REST answers it carries and move exactly the facets it changes, for every
 * session, watched or not; the lifecycle's own invalidation then leaves every move to it (`moved`).
 * Several secrets may be given so a secret can be rotated without dropping deliveries.
 */
import { Webhooks } from "@octokit/webhooks";
import { AoError, CommonErrors, type Logger, silentLogger } from "../common/index.js";
import { DEFAULT_LIFECYCLE_CONFIG } from "./config.js";
import { interpretWebhook, isHandledWebhookEvent } from "./core/webhook-signal.js";
import { createMemoryDeliveryDedupe, type DeliveryDedupe } from "./delivery-dedupe.js";
import type { LifecycleService } from "./lifecycle-service.js";

export interface WebhookRequest {
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly rawBody: Buffer | string;
}

export interface WebhookResponse {
  readonly status: number;
  readonly body: {
    readonly message: string;
    readonly sessions?: readonly string[];
    readonly duplicate?: boolean;
    readonly ignored?: boolean;
  };
}

export interface WebhookHandlerOptions {
  /** The webhook secret(s) configured on GitHub; any one may match. */
  readonly secret: string | readonly string[];
  readonly lifecycle: Pick<LifecycleService, "refresh">;
  /**
   * Patches cached answers from the payload (after the lifecycle's refresh, so the patched answers
   * are stored under the generations it moved). Events it takes are answered even when the
   * lifecycle ignores them.
   */
  readonly patch?: {
    readonly events: readonly string[];
    apply(event: string, payload: unknown): Promise<void>;
  };
  /** @defaultValue an in-memory set (24 h, 10,000 ids) */
  readonly dedupe?: DeliveryDedupe;
  /** GitHub caps payloads at 25 MB. @defaultValue 26_214_400 */
  readonly maxBodyBytes?: number;
  /** @defaultValue silentLogger() */
  readonly logger?: Logger;
  /** @defaultValue Date.now */
  readonly now?: () => number;
}

export interface WebhookHandler {
  handleWebhook(request: WebhookRequest): Promise<WebhookResponse>;
}

function header(headers: WebhookRequest["headers"], name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    const first = Array.isArray(value) ? value[0] : value;
    return typeof first === "string" ? first : undefined;
  }
  return undefined;
}

const reply = (
  status: number,
  message: string,
  extra: Partial<WebhookResponse["body"]> = {},
): WebhookResponse => ({
  status,
  body: { message, ...extra },
});

export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  const secrets = (typeof options.secret === "string" ? [options.secret] : [...options.secret]).filter(
    (s) => typeof s === "string" && s.length > 0,
  );
  if (secrets.length === 0) {
    throw new AoError(CommonErrors.AO_ERR_CONFIG_INVALID, "webhooks: a non-empty webhook secret is required");
  }
  const verifiers = secrets.map((secret) => new Webhooks({ secret }));
  const dedupe = options.dedupe ?? createMemoryDeliveryDedupe();
  const maxBytes = options.maxBodyBytes ?? DEFAULT_LIFECYCLE_CONFIG.webhookMaxBodyBytes;
  const logger = options.logger ?? silentLogger();
  const now = options.now ?? Date.now;

  const verified = async (payload: string, signature: string): Promise<boolean> => {
    for (const verifier of verifiers) {
      try {
        if (await verifier.verify(payload, signature)) return true;
      } catch {
        // verify() throws on an empty payload or signature: that is simply "not verified".
      }
    }
    return false;
  };

  return {
    async handleWebhook(request) {
      const raw = request.rawBody;
      const size = typeof raw === "string" ? Buffer.byteLength(raw) : raw.length;
      if (size > maxBytes) return reply(413, "payload too large");
      const signature = header(request.headers, "x-hub-signature-256");
      if (!signature) return reply(401, "missing X-Hub-Signature-256");
      const payloadText = typeof raw === "string" ? raw : raw.toString("utf8");
      if (!(await verified(payloadText, signature))) return reply(401, "signature does not match");

      const event = header(request.headers, "x-github-event");
      if (!event) return reply(400, "missing X-GitHub-Event");
      if (event === "ping") return reply(200, "pong");
      let payload: unknown;
      try {
        payload = JSON.parse(payloadText);
      } catch {
        return reply(400, "body is not valid JSON");
      }
      if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
        return reply(400, "body is not a JSON object");
      }
      const patch = options.patch?.events.includes(event) ? options.patch : undefined;
      if (!isHandledWebhookEvent(event) && !patch)
        return reply(202, `event ${event} is not handled`, { ignored: true });

      const delivery = header(request.headers, "x-github-delivery");
      if (delivery && !(await dedupe.firstSeen(delivery))) {
        return reply(200, "already processed", { duplicate: true });
      }
      const signal = isHandledWebhookEvent(event)
        ? interpretWebhook(event, payload, now())
        : ({ kind: "ignored", reason: `event ${event} is not handled` } as const);
      if (signal.kind === "ignored" && !patch) return reply(202, signal.reason, { ignored: true });
      try {
        const { sessions } =
          signal.kind === "target"
            ? await options.lifecycle.refresh([
                { ...signal.target, ...(patch ? { actionsMoved: true, moved: true } : {}) },
              ])
            : { sessions: [] as string[] };
        if (patch) await patch.apply(event, payload);
        logger.debug({ event, delivery, sessions: sessions.length }, "lifecycle: webhook handled");
        return reply(200, sessions.length > 0 ? "refreshing" : "no watched session affected", { sessions });
      } catch (error) {
        if (delivery) await dedupe.forget(delivery).catch(() => undefined);
        logger.error({ err: error, event, delivery }, "lifecycle: webhook processing failed");
        return reply(500, "processing failed");
      }
    },
  };
}
