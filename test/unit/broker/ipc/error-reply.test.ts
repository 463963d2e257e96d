import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { toErrorObject } from "../../../../broker/ipc/index.js";
import { AoError, createLogger, silentLogger } from "../../../../common/index.js";

function capturingLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, logger: createLogger({ level: "error", destination }) };
}

describe("toErrorObject", () => {
  describe("when given an AoError", () => {
    it("uses its rpcCode (else -32000) and puts code and httpStatus into data", () => {
      const plain = toErrorObject(new AoError("AO_ERR_X", "x failed", { data: { n: 1 } }), {
        ref: "r",
        logger: silentLogger(),
      });
      expect(plain).toEqual({ code: -32000, message: "x failed", data: { n: 1, aoCode: "AO_ERR_X" } });
      const custom = toErrorObject(new AoError("AO_ERR_Y", "y", { rpcCode: -32602, httpStatus: 422 }), {
        ref: "r",
        logger: silentLogger(),
      });
      expect(custom).toEqual({ code: -32602, message: "y", data: { httpStatus: 422, aoCode: "AO_ERR_Y" } });
    });

    it("lets data never override the aoCode", () => {
      const reply = toErrorObject(new AoError("AO_ERR_REAL", "m", { data: { aoCode: "AO_ERR_FAKE" } }), {
        ref: "r",
        logger: silentLogger(),
      });
      expect(reply.data?.aoCode).toBe("AO_ERR_REAL");
    });

    it("drops data that cannot be serialized instead of failing", () => {
      const circular: Record<string, unknown> = {};
      circular.self = circular;
      const reply = toErrorObject(new AoError("AO_ERR_Z", "z", { data: { circular } }), {
        ref: "r",
        logger: silentLogger(),
      });
      expect(reply.data).toEqual({ aoCode: "AO_ERR_Z" });
    });

    it("scrubs secrets from message and data", () => {
      const reply = toErrorObject(
        new AoError("AO_ERR_S", "token ghp_abcdefgh1234 leaked", {
          data: { header: "token ghp_abcdefgh1234" },
        }),
        { ref: "r", logger: silentLogger(), secrets: ["ghp_abcdefgh1234"] },
      );
      expect(JSON.stringify(reply)).not.toContain("ghp_abcdefgh1234");
    });
  });

  describe("when given anything else", () => {
    it("answers -32603 with only a reference, and logs the error under it", () => {
      const { lines, logger } = capturingLogger();
      const reply = toErrorObject(new RangeError("db password=hunter2 at /srv/x.ts:10"), {
        ref: "c4-9",
        logger,
      });
      expect(reply).toEqual({
        code: -32603,
        message: "internal error (ref c4-9; details are in the broker's log)",
        data: { aoCode: "AO_ERR_IPC_INTERNAL", ref: "c4-9" },
      });
      expect(lines.join("")).toContain("hunter2");
      expect(lines.join("")).toContain('"ref":"c4-9"');
    });

    it.each([
      { name: "a string", value: "boom" },
      { name: "undefined", value: undefined },
      { name: "null", value: null },
    ])("handles a thrown $name", ({ value }) => {
      expect(toErrorObject(value, { ref: "r", logger: silentLogger() }).code).toBe(-32603);
    });
  });
});
