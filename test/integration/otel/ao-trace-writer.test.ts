import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isAoError } from "../../../common/index.js";
import {
  type AoTraceRow,
  buildAoTraceRow,
  EMPTY_REQUEST_SUMMARY,
  OtelErrors,
  openAoTraceWriter,
  openAoTraceWriterFromEnv,
} from "../../../otel/index.js";

const CHILD = join(import.meta.dirname, "fixtures", "append-trace-rows.ts");

function run(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) => resolve(code ?? -1));
  });
}

function row(i: number): AoTraceRow {
  return buildAoTraceRow({
    component: "test",
    finishedAt: 0,
    durationMs: i,
    args: ["pr", "view", String(i)],
    exitCode: 0,
    requests: EMPTY_REQUEST_SUMMARY,
  });
}

describe("AO trace writer", () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "aob-trace-"));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  describe("when several processes append to one file at once", () => {
    it("keeps every line intact and every row present", async () => {
      const file = join(dir, "gh-trace.jsonl");
      writeFileSync(file, `${JSON.stringify({ existing: true })}\n`);
      const writers = 4;
      const rowsEach = 150;
      const codes = await Promise.all(
        Array.from({ length: writers }, (_, w) => run([file, String(w), String(rowsEach)])),
      );
      expect(codes).toEqual(Array(writers).fill(0));
      const lines = readFileSync(file, "utf8").split("\n");
      expect(lines.pop()).toBe("");
      expect(lines).toHaveLength(1 + writers * rowsEach);
      expect(JSON.parse(lines[0] ?? "")).toEqual({ existing: true });
      const seen = new Map<string, Set<number>>();
      for (const line of lines.slice(1)) {
        const parsed = JSON.parse(line) as AoTraceRow;
        expect(Buffer.byteLength(line) + 1).toBeLessThanOrEqual(4096);
        const set = seen.get(parsed.component) ?? new Set<number>();
        set.add(parsed.durationMs);
        seen.set(parsed.component, set);
      }
      expect([...seen.keys()].sort()).toEqual(["writer-0", "writer-1", "writer-2", "writer-3"]);
      for (const set of seen.values()) expect(set.size).toBe(rowsEach);
    }, 30_000);
  });

  describe("when the parent directory does not exist", () => {
    it("creates it and appends rows in order from one process", async () => {
      const file = join(dir, "nested", "deeper", "trace.jsonl");
      const writer = openAoTraceWriterFromEnv({ AO_GH_TRACE_FILE: file });
      expect(writer?.path).toBe(file);
      for (let i = 0; i < 3; i++) writer?.append(row(i));
      await writer?.close();
      writer?.append(row(99));
      const durations = readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as AoTraceRow).durationMs);
      expect(durations.sort()).toEqual([0, 1, 2]);
    });
  });

  describe("when AO_GH_TRACE_FILE is unset or blank", () => {
    it("opens nothing", () => {
      expect(openAoTraceWriterFromEnv({})).toBeUndefined();
      expect(openAoTraceWriterFromEnv({ AO_GH_TRACE_FILE: "  " })).toBeUndefined();
    });
  });

  describe("when the file cannot be opened", () => {
    it("fails at start with AO_ERR_OTEL_TRACE_FILE_UNWRITABLE naming the path", () => {
      const locked = join(dir, "locked");
      mkdirSync(locked);
      chmodSync(locked, 0o500);
      let caught: unknown;
      try {
        openAoTraceWriter({ path: join(locked, "sub", "trace.jsonl") });
      } catch (error) {
        caught = error;
      }
      chmodSync(locked, 0o700);
      // root ignores directory permissions; then a path under a regular file is unopenable too.
      if (caught === undefined) {
        writeFileSync(join(dir, "file"), "");
        try {
          openAoTraceWriter({ path: join(dir, "file", "trace.jsonl") });
        } catch (error) {
          caught = error;
        }
      }
      expect(isAoError(caught, OtelErrors.AO_ERR_OTEL_TRACE_FILE_UNWRITABLE)).toBe(true);
      expect((caught as Error).message).toMatch(
        /^AO_GH_TRACE_FILE=.*trace\.jsonl: cannot open for appending/,
      );
    });
  });
});
