/**
 * A value that must never be printed: the PAT, the webhook secret. Every accidental route to
 * output (string interpolation, JSON.stringify, util.inspect, pino) yields "[REDACTED]"; only an
 * explicit `reveal()` at the upstream edge gets the value.
 */
import { inspect } from "node:util";

export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return "[REDACTED]";
  }

  toJSON(): string {
    return "[REDACTED]";
  }

  [inspect.custom](): string {
    return "Secret([REDACTED])";
  }
}
