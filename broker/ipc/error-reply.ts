/**
 * The one place where an error becomes a JSON-RPC error object (docs/CONTRIBUTING.md, "Errors": one place per edge).
 *
 * - An AoError keeps its message and data; its `code` travels as `data.aoCode` (and `httpStatus`
 *   when set) so the client rebuilds the same AoError. Its `rpcCode`, else -32000, is the number.
 * - Anything else is a bug, not a message for the caller: -32603 with a generic message and a
 *   `ref` that finds the full error (logged here) in the broker's log. Internals, stack traces and
 *   upstream messages never reach the wire this way.
 * - Registered secrets (the PAT) are scrubbed from the message and data as a last line of defence.
 */

import { type JsonRpcErrorObject, RpcErrorCodes } from "../../client/index.js";
import { AoError, type Logger, scrubSecrets } from "../../common/index.js";
import { IpcErrors } from "./errors.js";

export interface ErrorReplyOptions {
  /** Identifies the call in logs and, for internal errors, in the reply. */
  readonly ref: string;
  readonly logger: Logger;
  /** Strings that must never leave the broker. @defaultValue [] */
  readonly secrets?: readonly string[];
}

export function toErrorObject(error: unknown, options: ErrorReplyOptions): JsonRpcErrorObject {
  const secrets = options.secrets ?? [];
  if (error instanceof AoError) {
    const data = scrubbedData(
      {
        ...error.data,
        ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
        aoCode: error.code,
      },
      secrets,
    );
    return {
      code: error.rpcCode ?? RpcErrorCodes.APPLICATION_ERROR,
      message: scrubSecrets(error.message, secrets),
      data: { ...data, aoCode: error.code },
    };
  }
  options.logger.error({ err: error, ref: options.ref }, "IPC handler failed");
  return {
    code: RpcErrorCodes.INTERNAL_ERROR,
    message: `internal error (ref ${options.ref}; details are in the broker's log)`,
    data: { aoCode: IpcErrors.AO_ERR_IPC_INTERNAL, ref: options.ref },
  };
}

/** Data as JSON-safe values with secrets scrubbed; unserializable data is dropped, not sent half. */
function scrubbedData(data: Record<string, unknown>, secrets: readonly string[]): Record<string, unknown> {
  try {
    return JSON.parse(scrubSecrets(JSON.stringify(data), secrets)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
