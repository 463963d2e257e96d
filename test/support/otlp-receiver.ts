/**
 * A real OTLP/HTTP receiver for tests: a node:http server accepting POST /v1/traces and
 * /v1/metrics in OTLP/JSON (application/json) and OTLP/protobuf (application/x-protobuf, decoded
 * by ./otlp-protobuf.ts), exposing what arrived as flat, easy-to-assert records:
 * spans with hex ids, parent id, links and attributes flattened to plain values; metric data points
 * with their attributes. The raw bodies are kept too, so a test can assert that a secret occurs
 * nowhere in what left the process, whatever field it might have hidden in.
 *
 * Usage: const receiver = await startOtlpReceiver(); env OTEL_EXPORTER_OTLP_ENDPOINT=receiver.url;
 * …; await telemetry.forceFlush(); receiver.spans(); await receiver.close().
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { decodeMetricsRequest, decodeTraceRequest } from "./otlp-protobuf.js";

export type AttributeMap = Record<string, unknown>;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Undefined for a root span. */
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP SpanKind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly startTimeUnixNano: bigint;
  readonly endTimeUnixNano: bigint;
  readonly attributes: AttributeMap;
  readonly events: readonly { readonly name: string; readonly attributes: AttributeMap }[];
  readonly links: readonly {
    readonly traceId: string;
    readonly spanId: string;
    readonly attributes: AttributeMap;
  }[];
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly status: { readonly code: number; readonly message?: string | undefined };
  readonly resource: AttributeMap;
  readonly scope: string | undefined;
}

export interface ReceivedDataPoint {
  readonly metric: string;
  readonly unit: string | undefined;
  readonly kind: "sum" | "gauge" | "histogram";
  readonly attributes: AttributeMap;
  /** Sums and gauges. */
  readonly value?: number;
  /** Histograms. */
  readonly count?: number;
  readonly sum?: number;
  readonly resource: AttributeMap;
}

export interface ReceivedRequest {
  readonly path: string;
  readonly contentType: string;
  readonly bytes: number;
}

export interface OtlpReceiver {
  /** Base URL for OTEL_EXPORTER_OTLP_ENDPOINT, e.g. http://127.0.0.1:40123 */
  readonly url: string;
  spans(): ReceivedSpan[];
  dataPoints(): ReceivedDataPoint[];
  requests(): ReceivedRequest[];
  /** Every body received, decoded as latin1 (so any ASCII secret shows up verbatim). */
  rawBodies(): string[];
  /** Resolves once `predicate` holds for the spans received so far. */
  waitForSpans(predicate: (spans: ReceivedSpan[]) => boolean, timeoutMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

export interface OtlpReceiverOptions {
  /** Answer every export with this status instead of 200 (to test failure reporting). */
  readonly failWith?: number;
}

type Json = Record<string, unknown>;

function plainValue(value: Json | undefined): unknown {
  if (value === undefined) return undefined;
  if ("stringValue" in value) return value.stringValue;
  if ("boolValue" in value) return value.boolValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return value.doubleValue;
  if ("arrayValue" in value) {
    return ((value.arrayValue as { values?: Json[] }).values ?? []).map((v) => plainValue(v));
  }
  if ("kvlistValue" in value) return flatten((value.kvlistValue as { values?: Json[] }).values);
  return undefined;
}

function flatten(list: readonly Json[] | undefined): AttributeMap {
  const out: AttributeMap = {};
  for (const kv of list ?? []) out[String(kv.key)] = plainValue(kv.value as Json | undefined);
  return out;
}

/** OTLP/JSON ids are hex; some encoders send base64. Normalise to lower-case hex. */
function id(value: unknown): string {
  if (typeof value !== "string" || value === "") return "";
  if (/^[0-9a-f]+$/i.test(value) && (value.length === 16 || value.length === 32)) return value.toLowerCase();
  return Buffer.from(value, "base64").toString("hex");
}

function normaliseSpans(body: Json): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of (body.resourceSpans as Json[] | undefined) ?? []) {
    const resource = flatten(((rs.resource as Json | undefined)?.attributes as Json[] | undefined) ?? []);
    for (const ss of (rs.scopeSpans as Json[] | undefined) ?? []) {
      const scope = (ss.scope as Json | undefined)?.name as string | undefined;
      for (const s of (ss.spans as Json[] | undefined) ?? []) {
        const parent = id(s.parentSpanId);
        const status = (s.status as Json | undefined) ?? {};
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: parent === "" ? undefined : parent,
          name: String(s.name),
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: BigInt(String(s.startTimeUnixNano ?? 0)),
          endTimeUnixNano: BigInt(String(s.endTimeUnixNano ?? 0)),
          attributes: flatten(s.attributes as Json[] | undefined),
          events: ((s.events as Json[] | undefined) ?? []).map((e) => ({
            name: String(e.name),
            attributes: flatten(e.attributes as Json[] | undefined),
          })),
          links: ((s.links as Json[] | undefined) ?? []).map((l) => ({
            traceId: id(l.traceId),
            spanId: id(l.spanId),
            attributes: flatten(l.attributes as Json[] | undefined),
          })),
          status: { code: Number(status.code ?? 0), message: status.message as string | undefined },
          resource,
          scope,
        });
      }
    }
  }
  return out;
}

