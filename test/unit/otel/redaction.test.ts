import { describe, expect, it } from "vitest";
import { containsSecret, REDACTED, redactArgs, scrubText } from "../../../otel/index.js";

const PAT = "ghp_0123456789abcdefghijABCDEFGHIJ012345";

describe("scrubText", () => {
  it.each([
    { name: "classic PAT", text: `token is ${PAT}.`, expected: "token is [REDACTED]." },
    { name: "fine-grained PAT", text: "github_pat_11ABCDEFG0123456789_abcdef", expected: REDACTED },
    {
      name: "OAuth and app tokens",
      text: "gho_abcdefgh1234 ghs_abcdefgh1234",
      expected: "[REDACTED] [REDACTED]",
    },
    { name: "broker session token", text: "aob_s_AbCdEf0123456789-_xyz", expected: REDACTED },
    {
      name: "Authorization header text",
      text: "Authorization: Bearer abc.def.ghi",
      expected: "Authorization: [REDACTED]",
    },
    { name: "harmless text", text: "gh pr view 5 --json title", expected: "gh pr view 5 --json title" },
  ])("$name", ({ text, expected }) => {
    expect(scrubText(text)).toBe(expected);
  });

  it("replaces registered secrets of any shape but ignores ones shorter than 8 characters", () => {
    expect(scrubText("x=hunter2-long-secret;", ["hunter2-long-secret"])).toBe("x=[REDACTED];");
    expect(scrubText("abc", ["abc"])).toBe("abc");
    expect(containsSecret("nothing here", ["other-secret"])).toBe(false);
    expect(containsSecret(`a ${PAT}`)).toBe(true);
  });
});

describe("redactArgs", () => {
  it.each([
    {
      name: "-H Authorization",
      args: ["api", "-H", `Authorization: token ${PAT}`, "user"],
      expected: ["api", "-H", "Authorization: [REDACTED]", "user"],
    },
    {
      name: "attached -H and --header=",
      args: ["api", "-HAuthorization: Bearer x", "--header=authorization: token y", "user"],
      expected: ["api", "-HAuthorization: [REDACTED]", "--header=authorization: [REDACTED]", "user"],
    },
    {
      name: "credential fields",
      args: ["api", "x", "-f", "token=abc", "-F", "client_secret=s", "-f", "title=ok", "-fpassword=p"],
      expected: [
        "api",
        "x",
        "-f",
        "token=[REDACTED]",
        "-F",
        "client_secret=[REDACTED]",
        "-f",
        "title=ok",
        "-fpassword=[REDACTED]",
      ],
    },
    {
      name: "--password and --token values",
      args: ["auth", "login", "--password", "pw", "--token=abc"],
      expected: ["auth", "login", "--password", REDACTED, `--token=${REDACTED}`],
    },
    {
      name: "gh secret set --body",
      args: ["secret", "set", "NAME", "--body", "value", "-b", "v2"],
      expected: ["secret", "set", "NAME", "--body", REDACTED, "-b", REDACTED],
    },
    {
      name: "a token anywhere",
      args: ["api", `repos/x?access=${PAT}`],
      expected: ["api", "repos/x?access=[REDACTED]"],
    },
    {
      name: "ordinary commands untouched",
      args: ["pr", "create", "--body", "Fixes #12", "--title", "t"],
      expected: ["pr", "create", "--body", "Fixes #12", "--title", "t"],
    },
  ])("$name", ({ args, expected }) => {
    expect(redactArgs(args)).toEqual(expected);
  });

  it("scrubs registered secrets and keeps the argument count", () => {
    const args = ["api", "-f", "query=my-private-value-123"];
    expect(redactArgs(args, ["my-private-value-123"])).toEqual(["api", "-f", "query=[REDACTED]"]);
  });
});
