import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePrometheusText, startTelemetry } from "../../../otel/index.js";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

function compose(args: string[], env: Record<string, string> = {}) {
  // Debian's docker-compose 1.29 validates and renders the file without a Docker engine.
  return spawnSync("docker-compose", ["-f", join(ROOT, "docker-compose.yml"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, ...env },
  });
}

interface Panel {
  type: string;
  title: string;
  datasource?: { uid?: string };
  targets?: { expr?: string; datasource?: { uid?: string } }[];
}

function dashboard(): { uid: string; panels: Panel[] } {
  return JSON.parse(read("deploy/grafana/dashboards/ao-broker.json")) as { uid: string; panels: Panel[] };
}

/** A scrape with every instrument holding a value, as a busy broker's /metrics would be. */
async function busyScrape() {
  const telemetry = startTelemetry({ env: {} });
  const m = telemetry.instruments;
  m.recordRequest({
    sessionId: "ta-1",
    command: "gh.pr.checks",
    resource: "graphql",
    cache: "MISS",
    cost: 2,
    durationMs: 50,
  });
  m.recordRequest({
    sessionId: "ta-1",
    command: "gh.run.list",
    resource: "core",
    cache: "HIT",
    cost: 1,
    durationMs: 2,
  });
  m.recordUpstream({ resource: "graphql", method: "POST", status: 200, durationMs: 40, cost: 2 });
  m.setBudget({ resource: "graphql", limit: 5000, remaining: 4990, used: 10, reset: 1_700_003_600 });
  m.setQueueDepth("interactive", 1);
  m.recordQueueWait("interactive", 20);
  m.recordBatchFlush(10);
  m.recordLifecycleCycle({ durationMs: 800, ok: true, cost: { graphql: 1 } });
  m.recordSecondaryLimitPause("core");
  m.recordInvocation("gh.pr.checks", "ok");
  m.setActiveSessions(3);
  const scrape = parsePrometheusText(await telemetry.renderPrometheus());
  await telemetry.close();
  return scrape;
}

describe("deployment kit", () => {
  describe("docker-compose.yml", () => {
    it("validates with docker-compose config and defines the five services and their volumes", () => {
      const quiet = compose(["config", "-q"]);
      expect(quiet.stderr).toBe("");
      expect(quiet.status).toBe(0);
      expect(compose(["config", "--services"]).stdout.trim().split("\n").sort()).toEqual([
        "ao-broker",
        "grafana",
        "jaeger",
        "prometheus",
        "redis",
      ]);
      expect(compose(["config", "--volumes"]).stdout).toContain("redis-data");
    });

    it("runs Redis with AOF, points the broker at Jaeger, listens on 0.0.0.0:7878 and takes the PAT as a secret", () => {
      const rendered = compose(["config"], { AO_BROKER_EXTRA_ARGS: "--simulate" });
      expect(rendered.status).toBe(0);
      const text = rendered.stdout;
      expect(text).toMatch(/--appendonly\s*\n\s*- "?yes"?/);
      expect(text).toContain("OTEL_EXPORTER_OTLP_ENDPOINT: http://jaeger:4318");
      expect(text).toMatch(/--listen 0\.0\.0\.0:7878/);
      expect(text).toContain("--simulate");
      expect(text).toContain("published: 4318");
      expect(text).toContain("published: 16686");
      expect(text).toMatch(/secrets:\s*\n\s*github_token:\s*\n\s*file: .*deploy\/ao-broker\/no-token/);
      expect(text).not.toMatch(/GITHUB_TOKEN|GH_TOKEN/);
    });
  });

  describe("Prometheus and the broker config", () => {
    it("scrape the port the broker listens on and allow remote /metrics", () => {
      expect(read("deploy/prometheus/prometheus.yml")).toContain('targets: ["ao-broker:7878"]');
      const config = JSON.parse(read("deploy/ao-broker/config.json")) as {
        gateway: { allowRemoteMetrics: boolean };
        upstream: { tokenFile: string };
      };
      expect(config.gateway.allowRemoteMetrics).toBe(true);
      expect(config.upstream.tokenFile).toBe("/run/secrets/github_token");
    });
  });

  describe("the Grafana dashboard", () => {
    it("is valid JSON whose datasource uids are all provisioned", () => {
      const provisioned = [
        ...read("deploy/grafana/provisioning/datasources/datasources.yml").matchAll(/uid:\s*(\S+)/g),
      ].map((m) => m[1]);
      expect(provisioned.sort()).toEqual(["ao-jaeger", "ao-prometheus"]);
      const { uid, panels } = dashboard();
      expect(uid).toBe("ao-broker");
      const used = new Set<string>();
      for (const panel of panels) {
        if (panel.datasource?.uid) used.add(panel.datasource.uid);
        for (const target of panel.targets ?? []) if (target.datasource?.uid) used.add(target.datasource.uid);
      }
      expect([...used].sort()).toEqual(["ao-jaeger", "ao-prometheus"]);
      const titles = panels.map((p) => p.title.toLowerCase()).join(" | ");
      for (const topic of [
        "burn-down",
        "by session",
        "by command",
        "served without",
        "queue wait",
        "lifecycle cycle duration",
      ]) {
        expect(titles).toContain(topic);
      }
    });

    it("queries only series that exist in a /metrics scrape", async () => {
      const exprs = dashboard().panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ""));
      const queried = new Set(
        exprs.flatMap((expr) => [...expr.matchAll(/\bao_broker_[a-z0-9_]+/g)].map((m) => m[0])),
      );
      expect(queried.size).toBeGreaterThan(10);
      const scrape = await busyScrape();
      expect(scrape.problems).toEqual([]);
      const present = new Set(scrape.samples.map((s) => s.name));
      const missing = [...queried].filter((name) => !present.has(name));
      expect(missing).toEqual([]);
    });
  });

  describe("the Dockerfile", () => {
    it("builds in a separate stage, runs on node:20-slim as a non-root user, and bakes in no token", () => {
      const dockerfile = read("Dockerfile");
      expect(dockerfile).toMatch(/^FROM node:20-slim AS build$/m);
      expect(dockerfile).toMatch(/^FROM node:20-slim AS runtime$/m);
      expect(dockerfile).toContain("RUN npm ci");
      expect(dockerfile).toMatch(/^USER node$/m);
      expect(dockerfile).not.toMatch(/^\s*(ENV|ARG)\b.*(TOKEN|PAT|SECRET)/im);
      expect(dockerfile).not.toContain("ghp_");
      const ignored = read(".dockerignore").split("\n");
      for (const entry of ["node_modules", ".env", "secrets", ".git"]) expect(ignored).toContain(entry);
    });
  });
});
