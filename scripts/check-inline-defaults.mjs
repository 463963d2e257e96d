// Configuration from one source, checked on every `npm run check`: a number a caller may leave out
// takes its default from a settings schema (broker/config/config-schema.ts and the subsystem
// schemas it composes, `<folder>/*-settings.ts`; lifecycle/config.ts), never from an inline
// `?? 30_000`, `|| 5` or `timeoutMs = 60_000` in broker/ or lifecycle/. 0, 1 and -1 are not
// defaults but absent-value identities (an unset counter, a neutral weight) and are not flagged.
// The ALLOWED list names the few numbers that are facts or invariants rather than settings.
// docs/CONTRIBUTING.md, "Configuration"; docs/decisions/0017-one-request-model-and-settings.md.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";

const ROOT = process.cwd();
const SCOPE = ["broker", "lifecycle"];
const SCHEMA_FILES = new Set([
  "broker/config/config-schema.ts",
  "broker/config/schema-parts.ts",
  "lifecycle/config.ts",
]);
const isSchemaFile = (rel) => SCHEMA_FILES.has(rel) || /-settings\.ts$/.test(rel);

/** [file, text the flagged expression contains, why it is not a setting]. */
export const ALLOWED = [
  [
    "broker/gateway/error-reply.ts",
    "context.status ?? 403",
    "the HTTP status GitHub gives a refusal, a protocol fact",
  ],
  [
    "broker/gateway/error-reply.ts",
    "error.httpStatus ?? 502",
    "the HTTP status of an upstream failure, a protocol fact",
  ],
  [
    "broker/ipc/ipc-server.ts",
    "options.mode ?? 0o600",
    "the socket's permissions, a security invariant (docs/SECURITY.md)",
  ],
  [
    "broker/redis/embedded-redis.ts",
    "timeoutMs = 500",
    "a PING on a local socket; the callers that matter pass their own",
  ],
  ["broker/sessions/core/identifiers.ts", "maxLength = 200", "display length of an argv summary, a format"],
  ["lifecycle/core/pr-facts.ts", "STATUS_RANK[c.status] ?? 2", "a sort rank, not a quantity"],
  [
    "broker/upstream/core/secondary-window.ts",
    "buckets = 60",
    "a secondary-limit minute is 60 one-second buckets (GitHub's window), not a setting",
  ],
  [
    "broker/upstream/upstream-queue.ts",
    "options.endpoints ?? 10",
    "rows of a display (busiest endpoints), a format",
  ],
];

const NUM = String.raw`-?(?:0[xob][0-9a-fA-F_]+|[0-9][0-9_]*(?:\.[0-9_]+)?(?:e[0-9]+)?)(?:\s*\*\s*[0-9][0-9_]*)*`;
const PATTERNS = [
  new RegExp(String.raw`(?:\?\?=?|\|\|)\s*\(?(${NUM})\)?(?![\w.])`, "g"),
  new RegExp(String.raw`[(,{]\s*#?\w+\s*(?::\s*[\w.<>|\[\] ]+)?\s*=\s*(${NUM})\s*(?=[,)}])`, "g"),
  new RegExp(
    String.raw`^[ \t]*\w+[ \t]*(?::[ \t]*[\w.<>|\[\] ]+)?[ \t]*=[ \t]*(${NUM})[ \t]*,?[ \t]*$`,
    "gm",
  ),
];
const IDENTITIES = new Set(["0", "1", "-1"]);

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.ts$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

/** Blanks comments, keeping line numbers (strings stay: a number in one is rarely `?? n`). */
function codeOnly(text) {
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, " "))
    .replace(/(^|[\s;{}(),])\/\/[^\n]*/g, "$1");
}

export function findInlineDefaults(root = ROOT) {
  const found = [];
  for (const top of SCOPE) {
    let files = [];
    try {
      files = walk(join(root, top));
    } catch {
      continue;
    }
    for (const file of files) {
      const rel = relative(root, file).split(sep).join("/");
      if (isSchemaFile(rel)) continue;
      const code = codeOnly(readFileSync(file, "utf8"));
      const lines = code.split("\n");
      for (const re of PATTERNS) {
        for (const m of code.matchAll(re)) {
          if (IDENTITIES.has(m[1].replace(/_/g, ""))) continue;
          const line = code.slice(0, m.index + m[0].lastIndexOf(m[1])).split("\n").length;
          const text = lines[line - 1].trim();
          if (ALLOWED.some(([f, snippet]) => f === rel && text.includes(snippet))) continue;
          found.push({ file: rel, line, text });
        }
      }
    }
  }
  return found;
}

if (process.argv[1]?.endsWith("check-inline-defaults.mjs")) {
  const found = findInlineDefaults();
  if (found.length > 0) {
    console.error(
      found
        .map(
          (f) => `${f.file}:${f.line}: inline numeric default \`${f.text}\`; take it from a settings schema`,
        )
        .join("\n"),
    );
    process.exit(1);
  }
  console.log("inline defaults ok: every numeric default comes from a settings schema");
}
