/** `--since 15m` and friends: core/duration.ts's parser, failing with an AoError that names the input. */
import { AoError } from "../common/index.js";
import { parseDurationMs } from "./core/duration.js";
import { OtelErrors } from "./errors.js";

/** Milliseconds in `text` ("90s", "15m", "1h30m", "2d"; a bare number is seconds). */
export function parseDuration(text: string): number {
  const ms = parseDurationMs(text);
  if (ms === undefined) {
    throw new AoError(
      OtelErrors.AO_ERR_OTEL_DURATION_INVALID,
      `"${text}" is not a duration: use a number with a unit, e.g. 90s, 15m, 2h, 1h30m or 7d`,
    );
  }
  return ms;
}
