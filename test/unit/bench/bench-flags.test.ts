import { describe, expect, it } from "vitest";
import { parseArms, parseBenchFlags, parseSessions } from "../../../bench/bench-flags.js";
import { isAoError } from "../../../common/index.js";

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (error) {
    return isAoError(error) ? error.code : "not an AoError";
  }
  return undefined;
};

describe("parseBenchFlags", () => {
  describe("when --target is given without --max-points", () => {
    it("refuses to start: a run against real GitHub needs a hard cap", () => {
      expect(
        code(() => parseBenchFlags({ target: "https://api.github.com", repo: "o/r" }, { GITHUB_TOKEN: "x" })),
      ).toBe("AO_ERR_BENCH_TARGET_NEEDS_CAP");
    });
  });

  describe("when --target names a token variable that is empty", () => {
    it("refuses with the variable's name", () => {
      expect(() =>
        parseBenchFlags(
          { target: "https://api.github.com", maxPoints: "50", tokenEnv: "MY_PAT", repo: "o/r" },
          {},
        ),
      ).toThrow(/MY_PAT/);
      expect(
        code(() =>
          parseBenchFlags(
            { target: "https://api.github.com", maxPoints: "50", tokenEnv: "MY_PAT", repo: "o/r" },
            { MY_PAT: "" },
          ),
        ),
      ).toBe("AO_ERR_BENCH_TARGET_NO_TOKEN");
    });
  });

  it("accepts a complete --target with its cap", () => {
    const parsed = parseBenchFlags(
      { target: "https://api.github.com/", maxPoints: "200", tokenEnv: "MY_PAT", repo: "acme/widgets" },
      { MY_PAT: "ghp_x" },
    );
    expect(parsed.target).toEqual({
      url: "https://api.github.com",
      tokenEnv: "MY_PAT",
      maxPoints: 200,
      repo: "acme/widgets",
    });
  });

  it.each([
    { name: "a cap of zero", flags: { maxPoints: "0" } },
    { name: "a cap over one hour's budget", flags: { maxPoints: "5001" } },
    { name: "no repository", flags: { maxPoints: "10", repo: "" } },
    { name: "a non-URL target", flags: { maxPoints: "10", target: "api.github.com" } },
  ])("refuses $name", ({ flags }) => {
    expect(
      code(() =>
        parseBenchFlags({ target: "https://api.github.com", repo: "o/r", ...flags }, { GITHUB_TOKEN: "x" }),
      ),
    ).toBe("AO_ERR_BENCH_OPTIONS_INVALID");
  });

  it("refuses target-only flags without --target, and --real-gh with it", () => {
    expect(code(() => parseBenchFlags({ maxPoints: "10" }))).toBe("AO_ERR_BENCH_OPTIONS_INVALID");
    expect(code(() => parseBenchFlags({ tokenEnv: "X" }))).toBe("AO_ERR_BENCH_OPTIONS_INVALID");
    expect(
      code(() =>
        parseBenchFlags(
          { target: "https://x.test", maxPoints: "5", repo: "o/r", realGh: true },
          { GITHUB_TOKEN: "t" },
        ),
      ),
    ).toBe("AO_ERR_BENCH_OPTIONS_INVALID");
  });

  it("--explain prints the per-answer breakdown of a simulator run, and is refused with --target", () => {
    expect(parseBenchFlags({ explain: true }).explain).toBe(true);
    expect(parseBenchFlags({}).explain).toBe(false);
    expect(() =>
      parseBenchFlags(
        { explain: true, target: "https://api.github.com", maxPoints: "5", repo: "o/r" },
        { GITHUB_TOKEN: "x" },
      ),
    ).toThrow(/--explain: .*cannot run with --target/);
  });

  it("--webhooks has the simulator deliver webhooks to the broker, and is refused with --target", () => {
    expect(parseBenchFlags({ webhooks: true }).options.webhooks).toBe(true);
    expect(parseBenchFlags({}).options.webhooks).toBeUndefined();
    expect(() =>
      parseBenchFlags(
        { webhooks: true, target: "https://api.github.com", maxPoints: "5", repo: "o/r" },
        { GITHUB_TOKEN: "x" },
      ),
    ).toThrow(/--webhooks: .*cannot run with --target/);
  });

  it("maps the simulator flags onto options", () => {
    const parsed = parseBenchFlags({
      quick: true,
      arms: "broker,direct",
      sessions: "5,20",
      windowS: "300",
      json: "o.json",
      progress: false,
    });
    expect(parsed.options).toEqual({
      quick: true,
      arms: ["broker", "direct"],
      sessions: [5, 20],
      windowS: 300,
      progress: false,
    });
    expect(parsed.json).toBe("o.json");
    expect(parsed.target).toBeUndefined();
  });

  it("--requests-per-s sets the plan's request rate (10 to 5000), beside --warmup-s; anything else is refused by name", () => {
    expect(parseBenchFlags({ requestsPerS: "250" }).options.plan).toEqual({ targetRequestsPerSecond: 250 });
    expect(parseBenchFlags({ requestsPerS: "400", warmupS: "30" }).options.plan).toEqual({
      warmupS: 30,
      targetRequestsPerSecond: 400,
    });
    expect(parseBenchFlags({}).options.plan).toBeUndefined();
    for (const bad of ["9", "5001", "fast", "-400"]) {
      expect(code(() => parseBenchFlags({ requestsPerS: bad }))).toBe("AO_ERR_BENCH_OPTIONS_INVALID");
      expect(() => parseBenchFlags({ requestsPerS: bad })).toThrow(
        /--requests-per-s: expected a number from 10 to 5000/,
      );
    }
  });
});

describe("parseArms / parseSessions", () => {
  it("names the bad value", () => {
    expect(() => parseArms("direct,ghproxy")).toThrow(/unknown arm "ghproxy"/);
    expect(() => parseSessions("5,x")).toThrow(/--sessions: expected an integer from 1 to 10000, got "x"/);
    expect(() => parseSessions("0")).toThrow(/--sessions/);
  });

  it("reads auto and de-duplicates arms", () => {
    expect(parseSessions(" auto ")).toBe("auto");
    expect(parseArms("proxy,proxy")).toEqual(["proxy"]);
  });
});
