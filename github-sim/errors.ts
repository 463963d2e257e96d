/** Error codes of the simulator (its own failures; GitHub-shaped answers to clients are not errors). */
export const SimErrors = {
  /** A scenario (file, JSON or object) failed validation; the message lists every problem. */
  AO_ERR_SIM_SCENARIO_INVALID: "AO_ERR_SIM_SCENARIO_INVALID",
  /** A scenario file could not be read or is not JSON. */
  AO_ERR_SIM_SCENARIO_UNREADABLE: "AO_ERR_SIM_SCENARIO_UNREADABLE",
  /** A simulator option is out of range (port, limits, window, latency...). */
  AO_ERR_SIM_OPTIONS_INVALID: "AO_ERR_SIM_OPTIONS_INVALID",
  /** The simulator could not listen on the requested host and port. */
  AO_ERR_SIM_LISTEN_FAILED: "AO_ERR_SIM_LISTEN_FAILED",
} as const;
export type SimErrorCode = keyof typeof SimErrors;
