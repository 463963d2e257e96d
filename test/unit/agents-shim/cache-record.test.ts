import { describe, expect, it } from "vitest";
import { formatCacheRecord, parseCacheRecord } from "../../../agents-shim/core/cache-record.js";

const RECORD = {
  token: "aob_s_abc",
  gateway: "http://127.0.0.1:7878",
  socket: "/home/me/.ao-broker/broker.sock",
  session: "proj-12",
  repo: "acme/widgets",
};

describe("the session cache record", () => {
  it("round-trips", () => {
    expect(parseCacheRecord(formatCacheRecord(RECORD))).toEqual(RECORD);
  });
  it("is one key=value per line, split at the first '=' as the shell does", () => {
    expect(formatCacheRecord(RECORD).split("\n")[0]).toBe("token=aob_s_abc");
    expect(parseCacheRecord("gateway=http://h/?a=b\n")).toEqual({ gateway: "http://h/?a=b" });
  });
  it("ignores unknown keys and junk", () => {
    expect(parseCacheRecord("evil=1\n=x\nnothing\nrepo=a/b")).toEqual({ repo: "a/b" });
  });
  it("refuses a value with a newline (the shell would read two lines)", () => {
    expect(() => formatCacheRecord({ ...RECORD, session: "a\ntoken=x" })).toThrow(/newline/);
  });
});
