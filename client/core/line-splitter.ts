/**
 * Splits a byte stream into newline-delimited frames, for both ends of the IPC socket.
 *
 * Works on bytes, not decoded text, so a multi-byte UTF-8 character split across two chunks is
 * reassembled before anyone decodes it. A trailing "\r" is stripped (CRLF senders such as
 * `socat CRLF`), and empty lines are skipped.
 *
 * Invariant: it never holds more than `maxLineBytes` of an unfinished line. The moment a line
 * (without its terminator) is longer, `push` reports `overflow: true`, forgets everything it held,
 * and from then on ignores all input: the caller answers with an error and closes the connection,
 * so a hostile peer cannot make it buffer without bound.
 */
const LF = 0x0a;
const CR = 0x0d;

export interface LineSplitterOptions {
  /** Longest accepted line in bytes, terminator excluded. */
  readonly maxLineBytes: number;
}

export interface SplitResult {
  /** Complete lines, in order, without "\n" or "\r\n". */
  readonly lines: Buffer[];
  /** True once a line exceeded the limit; no lines are ever returned afterwards. */
  readonly overflow: boolean;
}

export class LineSplitter {
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #overflowed = false;

  constructor(options: LineSplitterOptions) {
    this.#maxLineBytes = options.maxLineBytes;
  }

  /** Bytes of the unfinished line currently held. */
  get pendingBytes(): number {
    return this.#pendingBytes;
  }

  push(chunk: Buffer): SplitResult {
    if (this.#overflowed) return { lines: [], overflow: true };
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(LF, start); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      const line = this.#takeLine(piece);
      if (line === undefined) return this.#overflow(lines);
      if (line.length > 0) lines.push(line);
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      // A lone "\r" at the end may belong to a "\r\n" split across chunks: it counts but is kept.
      if (this.#pendingBytes + rest.length > this.#maxLineBytes + 1) return this.#overflow(lines);
      this.#pending.push(rest);
      this.#pendingBytes += rest.length;
    }
    return { lines, overflow: false };
  }

  /** Joins the held prefix with `piece`; undefined when the line is over the limit. */
  #takeLine(piece: Buffer): Buffer | undefined {
    let line = piece;
    if (this.#pendingBytes > 0) {
      this.#pending.push(piece);
      line = Buffer.concat(this.#pending, this.#pendingBytes + piece.length);
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    return line.length > this.#maxLineBytes ? undefined : line;
  }

  #overflow(lines: Buffer[]): SplitResult {
    this.#overflowed = true;
    this.#pending = [];
    this.#pendingBytes = 0;
    return { lines, overflow: true };
  }
}
