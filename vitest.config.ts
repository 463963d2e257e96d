import { defineConfig } from "vitest/config";

// Integration tests start real redis-server, gh and broker processes; two cores in CI, so keep
// parallelism modest and timeouts honest rather than generous.
export default defineConfig({
  test: {
    globals: false,
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    maxWorkers: 2,
    globalSetup: ["test/support/global-setup.ts"],
  },
});
