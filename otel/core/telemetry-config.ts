/**
 * Reads the standard OpenTelemetry environment variables
 * (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/ and
 * https://opentelemetry.io/docs/specs/otel/protocol/exporter/) into one plain config object.
 *
 * Invariants: OTLP export is OFF unless an endpoint is named (OTEL_EXPORTER_OTLP_ENDPOINT or the
 * per-signal *_TRACES_/*_METRICS_ENDPOINT), so a broker started without OTEL_* costs nothing on the
 * hot path. OTEL_SDK_DISABLED=true turns all OTLP export off; the broker's own Prometheus text at
 * /metrics is not an OTel exporter and stays available. A value we cannot honour is reported as a
 * problem naming the variable (the caller turns it into an AoError) rather than silently ignored:
 * someone who set OTEL_EXPORTER_OTLP_PROTOCOL=grpc expects traces, not silence.
 */

export type OtlpProtocol = "http/json" | "http/protobuf";

export interface OtlpSignalConfig {
  /** Full URL of the signal's endpoint, e.g. http://jaeger:4318/v1/traces. */
  readonly url: string;
  readonly protocol: OtlpProtocol;
}

export const SAMPLER_KINDS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio",
] as const;
export type SamplerKind = (typeof SAMPLER_KINDS)[number];

export interface SamplerConfig {
  readonly kind: SamplerKind;
  /** Only used by the *traceidratio kinds. */
  readonly ratio: number;
}

export interface TelemetryConfig {
  readonly serviceName: string;
  /** From OTEL_RESOURCE_ATTRIBUTES (percent-decoded), service.name excluded. */
  readonly resourceAttributes: Readonly<Record<string, string>>;
  /** Absent: no span export (the tracer is a no-op). */
  readonly traces: OtlpSignalConfig | undefined;
  /** Absent: no OTLP metric push (Prometheus pull still works). */
  readonly metrics: OtlpSignalConfig | undefined;
  readonly sampler: SamplerConfig;
  readonly metricExportIntervalMs: number;
  readonly metricExportTimeoutMs: number;
}

export type TelemetryConfigResult =
  | { readonly ok: true; readonly config: TelemetryConfig }
  | { readonly ok: false; readonly problems: readonly string[] };

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** @defaultValue the spec's default for OTLP exporters. */
export const DEFAULT_OTLP_PROTOCOL: OtlpProtocol = "http/protobuf";
export const DEFAULT_SERVICE_NAME = "ao-broker";

function value(env: EnvLike, name: string): string | undefined {
  const raw = env[name]?.trim();
  return raw === undefined || raw === "" ? undefined : raw;
}

function parseBoolean(env: EnvLike, name: string, problems: string[]): boolean {
  const raw = value(env, name);
  if (raw === undefined) return false;
  const lower = raw.toLowerCase();
  if (lower === "true") return true;
  if (lower === "false") return false;
  problems.push(`${name}=${raw}: expected true or false`);
  return false;
}

function parsePositiveInt(env: EnvLike, name: string, fallback: number, problems: string[]): number {
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const parsed = Number(raw);
  if (!Number.isInteger(parsed) || parsed <= 0) {
    problems.push(`${name}=${raw}: expected a positive whole number of milliseconds`);
    return fallback;
  }
  return parsed;
}

function parseUrl(name: string, raw: string, problems: string[]): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`${name}=${raw}: not a URL (expected e.g. http://localhost:4318)`);
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    problems.push(`${name}=${raw}: expected an http:// or https:// URL`);
    return undefined;
  }
  return url.toString();
}

function parseProtocol(env: EnvLike, signal: "TRACES" | "METRICS", problems: string[]): OtlpProtocol {
  const specific = `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`;
  const name = value(env, specific) === undefined ? "OTEL_EXPORTER_OTLP_PROTOCOL" : specific;
  const raw = value(env, name);
  if (raw === undefined) return DEFAULT_OTLP_PROTOCOL;
  if (raw === "http/json" || raw === "http/protobuf") return raw;
  const hint = raw === "grpc" ? " (gRPC is not supported: use the OTLP/HTTP port, usually 4318)" : "";
  problems.push(`${name}=${raw}: expected http/protobuf or http/json${hint}`);
  return DEFAULT_OTLP_PROTOCOL;
}

/** OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: whether OTLP export is wanted at all. */
function exporterWanted(
  env: EnvLike,
  name: string,
  accepted: readonly string[],
  problems: string[],
): boolean {
  const raw = value(env, name);
  if (raw === undefined) return true;
  const entries = raw.split(",").map((entry) => entry.trim().toLowerCase());
  const unknown = entries.filter((entry) => !accepted.includes(entry));
  if (unknown.length > 0) problems.push(`${name}=${raw}: supported values are ${accepted.join(", ")}`);
  if (entries.includes("none")) return false;
  return entries.includes("otlp");
}

