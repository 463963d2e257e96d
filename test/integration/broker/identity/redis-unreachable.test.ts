/**
 * Issue 17, item 8: `ao-broker start` with its Redis unreachable names the Redis it could not
 * reach (password masked) instead of ioredis's bare "Connection is closed.".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../../../support/cli-process.js";

let dir: string;
let closedPort: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "aob-unreachable-"));
  // A port that was just free: nothing listens on it.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closedPort = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("ao-broker start with an unreachable Redis", () => {
  it("exits non-zero naming the Redis URL, never its password", async () => {
    const done = await runCli(
      [
        "start",
        "--simulate",
        "--listen",
        "127.0.0.1:0",
        "--socket",
        join(dir, "broker.sock"),
        "--redis",
        `redis://:hunter2-secret@127.0.0.1:${closedPort}`,
      ],
      { HOME: dir, AO_BROKER_STATE_DIR: join(dir, "state"), REDIS_URL: undefined },
      30_000,
    );
    expect(done.code).not.toBe(0);
    expect(done.stderr).toContain(`127.0.0.1:${closedPort}`);
    expect(done.stderr).toContain("AO_ERR_REDIS_UNREACHABLE");
    expect(done.stderr).not.toContain("hunter2-secret");
    expect(done.stderr).not.toMatch(/^ao-broker: Connection is closed\.$/m);
  }, 40_000);
});
