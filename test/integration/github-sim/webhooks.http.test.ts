import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningSimulator, signWebhook, startSimulator } from "../../../github-sim/index.js";
import { rest } from "./support.js";

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

const SECRET = "sim-webhook-secret";
let receiver: Server;
let received: Received[] = [];
let answerStatus = 200;
let sim: RunningSimulator;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(answerStatus).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const port = (receiver.address() as AddressInfo).port;
  sim = await startSimulator({
    webhooks: { url: `http://127.0.0.1:${port}/hook`, secret: SECRET, retryDelayMs: 10 },
  });
});
afterAll(async () => {
  await sim.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
});
beforeEach(() => {
  sim.reset();
  received = [];
  answerStatus = 200;
});

const api = { "x-forwarded-host": "api.github.localhost", "x-forwarded-proto": "http" };

describe("the simulator's webhooks", () => {
  describe("when a check run completes", () => {
    it("POSTs a signed check_run whose object is the REST check run", async () => {
      sim.inject({ type: "check", id: 2008, status: "completed", conclusion: "success" });
      await sim.flushWebhooks();
      const hook = received.find((r) => r.headers["x-github-event"] === "check_run");
      expect(hook).toBeDefined();
      const { headers, body } = hook as Received;
      expect(headers["x-hub-signature-256"]).toBe(signWebhook(SECRET, body));
      expect(headers["x-github-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
      const payload = JSON.parse(body) as {
        action: string;
        check_run: unknown;
        repository: { full_name: string };
      };
      expect(payload.action).toBe("completed");
      expect(payload.repository.full_name).toBe("acme/widgets");
      const get = await rest(sim, "/repos/acme/widgets/check-runs/2008", { headers: api });
      expect(payload.check_run).toEqual(get.json);
    });
  });

  describe("when a PR is merged", () => {
    it("sends pull_request closed with the PR as GET pulls/N returns it", async () => {
      sim.inject({ type: "merge", pr: 2 });
      await sim.flushWebhooks();
      const hooks = received.filter((r) => r.headers["x-github-event"] === "pull_request");
      expect(hooks).toHaveLength(1);
      const payload = JSON.parse((hooks[0] as Received).body) as { action: string; pull_request: unknown };
      expect(payload.action).toBe("closed");
      const get = await rest(sim, "/repos/acme/widgets/pulls/2", { headers: api });
      expect(payload.pull_request).toEqual(get.json);
      expect(sim.webhookStats()?.byName["pull_request.closed"]).toBe(1);
    });
  });

  describe("when a comment is posted", () => {
    it("sends issue_comment created with the issue and the comment", async () => {
      sim.inject({ type: "comment", number: 1, body: "hello" });
      await sim.flushWebhooks();
      const hook = received.find((r) => r.headers["x-github-event"] === "issue_comment");
      const payload = JSON.parse((hook as Received).body) as {
        issue: { number: number };
        comment: { body: string };
      };
      expect(payload.issue.number).toBe(1);
      expect(payload.comment.body).toBe("hello");
    });
  });

  describe("when the receiver fails", () => {
    it("retries a bounded number of times, then counts the delivery failed", async () => {
      answerStatus = 503;
      const before = sim.webhookStats();
      sim.inject({ type: "comment", number: 1, body: "x" });
      await sim.flushWebhooks();
      const after = sim.webhookStats();
      expect(received).toHaveLength(3);
      expect((after?.failed ?? 0) - (before?.failed ?? 0)).toBe(1);
      expect((after?.retried ?? 0) - (before?.retried ?? 0)).toBe(2);
    });
  });
});

describe("the simulator's webhook options", () => {
  it("refuses a webhook URL that is not http(s)", async () => {
    await expect(startSimulator({ webhooks: { url: "ftp://x", secret: "s" } })).rejects.toThrow(
      /webhooks\.url/,
    );
  });
});
