/**
 * W3C Trace Context `traceparent` values (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`. Used to carry a span context through
 * places OTel's propagators do not reach on their own: BullMQ job metadata and IPC messages.
 * All-zero ids are invalid by the spec and rejected.
 */

export interface TraceparentParts {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

export function formatTraceparent(parts: TraceparentParts): string {
  const flags = (parts.traceFlags & 0xff).toString(16).padStart(2, "0");
  return `00-${parts.traceId}-${parts.spanId}-${flags}`;
}

export function parseTraceparent(value: string | undefined): TraceparentParts | undefined {
  if (value === undefined) return undefined;
  const match = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags] = match as unknown as [string, string, string, string, string];
  if (version === "ff") return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return undefined;
  return { traceId, spanId, traceFlags: Number.parseInt(flags, 16) };
}
