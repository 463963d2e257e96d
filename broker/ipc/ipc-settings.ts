/**
 * The IPC server's settings: the settings schema of this folder, composed into the broker's by
 * broker/config/config-schema.ts (docs/config.md is generated from it). Code here takes its defaults
 * from `IPC_DEFAULTS`, never from an inline number (scripts/check-inline-defaults.mjs).
 */
import { z } from "zod";
import { ms } from "../config/schema-parts.js";

export const ipcSettings = z
  .strictObject({
    maxConnections: z
      .number()
      .int()
      .min(4)
      .default(256)
      .describe(
        "IPC connections open at once. One more evicts a connection that has not said hello (oldest first), else the longest-idle one with no call in flight and no event subscription; only when none is evictable is it refused (-32003).",
      ),
    helloTimeoutMs: ms
      .min(100)
      .default(10_000)
      .describe("Time a new IPC connection has to send hello before it is closed."),
    maxLineBytes: z
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024)
      .describe("Longest JSON-RPC line; a longer one answers -32600 and closes the connection."),
    maxInFlightPerConnection: z
      .number()
      .int()
      .min(1)
      .default(64)
      .describe("Calls running at once per connection; past it the connection is not read."),
    notifyHighWaterBytes: z
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024)
      .describe("Unsent output above which notifications to a connection are dropped (and counted)."),
    maxBufferedBytes: z
      .number()
      .int()
      .min(1024)
      .default(16 * 1024 * 1024)
      .describe("Unsent output above which a connection due a reply is closed."),
    closeGraceMs: ms.default(5000).describe("How long a stopping IPC server lets calls in flight finish."),
    socketProbeTimeoutMs: ms
      .min(10)
      .default(1000)
      .describe("How long a socket file left by another process is given to answer before it is replaced."),
  })
  .prefault({});

/** Every `ipcSettings` default, as the schema resolves an absent section. */
export const IPC_DEFAULTS = Object.freeze(ipcSettings.parse(undefined));
