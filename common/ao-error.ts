/**
 * The one error type of the project. Every failure that crosses a module boundary is an AoError
 * with a stable `code` (an AO_ERR_* literal); the edges (HTTP, JSON-RPC, CLI) map it to their wire
 * form in exactly one place each. Codes are never matched by message and never reused once retired:
 * docs/errors.md lists every live code, and a test keeps the two in step.
 */
export interface AoErrorOptions {
  /** HTTP status the gateway answers with when this error reaches it. */
  readonly httpStatus?: number;
  /** JSON-RPC error code used by the IPC server. */
  readonly rpcCode?: number;
  /** Machine-readable details (never secrets). */
  readonly data?: Readonly<Record<string, unknown>>;
  readonly cause?: unknown;
}

export class AoError<Code extends string = string> extends Error {
  readonly code: Code;
  readonly httpStatus: number | undefined;
  readonly rpcCode: number | undefined;
  readonly data: Readonly<Record<string, unknown>> | undefined;

  constructor(code: Code, message: string, options: AoErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "AoError";
    this.code = code;
    this.httpStatus = options.httpStatus;
    this.rpcCode = options.rpcCode;
    this.data = options.data;
  }
}

export function isAoError(value: unknown, code?: string): value is AoError {
  return value instanceof AoError && (code === undefined || value.code === code);
}
