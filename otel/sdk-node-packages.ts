/**
 * Loads packages that @opentelemetry/sdk-node (a declared dependency, pinned at 0.223.0) itself
 * depends on at exact versions: the OTLP/protobuf exporters, the AsyncLocalStorage context manager
 * and the Prometheus serializer. Resolving them from sdk-node's own location, rather than importing
 * them by bare name from here, means we never rely on npm happening to hoist an undeclared
 * dependency: if sdk-node nests them, we still find exactly the copies it was tested with.
 *
 * Loading is lazy (require on first use), so a broker with tracing off never pays for the exporter
 * modules. Types come from `import type` elsewhere and are erased at runtime.
 */
import { createRequire } from "node:module";

export type SdkNodeDependency =
  | "@opentelemetry/context-async-hooks"
  | "@opentelemetry/exporter-prometheus"
  | "@opentelemetry/exporter-trace-otlp-proto"
  | "@opentelemetry/exporter-metrics-otlp-proto";

export function requireSdkNodeDependency<T>(name: SdkNodeDependency): T {
  const sdkNodeEntry = createRequire(import.meta.url).resolve("@opentelemetry/sdk-node");
  return createRequire(sdkNodeEntry)(name) as T;
}

/** A package this project declares itself, loaded lazily (CommonJS require, cached by Node). */
export function requireDeclared<T>(name: string): T {
  return createRequire(import.meta.url)(name) as T;
}
