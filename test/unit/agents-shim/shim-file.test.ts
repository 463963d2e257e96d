import { describe, expect, it } from "vitest";
import { classifyGhFile } from "../../../agents-shim/core/shim-file.js";

const AO_WRAPPER = `#!/usr/bin/env bash
# ao gh wrapper — auto-updates session metadata on PR operations

ao_bin_dir="$(cd "$(dirname "$0")" && pwd)"
`;

describe("classifyGhFile", () => {
  it.each([
    { name: "no file", content: undefined, kind: "none" },
    {
      name: "this shim",
      content: "#!/bin/sh\n# ao-broker-shim: gh (marker)\n# version: 0.0.9\n",
      kind: "shim",
    },
    { name: "AO's wrapper", content: AO_WRAPPER, kind: "ao-wrapper" },
    { name: "a binary", content: "\u007fELF\u0002\u0001\u0001\u0000", kind: "foreign" },
    { name: "someone else's script", content: '#!/bin/sh\nexec /opt/gh "$@"\n', kind: "foreign" },
    {
      name: "a script that merely mentions the marker further down",
      content: `#!/bin/sh\n${"echo\n".repeat(10)}# ao-broker-shim: gh\n`,
      kind: "foreign",
    },
  ])("recognises $name", ({ content, kind }) => {
    expect(classifyGhFile(content).kind).toBe(kind);
  });

  it("reads the version of an installed shim", () => {
    expect(classifyGhFile("#!/bin/sh\n# ao-broker-shim: gh\n# version: 1.2.3\n")).toEqual({
      kind: "shim",
      version: "1.2.3",
    });
  });
});
