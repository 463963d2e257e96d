/**
 * Appends AO trace rows to AO_GH_TRACE_FILE. Several processes may append to the same file at once
 * (the broker, AO itself, the agents' wrappers), so the file is opened with O_APPEND and each row is
 * written with a single write(2) of one whole line: the kernel positions every append at the end
 * of the file atomically, and lines are kept under PIPE_BUF (core/ao-trace-row.ts) so even a FIFO
 * reader never sees two rows interleaved.
 *
 * A trace file must never break the broker: opening fails loudly at start (a clear AoError naming
 * the path), but a failed write later is reported to `onError` and the row dropped.
 */
import { closeSync, mkdirSync, openSync, write } from "node:fs";
import { dirname, resolve } from "node:path";
import { AoError } from "../common/index.js";
import { type AoTraceRow, serializeAoTraceRow } from "./core/ao-trace-row.js";
import { OtelErrors } from "./errors.js";

export interface AoTraceWriterOptions {
  /** The file (AO_GH_TRACE_FILE). Missing parent directories are created. */
  readonly path: string;
  /** Called when a row could not be written. @defaultValue ignore */
  readonly onError?: (error: Error) => void;
}

export interface AoTraceWriter {
  readonly path: string;
  append(row: AoTraceRow): void;
  /** Waits for rows in flight, then closes the file. */
  close(): Promise<void>;
}

/** Opens the trace file named by `env.AO_GH_TRACE_FILE`, or returns undefined when it is unset. */
export function openAoTraceWriterFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  onError?: (error: Error) => void,
): AoTraceWriter | undefined {
  const path = env.AO_GH_TRACE_FILE?.trim();
  if (path === undefined || path === "") return undefined;
  return openAoTraceWriter({ path, ...(onError === undefined ? {} : { onError }) });
}

export function openAoTraceWriter(options: AoTraceWriterOptions): AoTraceWriter {
  const path = resolve(options.path);
  const onError = options.onError ?? (() => {});
  let fd: number;
  try {
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, "a", 0o600);
  } catch (error) {
    throw new AoError(
      OtelErrors.AO_ERR_OTEL_TRACE_FILE_UNWRITABLE,
      `AO_GH_TRACE_FILE=${path}: cannot open for appending (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { cause: error },
    );
  }
  let inFlight = 0;
  let closed = false;
  let drained: (() => void) | undefined;

  const settle = () => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };
  const writeAll = (buffer: Buffer, offset: number) => {
    write(fd, buffer, offset, buffer.length - offset, null, (error, written) => {
      if (error) {
        onError(error);
        settle();
      } else if (offset + written < buffer.length) {
        // A short write (disk nearly full, signal): finish the line rather than leave half a row.
        writeAll(buffer, offset + written);
      } else {
        settle();
      }
    });
  };

  return {
    path,
    append(row) {
      if (closed) return;
      inFlight++;
      writeAll(Buffer.from(serializeAoTraceRow(row), "utf8"), 0);
    },
    async close() {
      if (closed) return;
      closed = true;
      if (inFlight > 0) await new Promise<void>((done) => (drained = done));
      closeSync(fd);
    },
  };
}
