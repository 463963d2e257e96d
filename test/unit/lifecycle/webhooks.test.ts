import { Webhooks } from "@octokit/webhooks";
import { describe, expect, it } from "vitest";
import type { RefreshTarget } from "../../../lifecycle/core/webhook-signal.js";
import { createWebhookHandler } from "../../../lifecycle/webhooks.js";

const SECRET = "it-is-a-secret-1";

function setup(options: { failRefresh?: boolean; secret?: string | string[] } = {}) {
  const calls: RefreshTarget[][] = [];
  const handler = createWebhookHandler({
    secret: options.secret ?? SECRET,
    lifecycle: {
      refresh: async (targets) => {
        calls.push([...targets]);
        if (options.failRefresh) throw new Error("boom");
        return { sessions: ["s1"] };
      },
    },
  });
  return { handler, calls };
}

async function signed(body: string, event = "pull_request", delivery = "d-1", secret = SECRET) {
  const signature = await new Webhooks({ secret }).sign(body);
  return {
    headers: { "X-Hub-Signature-256": signature, "X-GitHub-Event": event, "X-GitHub-Delivery": delivery },
    rawBody: Buffer.from(body),
  };
}

const prBody = JSON.stringify({
  action: "synchronize",
  repository: { full_name: "acme/widgets" },
  pull_request: {
    number: 7,
    state: "open",
    updated_at: "2026-04-01T00:00:00Z",
    head: { ref: "feat/w", sha: "abc" },
  },
});

describe("webhook handler", () => {
  describe("when the signature is missing or wrong", () => {
    it.each([
      { name: "no signature header", headers: { "x-github-event": "pull_request" } },
      { name: "a signature made with another secret", headers: "other-secret-22" },
      {
        name: "a malformed signature",
        headers: { "x-hub-signature-256": "sha256=zz", "x-github-event": "pull_request" },
      },
      {
        name: "an empty signature",
        headers: { "x-hub-signature-256": "", "x-github-event": "pull_request" },
      },
    ])("answers 401 and changes nothing: $name", async ({ headers }) => {
      const { handler, calls } = setup();
      const request =
        typeof headers === "string"
          ? await signed(prBody, "pull_request", "d-1", headers)
          : { headers, rawBody: Buffer.from(prBody) };
      const response = await handler.handleWebhook(request);
      expect(response.status).toBe(401);
      expect(calls).toEqual([]);
    });

    it("answers 401 when the body was altered after signing", async () => {
      const { handler, calls } = setup();
      const request = await signed(prBody);
      const response = await handler.handleWebhook({
        ...request,
        rawBody: Buffer.from(prBody.replace("7", "8")),
      });
      expect(response.status).toBe(401);
      expect(calls).toEqual([]);
    });
  });

  it("hands a signed pull_request to the lifecycle and answers 200 with the sessions", async () => {
    const { handler, calls } = setup();
    const response = await handler.handleWebhook(await signed(prBody));
    expect(response).toEqual({ status: 200, body: { message: "refreshing", sessions: ["s1"] } });
    expect(calls[0]?.[0]).toMatchObject({
      repo: "acme/widgets",
      prNumbers: [7],
      reason: "pull_request.synchronize",
    });
  });

  it("accepts any of several secrets (rotation)", async () => {
    const { handler, calls } = setup({ secret: ["old-secret-12345", SECRET] });
    expect((await handler.handleWebhook(await signed(prBody))).status).toBe(200);
    expect(calls).toHaveLength(1);
  });

  it("processes a redelivery (same X-GitHub-Delivery) once", async () => {
    const { handler, calls } = setup();
    const request = await signed(prBody);
    await handler.handleWebhook(request);
    const again = await handler.handleWebhook(request);
    expect(again).toEqual({ status: 200, body: { message: "already processed", duplicate: true } });
    expect(calls).toHaveLength(1);
  });

  it("processes a redelivery when the first attempt failed", async () => {
    const failing = setup({ failRefresh: true });
    const request = await signed(prBody);
    expect((await failing.handler.handleWebhook(request)).status).toBe(500);
    expect((await failing.handler.handleWebhook(request)).status).toBe(500);
    expect(failing.calls).toHaveLength(2);
  });

  it.each([
    { name: "malformed JSON", body: "{nope", event: "pull_request", status: 400 },
    { name: "a JSON array", body: "[]", event: "pull_request", status: 400 },
    {
      name: "an unhandled event",
      body: JSON.stringify({ repository: { full_name: "acme/widgets" } }),
      event: "star",
      status: 202,
    },
    {
      name: "a comment on a plain issue",
      body: JSON.stringify({ repository: { full_name: "acme/widgets" }, issue: { number: 1 } }),
      event: "issue_comment",
      status: 202,
    },
    { name: "ping", body: JSON.stringify({ zen: "hi" }), event: "ping", status: 200 },
  ])("answers $status to $name without refreshing", async ({ body, event, status }) => {
    const { handler, calls } = setup();
    const response = await handler.handleWebhook(await signed(body, event));
    expect(response.status).toBe(status);
    expect(calls).toEqual([]);
  });

  it("answers 400 when a signed request names no event", async () => {
    const { handler } = setup();
    const request = await signed(prBody);
    const { "X-GitHub-Event": _e, ...headers } = request.headers;
    expect((await handler.handleWebhook({ headers, rawBody: request.rawBody })).status).toBe(400);
  });

  it("refuses to start without a secret", () => {
    expect(() => setup({ secret: "" })).toThrow(/webhook secret is required/);
  });
});

describe("webhook handler with a patcher", () => {
  function withPatcher() {
    const calls: RefreshTarget[][] = [];
    const patched: string[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      lifecycle: {
        refresh: async (targets) => {
          calls.push([...targets]);
          return { sessions: [] };
        },
      },
      patch: {
        events: ["check_run", "issue_comment"],
        apply: async (event) => {
          patched.push(event);
        },
      },
    });
    return { handler, calls, patched };
  }

  it("hands the payload to the patcher after the refresh, which leaves Actions answers to it", async () => {
    const { handler, calls, patched } = withPatcher();
    const body = JSON.stringify({
      action: "completed",
      repository: { full_name: "acme/widgets" },
      check_run: {
        id: 9,
        name: "build",
        status: "completed",
        head_sha: "abc",
        pull_requests: [{ number: 7 }],
      },
    });
    const answer = await handler.handleWebhook(await signed(body, "check_run", "d-p1"));
    expect(answer.status).toBe(200);
    expect(patched).toEqual(["check_run"]);
    expect(calls[0]?.[0]?.actionsMoved).toBe(true);
  });

  it("patches a comment on a plain issue, which the lifecycle ignores", async () => {
    const { handler, calls, patched } = withPatcher();
    const body = JSON.stringify({
      action: "created",
      repository: { full_name: "acme/widgets" },
      issue: { number: 10 },
      comment: { id: 1 },
    });
    const answer = await handler.handleWebhook(await signed(body, "issue_comment", "d-p2"));
    expect(answer.status).toBe(200);
    expect(patched).toEqual(["issue_comment"]);
    expect(calls).toHaveLength(0);
  });

  it("refuses a bad signature before the patcher sees anything", async () => {
    const { handler, patched } = withPatcher();
    const body = JSON.stringify({ action: "completed", repository: { full_name: "acme/widgets" } });
    const answer = await handler.handleWebhook(await signed(body, "check_run", "d-p3", "another-secret-9"));
    expect(answer.status).toBe(401);
    expect(patched).toEqual([]);
  });
});
