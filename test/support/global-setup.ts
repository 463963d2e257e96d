/**
 * Runs once before the suite: the real components the tests drive must exist. Under CI a missing
 * redis-server or gh is an error (never a skip); .ci/run installs them. The CLI is rebuilt so that
 * end-to-end tests exercise exactly what `npm ci` gives users.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { findRedisServer } from "../../broker/index.js";

export function setup(): void {
  const missing: string[] = [];
  if (!findRedisServer()) missing.push("redis-server (apt-get install -y redis-server)");
  const gh = spawnSync(process.env.AO_BROKER_GH ?? "gh", ["--version"], { encoding: "utf8" });
  if (gh.status !== 0) missing.push("gh (apt-get install -y gh)");
  if (missing.length > 0) {
    throw new Error(`the test suite needs real components that are missing: ${missing.join(", ")}`);
  }
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
}
