/**
 * Turns a JSON-RPC error object from the broker back into the AoError the broker threw: same
 * `code` (from `data.aoCode`), message, rpcCode, httpStatus and data, so callers branch on
 * `isAoError(e, "AO_ERR_...")` exactly as code inside the broker would. An error without an
 * aoCode (not from this broker) becomes AO_ERR_IPC_REMOTE.
 */
import { AoError } from "../common/index.js";
import { ClientErrors } from "./errors.js";
import type { JsonRpcErrorObject } from "./protocol.js";

export function rebuildError(error: JsonRpcErrorObject): AoError {
  const { aoCode, httpStatus, ...data } = error.data ?? {};
  const code = typeof aoCode === "string" && /^AO_ERR_[A-Z0-9_]+$/.test(aoCode) ? aoCode : undefined;
  return new AoError(code ?? ClientErrors.AO_ERR_IPC_REMOTE, error.message, {
    rpcCode: error.code,
    ...(typeof httpStatus === "number" ? { httpStatus } : {}),
    data: code === undefined ? { ...data, rpcCode: error.code } : data,
  });
}
