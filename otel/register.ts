/**
 * The classic OpenTelemetry route to Redis spans, for deployments that want the contrib
 * instrumentation rather than ioredis's diagnostics channels (otel/ioredis-tracing.ts, the default):
 *
 *   node --import ./otel/register.ts … ao-broker start      (bundled: --import dist/otel-register.js)
 *
 * It must run before ioredis is loaded: @opentelemetry/instrumentation-ioredis 0.71.0 patches
 * ioredis (it declares support for >=2 <7, and works with 6.0.0) when the module is loaded, and an
 * ESM `import` is only visible to it through import-in-the-middle's loader hook, registered here for
 * ioredis alone. A `require()` (createRequire) after this module ran is seen as well.
 *
 * The instrumentation reports to OTel's global tracer provider, so the broker must then be started
 * with `startTelemetry({ registerGlobalTracerProvider: true, traceRedis: false })` (the second flag
 * avoids every command being traced twice). Spans still pass the broker's secret guard.
 */
import { createRequire, register } from "node:module";
import { pathToFileURL } from "node:url";
import { IORedisInstrumentation } from "@opentelemetry/instrumentation-ioredis";

// The hook belongs to @opentelemetry/instrumentation, a dependency of instrumentation-ioredis;
// resolve it from there rather than relying on it being hoisted.
const fromInstrumentation = createRequire(
  createRequire(import.meta.url).resolve("@opentelemetry/instrumentation-ioredis"),
);
register(
  pathToFileURL(fromInstrumentation.resolve("@opentelemetry/instrumentation/hook.mjs")),
  import.meta.url,
  {
    data: { include: ["ioredis"] },
  },
);

// Enabled on construction; patches ioredis when it loads.
new IORedisInstrumentation({ requireParentSpan: true });
