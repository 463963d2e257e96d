import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OtlpReceiver, startOtlpReceiver } from "../../support/otlp-receiver.js";
import { startTestRedis, type TestRedis } from "../../support/redis.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const CHILD = join(import.meta.dirname, "fixtures", "register-route.ts");

function runChild(receiver: OtlpReceiver, socket: string, withRegister: boolean): Promise<number> {
  const imports = [
    "--import",
    "tsx",
    ...(withRegister ? ["--import", join(ROOT, "otel", "register.ts")] : []),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...imports, CHILD, socket], {
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
        OTEL_METRICS_EXPORTER: "none",
        OTEL_SERVICE_NAME: withRegister ? "with-register" : "without-register",
      },
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? -1));
  });
}

describe("otel/register.ts (node --import route)", () => {
  let redis: TestRedis;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    redis = await startTestRedis();
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    await receiver.close();
    await redis.stop();
  });

  describe("when ioredis 6.0.0 is imported after startTelemetry", () => {
    it("is traced by @opentelemetry/instrumentation-ioredis 0.71.0 only when register.ts ran first", async () => {
      const socket = decodeURIComponent(new URL(redis.url).pathname);
      const codes = await Promise.all([runChild(receiver, socket, true), runChild(receiver, socket, false)]);
      expect(codes).toEqual([0, 0]);
      const spans = receiver.spans();
      const withRegister = spans.filter((s) => s.resource["service.name"] === "with-register");
      const withoutRegister = spans.filter((s) => s.resource["service.name"] === "without-register");
      const parent = withRegister.find((s) => s.name === "parent");
      const set = withRegister.find((s) => s.name === "set");
      expect(set?.scope).toBe("@opentelemetry/instrumentation-ioredis");
      expect(set?.parentSpanId).toBe(parent?.spanId);
      expect(set?.attributes["db.system.name"] ?? set?.attributes["db.system"]).toBe("redis");
      expect(withoutRegister.map((s) => s.name)).toEqual(["parent"]);
    }, 30_000);
  });
});
