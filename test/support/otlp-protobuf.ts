/**
 * A minimal protobuf decoder for OTLP export requests (opentelemetry-proto trace/v1 and
 * metrics/v1), so the test receiver can check what the http/protobuf exporters really send without
 * a protobuf dependency. It turns the wire format into the same plain shape as OTLP/JSON (hex ids,
 * `{ stringValue | intValue | ... }` values), so one normaliser serves both encodings. Only the
 * fields our tests look at are mapped; unknown fields are skipped as the wire format allows.
 */

type Fields = Map<number, unknown[]>;

class Reader {
  #pos = 0;
  readonly #buf: Buffer;

  constructor(buf: Buffer) {
    this.#buf = buf;
  }

  get done(): boolean {
    return this.#pos >= this.#buf.length;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = this.#buf[this.#pos++];
      if (byte === undefined) throw new Error("truncated varint");
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  bytes(length: number): Buffer {
    if (this.#pos + length > this.#buf.length) throw new Error("truncated field");
    const out = this.#buf.subarray(this.#pos, this.#pos + length);
    this.#pos += length;
    return out;
  }
}

/** Raw fields by number: varints as bigint, fixed64/fixed32 and length-delimited as Buffer. */
function readFields(buf: Buffer): Fields {
  const reader = new Reader(buf);
  const fields: Fields = new Map();
  while (!reader.done) {
    const key = Number(reader.varint());
    const field = key >>> 3;
    const wire = key & 7;
    let value: unknown;
    if (wire === 0) value = reader.varint();
    else if (wire === 1) value = reader.bytes(8);
    else if (wire === 2) value = reader.bytes(Number(reader.varint()));
    else if (wire === 5) value = reader.bytes(4);
    else throw new Error(`unsupported wire type ${wire}`);
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const one = (f: Fields, n: number) => f.get(n)?.[0];
const all = (f: Fields, n: number) => f.get(n) ?? [];
const str = (f: Fields, n: number) => (one(f, n) as Buffer | undefined)?.toString("utf8");
const hex = (f: Fields, n: number) => (one(f, n) as Buffer | undefined)?.toString("hex");
const u64 = (f: Fields, n: number) => (one(f, n) as Buffer | undefined)?.readBigUInt64LE(0).toString();
const dbl = (f: Fields, n: number) => (one(f, n) as Buffer | undefined)?.readDoubleLE(0);
const int = (f: Fields, n: number) => {
  const v = one(f, n);
  return v === undefined ? undefined : Number(BigInt.asIntN(64, v as bigint));
};
const msgs = (f: Fields, n: number) => all(f, n).map((b) => readFields(b as Buffer));

function anyValue(f: Fields): Record<string, unknown> {
  if (f.has(1)) return { stringValue: str(f, 1) };
  if (f.has(2)) return { boolValue: one(f, 2) === 1n };
  if (f.has(3)) return { intValue: String(BigInt.asIntN(64, one(f, 3) as bigint)) };
  if (f.has(4)) return { doubleValue: dbl(f, 4) };
  if (f.has(5)) return { arrayValue: { values: msgs(readFields(one(f, 5) as Buffer), 1).map(anyValue) } };
  if (f.has(6)) return { kvlistValue: { values: msgs(readFields(one(f, 6) as Buffer), 1).map(keyValue) } };
  return {};
}

function keyValue(f: Fields): { key: string; value: Record<string, unknown> } {
  const value = one(f, 2) as Buffer | undefined;
  return { key: str(f, 1) ?? "", value: value === undefined ? {} : anyValue(readFields(value)) };
}

function resource(f: Fields | undefined) {
  return { attributes: f === undefined ? [] : msgs(f, 1).map(keyValue) };
}

function span(f: Fields) {
  const status = msgs(f, 15)[0];
  return {
    traceId: hex(f, 1),
    spanId: hex(f, 2),
    parentSpanId: hex(f, 4) ?? "",
    name: str(f, 5),
    kind: int(f, 6) ?? 0,
    startTimeUnixNano: u64(f, 7),
    endTimeUnixNano: u64(f, 8),
    attributes: msgs(f, 9).map(keyValue),
    events: msgs(f, 11).map((e) => ({ name: str(e, 2), attributes: msgs(e, 3).map(keyValue) })),
    links: msgs(f, 13).map((l) => ({
      traceId: hex(l, 1),
      spanId: hex(l, 2),
      attributes: msgs(l, 4).map(keyValue),
    })),
    status: status === undefined ? {} : { code: int(status, 3) ?? 0, message: str(status, 2) },
  };
}

/** ExportTraceServiceRequest (protobuf) → the OTLP/JSON shape. */
export function decodeTraceRequest(body: Buffer) {
  return {
    resourceSpans: msgs(readFields(body), 1).map((rs) => ({
      resource: resource(msgs(rs, 1)[0]),
      scopeSpans: msgs(rs, 2).map((ss) => ({
        scope: { name: str(msgs(ss, 1)[0] ?? new Map(), 1) },
        spans: msgs(ss, 2).map(span),
      })),
    })),
  };
}

function packedDoubles(f: Fields, n: number): number[] {
  const out: number[] = [];
  for (const chunk of all(f, n)) {
    const buf = chunk as Buffer;
    for (let i = 0; i + 8 <= buf.length; i += 8) out.push(buf.readDoubleLE(i));
  }
  return out;
}

function packedFixed64(f: Fields, n: number): string[] {
  const out: string[] = [];
  for (const chunk of all(f, n)) {
    const buf = chunk as Buffer;
    for (let i = 0; i + 8 <= buf.length; i += 8) out.push(buf.readBigUInt64LE(i).toString());
  }
  return out;
}

function numberPoint(f: Fields) {
  const asInt = one(f, 6) as Buffer | undefined;
  return {
    attributes: msgs(f, 7).map(keyValue),
    ...(asInt === undefined ? { asDouble: dbl(f, 4) ?? 0 } : { asInt: asInt.readBigInt64LE(0).toString() }),
  };
}

function histogramPoint(f: Fields) {
  return {
    attributes: msgs(f, 9).map(keyValue),
    count: u64(f, 4),
    sum: dbl(f, 5),
    bucketCounts: packedFixed64(f, 6),
    explicitBounds: packedDoubles(f, 7),
  };
}

function metric(f: Fields) {
  const gauge = msgs(f, 5)[0];
  const sum = msgs(f, 7)[0];
  const histogram = msgs(f, 9)[0];
  return {
    name: str(f, 1),
    description: str(f, 2),
    unit: str(f, 3),
    ...(gauge === undefined ? {} : { gauge: { dataPoints: msgs(gauge, 1).map(numberPoint) } }),
    ...(sum === undefined
      ? {}
      : { sum: { dataPoints: msgs(sum, 1).map(numberPoint), isMonotonic: one(sum, 3) === 1n } }),
    ...(histogram === undefined ? {} : { histogram: { dataPoints: msgs(histogram, 1).map(histogramPoint) } }),
  };
}

/** ExportMetricsServiceRequest (protobuf) → the OTLP/JSON shape. */
export function decodeMetricsRequest(body: Buffer) {
  return {
    resourceMetrics: msgs(readFields(body), 1).map((rm) => ({
      resource: resource(msgs(rm, 1)[0]),
      scopeMetrics: msgs(rm, 2).map((sm) => ({ metrics: msgs(sm, 2).map(metric) })),
    })),
  };
}