function signalConfig(
  env: EnvLike,
  signal: "TRACES" | "METRICS",
  problems: string[],
): OtlpSignalConfig | undefined {
  const specificName = `OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`;
  const specific = value(env, specificName);
  const base = value(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const protocol = parseProtocol(env, signal, problems);
  if (specific !== undefined) {
    // Per the spec, a per-signal endpoint is used as given.
    const url = parseUrl(specificName, specific, problems);
    return url === undefined ? undefined : { url, protocol };
  }
  if (base === undefined) return undefined;
  const url = parseUrl("OTEL_EXPORTER_OTLP_ENDPOINT", base, problems);
  if (url === undefined) return undefined;
  // Per the spec, the base endpoint gets the signal's path appended.
  const path = signal === "TRACES" ? "v1/traces" : "v1/metrics";
  return { url: `${url.endsWith("/") ? url : `${url}/`}${path}`, protocol };
}

/** `key1=value1,key2=value2`, values percent-encoded (W3C Baggage octets). */
export function parseResourceAttributes(
  raw: string | undefined,
  problems: string[] = [],
): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined || raw.trim() === "") return out;
  for (const entry of raw.split(",")) {
    if (entry.trim() === "") continue;
    const eq = entry.indexOf("=");
    const key = eq === -1 ? "" : entry.slice(0, eq).trim();
    if (key === "") {
      problems.push(`OTEL_RESOURCE_ATTRIBUTES: "${entry.trim()}" is not key=value`);
      continue;
    }
    const encoded = entry.slice(eq + 1).trim();
    try {
      out[key] = decodeURIComponent(encoded);
    } catch {
      problems.push(`OTEL_RESOURCE_ATTRIBUTES: the value of ${key} is not valid percent-encoding`);
    }
  }
  return out;
}

function parseSampler(env: EnvLike, problems: string[]): SamplerConfig {
  const rawKind = value(env, "OTEL_TRACES_SAMPLER")?.toLowerCase() ?? "parentbased_always_on";
  let kind: SamplerKind = "parentbased_always_on";
  if ((SAMPLER_KINDS as readonly string[]).includes(rawKind)) kind = rawKind as SamplerKind;
  else problems.push(`OTEL_TRACES_SAMPLER=${rawKind}: supported values are ${SAMPLER_KINDS.join(", ")}`);
  const rawArg = value(env, "OTEL_TRACES_SAMPLER_ARG");
  let ratio = 1;
  if (kind.endsWith("traceidratio") && rawArg !== undefined) {
    const parsed = Number(rawArg);
    if (Number.isFinite(parsed) && parsed >= 0 && parsed <= 1) ratio = parsed;
    else problems.push(`OTEL_TRACES_SAMPLER_ARG=${rawArg}: expected a ratio between 0 and 1`);
  }
  return { kind, ratio };
}

export function parseTelemetryEnv(env: EnvLike): TelemetryConfigResult {
  const problems: string[] = [];
  const disabled = parseBoolean(env, "OTEL_SDK_DISABLED", problems);
  const resourceAttributes = parseResourceAttributes(value(env, "OTEL_RESOURCE_ATTRIBUTES"), problems);
  const serviceName =
    value(env, "OTEL_SERVICE_NAME") ?? resourceAttributes["service.name"] ?? DEFAULT_SERVICE_NAME;
  delete resourceAttributes["service.name"];
  const tracesWanted = exporterWanted(env, "OTEL_TRACES_EXPORTER", ["otlp", "none"], problems);
  const metricsWanted = exporterWanted(
    env,
    "OTEL_METRICS_EXPORTER",
    ["otlp", "prometheus", "none"],
    problems,
  );
  const traces = signalConfig(env, "TRACES", problems);
  const metrics = signalConfig(env, "METRICS", problems);
  const config: TelemetryConfig = {
    serviceName,
    resourceAttributes,
    traces: disabled || !tracesWanted ? undefined : traces,
    metrics: disabled || !metricsWanted ? undefined : metrics,
    sampler: parseSampler(env, problems),
    metricExportIntervalMs: parsePositiveInt(env, "OTEL_METRIC_EXPORT_INTERVAL", 60_000, problems),
    metricExportTimeoutMs: parsePositiveInt(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30_000, problems),
  };
  return problems.length > 0 ? { ok: false, problems } : { ok: true, config };
}
