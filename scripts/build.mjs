// Bundles each entry point into dist/ with esbuild (our code only; packages stay external) and
// copies the Lua scripts next to the bundle, where broker/redis/lua-scripts.ts finds them, and the
// agents shim's shell templates, where agents-shim/shim-assets.ts finds them. shim-helper.js is
// the shim's own small entry: the installed gh script runs it with node on its slow paths.
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync } from "node:fs";
import { build } from "esbuild";

const entries = {
  cli: "cli/main.ts",
  "shim-helper": "agents-shim/helper-main.ts",
  // Started by otel/worker-span-exporter.ts as a worker thread: it must be a file of its own.
  "otel-export-worker": "otel/span-export-worker.ts",
};
mkdirSync("dist", { recursive: true });
await build({
  entryPoints: entries,
  outdir: "dist",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  packages: "external",
  sourcemap: true,
  banner: { js: "#!/usr/bin/env node" },
  logLevel: "warning",
});
chmodSync("dist/cli.js", 0o755);
if (existsSync("broker/redis/lua")) {
  mkdirSync("dist/lua", { recursive: true });
  for (const file of readdirSync("broker/redis/lua")) {
    if (file.endsWith(".lua")) cpSync(`broker/redis/lua/${file}`, `dist/lua/${file}`);
  }
}
if (existsSync("agents-shim/template")) {
  mkdirSync("dist/agents-shim", { recursive: true });
  for (const file of readdirSync("agents-shim/template")) {
    if (file.endsWith(".sh")) cpSync(`agents-shim/template/${file}`, `dist/agents-shim/${file}`);
  }
}
