import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger, scrubSecrets } from "../../../common/index.js";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  return { lines, destination };
}

describe("logger", () => {
  const pat = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

  it("redacts authorization headers and token fields by path", () => {
    const { lines, destination } = capture();
    const log = createLogger({ destination, level: "debug" });
    log.info({ req: { headers: { authorization: `token ${pat}` } }, token: pat }, "request");
    log.debug({ headers: { authorization: "Bearer x" } }, "debug line");
    const text = lines.join("");
    expect(text).not.toContain(pat);
    expect(text).toContain("[REDACTED]");
  });

  it("scrubs a registered secret wherever it appears in a line, even inside messages", () => {
    const { lines, destination } = capture();
    const log = createLogger({ destination, secrets: () => [pat] });
    log.error({ err: new Error(`upstream said: bad credentials for ${pat}`) }, `failed with ${pat}`);
    const text = lines.join("");
    expect(text).not.toContain(pat);
    expect(text.match(/\[REDACTED\]/g)?.length).toBeGreaterThanOrEqual(2);
  });

  it("ignores secrets too short to be meaningful rather than mangling every line", () => {
    expect(scrubSecrets("a b c", ["a"])).toBe("a b c");
  });
});
