/** Error codes of the agents shim (its installer and its Node helper); docs/errors.md lists each. */
export const ShimErrors = {
  /** DIR/gh exists and is neither this shim nor AO's wrapper: refused unless --force. */
  AO_ERR_SHIM_FOREIGN_GH: "AO_ERR_SHIM_FOREIGN_GH",
  /** The shell templates or the helper bundle are not where the installer looks (run `npm run build`). */
  AO_ERR_SHIM_ASSETS_MISSING: "AO_ERR_SHIM_ASSETS_MISSING",
  /** `shim uninstall` or `shim env` found no shim of ours in the directory. */
  AO_ERR_SHIM_NOT_INSTALLED: "AO_ERR_SHIM_NOT_INSTALLED",
  /** The session is not open on the broker and auto-registration is off. */
  AO_ERR_SHIM_SESSION_REFUSED: "AO_ERR_SHIM_SESSION_REFUSED",
  /** The helper was called with missing or malformed arguments. */
  AO_ERR_SHIM_BAD_INPUT: "AO_ERR_SHIM_BAD_INPUT",
} as const;
export type ShimErrorCode = keyof typeof ShimErrors;
