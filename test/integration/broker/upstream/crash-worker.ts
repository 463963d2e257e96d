/**
 * A broker that will be killed: runs upstream workers against the given Redis and upstream,
 * prints "ready", and waits. The crash tests SIGKILL it while it is sending (or pacing) a write.
 * Usage: node --import tsx crash-worker.ts <redis-url> <prefix> <upstream-url> [policy-json]
 */
import { UpstreamClient, UpstreamQueue } from "../../../../broker/upstream/index.js";

const [redis, prefix, upstream, policyJson] = process.argv.slice(2);
if (!redis || !prefix || !upstream) {
  process.stderr.write("usage: crash-worker.ts <redis-url> <prefix> <upstream-url>\n");
  process.exit(2);
}
const client = new UpstreamClient({ baseUrl: upstream, token: "ghp_crashworker000000000000" });
await UpstreamQueue.create({
  redis,
  prefix,
  client,
  policy: {
    concurrency: 4,
    lockDurationMs: 1_000,
    stalledIntervalMs: 300,
    ...(policyJson ? (JSON.parse(policyJson) as Record<string, number>) : {}),
  },
});
process.stdout.write("ready\n");
setInterval(() => undefined, 60_000);
