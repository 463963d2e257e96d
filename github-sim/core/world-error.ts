/**
 * A failure GitHub itself would report (unknown PR, merge refused, duplicate PR...). These are
 * answers to clients, not faults of the simulator: the REST layer maps `kind` to a status and
 * GitHub's `{message, documentation_url}` body, the GraphQL layer to an error with `type`.
 */
export type WorldErrorKind = "NOT_FOUND" | "UNPROCESSABLE" | "FORBIDDEN" | "CONFLICT" | "INVALID";

export class WorldError extends Error {
  readonly kind: WorldErrorKind;

  constructor(kind: WorldErrorKind, message: string) {
    super(message);
    this.name = "WorldError";
    this.kind = kind;
  }
}

export function isWorldError(value: unknown): value is WorldError {
  return value instanceof WorldError;
}
