// Module boundaries, checked on every `npm run check`:
//  1. A folder is a module: code outside folder F imports F only through F/index.ts.
//  2. No import circles between folders, and none between files (type-only imports count: a
//     circle of types couples the files just as much; docs/decisions/0011-house-structure.md).
//  3. Pure cores (any directory named `core/`) import no I/O: no node:fs/net/http/child_process,
//     no Redis, BullMQ, HTTP clients or OpenTelemetry. They take `now`/`rng` as arguments instead.
//     A core may call another folder's pure functions through that folder's index.ts.
//  4. The daemon does not depend on its test doubles: broker/ imports neither github-sim/ nor bench/
//     (`ao-broker start --simulate` starts the simulator in cli/ and hands it in).
//  5. The repository is self-contained: no file refers to the pre-repository planning notes (the
//     style note, the design brief, the shared folder beside the checkout); what they said that
//     matters lives in docs/CONTRIBUTING.md and docs/architecture.md.
// test/ and scripts/ may reach inside folders (white-box tests); everything else may not.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";

const ROOT = process.cwd();
const MODULES = [
  "agents-shim",
  "bench",
  "broker",
  "cli",
  "client",
  "common",
  "github",
  "github-sim",
  "lifecycle",
  "otel",
];
const EXEMPT = new Set(["test", "scripts"]);
/** Folder → folders it must never import, whatever the index says. */
const FORBIDDEN = new Map([["broker", ["github-sim", "bench"]]]);
const IO_PACKAGES = [
  /^node:(fs|net|http|https|http2|child_process|dgram|dns|tls|worker_threads|cluster)(\/|$)/,
  /^(fs|net|http|https|child_process)$/,
  /^ioredis$/,
  /^bullmq/,
  /^undici/,
  /^@octokit\/(request|core|graphql)$/,
  /^@opentelemetry\//,
  /^pino/,
];

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walk(full, out);
    else if (/\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const importRe =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
const problems = [];
const edges = new Map();
/** File → the repository files it imports (relative paths, resolved to .ts). */
const fileEdges = new Map();

function resolveFile(fromFile, spec) {
  const base = resolve(dirname(fromFile), spec);
  for (const candidate of [base.replace(/\.(m?)js$/, ".$1ts"), base, join(base, "index.ts")]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(ROOT, candidate);
  }
  return undefined;
}
for (const mod of [...MODULES, ...EXEMPT]) {
  let files = [];
  try {
    files = walk(join(ROOT, mod));
  } catch {
    continue;
  }
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const rel = relative(ROOT, file);
    const isCore = rel.split(sep).includes("core");
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2];
      if (!spec) continue;
      if (isCore && IO_PACKAGES.some((re) => re.test(spec)))
        problems.push(`${rel}: pure core imports I/O module "${spec}"`);
      if (!spec.startsWith(".")) continue;
      const targetFile = resolveFile(file, spec);
      if (targetFile && /\.m?ts$/.test(targetFile)) {
        if (!fileEdges.has(rel)) fileEdges.set(rel, new Set());
        fileEdges.get(rel).add(targetFile);
      }
      const target = relative(ROOT, resolve(dirname(file), spec));
      const targetMod = target.split(sep)[0];
      if (targetMod === mod || EXEMPT.has(mod)) continue;
      if (FORBIDDEN.get(mod)?.includes(targetMod))
        problems.push(`${rel}: imports "${spec}"; ${mod}/ must not depend on ${targetMod}/`);
      const expected = [`${targetMod}/index.js`, `${targetMod}/index.ts`];
      if (!expected.includes(target.split(sep).join("/"))) {
        problems.push(
          `${rel}: imports "${spec}"; other folders are reached only through ${targetMod}/index.ts`,
        );
      }
      if (!edges.has(mod)) edges.set(mod, new Set());
      edges.get(mod).add(targetMod);
    }
  }
}
// Citations of files outside the repository. The pattern is spelled so this file does not match it.
const OUTSIDE_CITATION = /\b(?:STYLE|DESIGN)\.md\b|\.\.\/shared\b|\bshared\/reference\b/;
function walkAll(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === "node_modules" || name === "dist" || name.startsWith(".")) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) walkAll(full, out);
    else out.push(full);
  }
  return out;
}
for (const file of walkAll(ROOT)) {
  if (/\.(png|svg|gz|zip|tgz|lock)$/.test(file) || statSync(file).size > 2_000_000) continue;
  const lines = readFileSync(file, "utf8").split("\n");
  lines.forEach((line, i) => {
    if (OUTSIDE_CITATION.test(line))
      problems.push(
        `${relative(ROOT, file)}:${i + 1}: cites a file outside the repository; cite docs/ instead`,
      );
  });
}

// Folder-level cycles (depth-first search with colours).
const colour = new Map();
const stack = [];
function visit(node) {
  colour.set(node, "grey");
  stack.push(node);
  for (const next of edges.get(node) ?? []) {
    if (colour.get(next) === "grey")
      problems.push(`import circle: ${[...stack.slice(stack.indexOf(next)), next].join(" -> ")}`);
    else if (!colour.has(next)) visit(next);
  }
  stack.pop();
  colour.set(node, "black");
}
for (const mod of edges.keys()) if (!colour.has(mod)) visit(mod);

// File-level circles: strongly connected components (Tarjan), each reported once with its files.
{
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const sccStack = [];
  const strongConnect = (file) => {
    index.set(file, counter);
    low.set(file, counter);
    counter++;
    sccStack.push(file);
    onStack.add(file);
    for (const next of fileEdges.get(file) ?? []) {
      if (!index.has(next)) {
        strongConnect(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), index.get(next)));
    }
    if (low.get(file) !== index.get(file)) return;
    const component = [];
    let member;
    do {
      member = sccStack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfLoop = fileEdges.get(file)?.has(file);
    if (component.length > 1 || selfLoop) {
      const inCircle = new Set(component);
      const lines = component
        .sort()
        .map((f) => `  ${f} -> ${[...fileEdges.get(f)].filter((t) => inCircle.has(t)).join(", ")}`);
      problems.push(`file import circle (${component.length} files):\n${lines.join("\n")}`);
    }
  };
  for (const file of fileEdges.keys()) if (!index.has(file)) strongConnect(file);
}
if (problems.length > 0) {
  console.error(problems.join("\n"));
  process.exit(1);
}
console.log(
  `boundaries ok, no file circles among ${fileEdges.size} files (${[...edges].map(([k, v]) => `${k} -> ${[...v].join(",")}`).join("; ")})`,
);
