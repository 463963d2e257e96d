/**
 * Who a gh command belongs to when AO did not say. AO gives every agent AO_SESSION_ID; without it
 * the shim keeps one session per worktree (its git top-level directory), and one per OS user
 * outside any checkout. Ids must satisfy the broker's session-id shape (1–128 of A-Z a-z 0-9
 * . _ : @ + -, starting with a letter or digit), so paths are reduced to a readable name plus a
 * hash that keeps two worktrees with the same name apart.
 */
import { createHash } from "node:crypto";

const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/;

export function isSessionId(value: string): boolean {
  return SESSION_ID.test(value);
}

function slug(value: string, max: number): string {
  const s = value
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[^A-Za-z0-9]+/, "")
    .slice(0, max)
    .replace(/[-.]+$/, "");
  return s || "x";
}

/** `wt-<directory name>-<10 hex of sha256(path)>`, stable for a worktree path. */
export function worktreeSessionId(toplevel: string): string {
  const trimmed = toplevel.replace(/\/+$/, "") || "/";
  const base = trimmed.split("/").pop() || "root";
  const hash = createHash("sha256").update(trimmed).digest("hex").slice(0, 10);
  return `wt-${slug(base, 40)}-${hash}`;
}

/** `local-<user>`: gh run outside any checkout and outside AO. */
export function localSessionId(user: string): string {
  return `local-${slug(user || "user", 60)}`;
}

const REPO = /^([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100})$/;

/**
 * `owner/name` from what a person or gh may write for a GitHub repository: `o/r`, `github.com/o/r`,
 * `github.localhost/o/r`, `https://github.com/o/r(.git)`, `git@github.com:o/r.git`,
 * `ssh://git@github.com/o/r`. Other hosts (GitHub Enterprise) are not the broker's: undefined.
 */
export function normalizeRepo(value: string): string | undefined {
  let v = value.trim();
  if (v === "") return undefined;
  v = v.replace(/^(?:https?|ssh|git):\/\/(?:[^@/]+@)?/, "").replace(/^[^@/:]+@([^:/]+):/, "$1/");
  const parts = v.split("/").filter(Boolean);
  if (parts.length === 3) {
    const host = (parts[0] ?? "").toLowerCase();
    if (!["github.com", "www.github.com", "github.localhost", "api.github.com"].includes(host))
      return undefined;
    parts.shift();
  }
  if (parts.length !== 2) return undefined;
  const repo = `${parts[0]}/${(parts[1] ?? "").replace(/\.git$/, "")}`;
  const match = REPO.exec(repo);
  if (!match || match[2] === "." || match[2] === "..") return undefined;
  return repo;
}

/**
 * The repository of a checkout from `git remote -v` output: origin's, else upstream's, else the
 * first remote on github.com.
 */
export function repoFromRemotes(remoteV: string): string | undefined {
  const remotes = new Map<string, string>();
  for (const line of remoteV.split("\n")) {
    const match = /^(\S+)\s+(\S+)\s+\((fetch|push)\)/.exec(line.trim());
    if (!match) continue;
    const [, name, url] = match as unknown as [string, string, string];
    const repo = /github\.(?:com|localhost)[:/]/.test(url) ? normalizeRepo(url) : undefined;
    if (repo && !remotes.has(name)) remotes.set(name, repo);
  }
  return remotes.get("origin") ?? remotes.get("upstream") ?? remotes.values().next().value;
}