function normaliseMetrics(body: Json): ReceivedDataPoint[] {
  const out: ReceivedDataPoint[] = [];
  for (const rm of (body.resourceMetrics as Json[] | undefined) ?? []) {
    const resource = flatten(((rm.resource as Json | undefined)?.attributes as Json[] | undefined) ?? []);
    for (const sm of (rm.scopeMetrics as Json[] | undefined) ?? []) {
      for (const m of (sm.metrics as Json[] | undefined) ?? []) {
        const base = { metric: String(m.name), unit: m.unit as string | undefined, resource };
        for (const kind of ["sum", "gauge"] as const) {
          const data = m[kind] as { dataPoints?: Json[] } | undefined;
          for (const p of data?.dataPoints ?? []) {
            out.push({
              ...base,
              kind,
              attributes: flatten(p.attributes as Json[] | undefined),
              value: Number(p.asInt ?? p.asDouble ?? 0),
            });
          }
        }
        const histogram = m.histogram as { dataPoints?: Json[] } | undefined;
        for (const p of histogram?.dataPoints ?? []) {
          out.push({
            ...base,
            kind: "histogram",
            attributes: flatten(p.attributes as Json[] | undefined),
            count: Number(p.count ?? 0),
            sum: Number(p.sum ?? 0),
          });
        }
      }
    }
  }
  return out;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

export async function startOtlpReceiver(options: OtlpReceiverOptions = {}): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedDataPoint[] = [];
  const requests: ReceivedRequest[] = [];
  const raw: string[] = [];
  const waiters = new Set<() => void>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "POST" || (path !== "/v1/traces" && path !== "/v1/metrics")) {
      res.writeHead(404).end();
      return;
    }
    const contentType = String(req.headers["content-type"] ?? "");
    const body = await readBody(req);
    requests.push({ path, contentType, bytes: body.length });
    raw.push(body.toString("latin1"));
    if (options.failWith !== undefined) {
      res.writeHead(options.failWith, { "content-type": "application/json" }).end("{}");
      return;
    }
    const protobuf = contentType.includes("protobuf");
    let decoded: Json;
    try {
      if (path === "/v1/traces")
        decoded = protobuf ? decodeTraceRequest(body) : (JSON.parse(body.toString("utf8")) as Json);
      else decoded = protobuf ? decodeMetricsRequest(body) : (JSON.parse(body.toString("utf8")) as Json);
    } catch (error) {
      res.writeHead(400, { "content-type": "text/plain" }).end(String(error));
      return;
    }
    if (path === "/v1/traces") spans.push(...normaliseSpans(decoded));
    else points.push(...normaliseMetrics(decoded));
    for (const wake of waiters) wake();
    if (protobuf) res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    else res.writeHead(200, { "content-type": "application/json" }).end("{}");
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => res.writeHead(500).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    dataPoints: () => [...points],
    requests: () => [...requests],
    rawBodies: () => [...raw],
    waitForSpans(predicate, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(spans)) return;
          cleanup();
          resolve([...spans]);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(`OTLP receiver: condition not met within ${timeoutMs} ms (${spans.length} spans)`),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
