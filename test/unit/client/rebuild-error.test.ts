import { describe, expect, it } from "vitest";
import { rebuildError } from "../../../client/index.js";
import { AoError, isAoError } from "../../../common/index.js";

describe("rebuildError", () => {
  describe("when the error carries an aoCode", () => {
    it("rebuilds the AoError with code, message, rpcCode, httpStatus and the remaining data", () => {
      const error = rebuildError({
        code: -32000,
        message: "budget spent",
        data: { aoCode: "AO_ERR_BUDGET_SPENT", httpStatus: 403, resetAt: "2030-01-01T00:00:00Z" },
      });
      expect(error).toBeInstanceOf(AoError);
      expect(isAoError(error, "AO_ERR_BUDGET_SPENT")).toBe(true);
      expect(error.message).toBe("budget spent");
      expect(error.rpcCode).toBe(-32000);
      expect(error.httpStatus).toBe(403);
      expect(error.data).toEqual({ resetAt: "2030-01-01T00:00:00Z" });
    });
  });

  describe("when the error has no usable aoCode", () => {
    it.each<{ name: string; data: Record<string, unknown> | undefined }>([
      { name: "no data", data: undefined },
      { name: "a non-string aoCode", data: { aoCode: 5 } },
      { name: "a code outside AO_ERR_*", data: { aoCode: "EVIL; rm -rf" } },
    ])("uses AO_ERR_IPC_REMOTE for $name and keeps the number", ({ data }) => {
      const error = rebuildError({ code: -32601, message: "Method not found", ...(data ? { data } : {}) });
      expect(error.code).toBe("AO_ERR_IPC_REMOTE");
      expect(error.data).toMatchObject({ rpcCode: -32601 });
      expect(error.httpStatus).toBeUndefined();
    });
  });
});
