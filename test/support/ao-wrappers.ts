/**
 * Test fixtures modelling what agent-orchestrator (AO) does with `~/.ao/bin`, written for these
 * tests from reading AO's current source (packages/core/src/agent-workspace-hooks.ts, gh-trace.ts):
 * the behaviour that matters to the shim, not AO's code.
 *
 * - AO writes its wrappers (gh, git, a metadata helper) and then `.ao-version` whenever that marker
 *   is absent or holds another version, each file atomically (temp file + rename), overwriting
 *   whatever `gh` was there.
 * - Its gh and git wrappers are bash scripts whose second line names them (`# ao gh wrapper`,
 *   `# ao git wrapper`). Each removes exactly its own directory from PATH (and nothing else), looks
 *   the real command up on what is left, and runs it as a child with the unchanged environment. The
 *   gh wrapper prefers `GH_PATH` when it is executable and not in its own directory, and records the
 *   PR URL of a successful `gh pr create` (only that command) in the session's metadata file; the
 *   git wrapper records the branch of a successful checkout/switch.
 * - An agent's PATH is `~/.ao/bin`, then `/usr/local/bin`, then the inherited PATH, deduplicated;
 *   agents get `GH_PATH=/usr/local/bin/gh`.
 * - AO's own gh calls (execGhObserved) run the first `gh` on PATH once `~/.ao/bin` is removed.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const AO_FIXTURE_VERSION = "0.6.0";

const STRIP_OWN_DIR = `self_dir="$(cd "$(dirname "$0")" && pwd)"
trimmed_path=""
IFS=: read -r -a path_parts <<< "$PATH"
for part in "\${path_parts[@]}"; do
  [[ -z "$part" || "$part" == "$self_dir" ]] && continue
  trimmed_path="\${trimmed_path:+$trimmed_path:}$part"
done
note_metadata() {
  [[ -n "\${AO_DATA_DIR:-}" && -n "\${AO_SESSION:-}" && -f "$AO_DATA_DIR/$AO_SESSION" ]] || return 0
  printf '%s=%s\\n' "$1" "$2" >> "$AO_DATA_DIR/$AO_SESSION"
}`;

export function aoGhWrapperText(version = AO_FIXTURE_VERSION): string {
  return `#!/usr/bin/env bash
# ao gh wrapper (ao-broker test fixture modelling AO's, wrapper version ${version})
${STRIP_OWN_DIR}
target=""
if [[ -n "\${GH_PATH:-}" && -x "$GH_PATH" ]]; then
  target_dir="$(cd "$(dirname "$GH_PATH")" 2>/dev/null && pwd)"
  [[ "$target_dir" != "$self_dir" ]] && target="$GH_PATH"
fi
[[ -n "$target" ]] || target="$(PATH="$trimmed_path" command -v gh 2>/dev/null)"
if [[ -z "$target" ]]; then echo "ao fixture: gh not found" >&2; exit 127; fi
if [[ "$1" == pr && "$2" == create ]]; then
  captured="$(mktemp)"
  "$target" "$@" 2>&1 | tee "$captured"
  status=\${PIPESTATUS[0]}
  if [[ $status -eq 0 ]]; then
    url="$(grep -Eo 'https?://[^/]+/[^/]+/[^/]+/pull/[0-9]+' "$captured" | head -1)"
    [[ -n "$url" ]] && note_metadata pr "$url"
  fi
  rm -f "$captured"
  exit $status
fi
"$target" "$@"
exit $?
`;
}

export function aoGitWrapperText(version = AO_FIXTURE_VERSION): string {
  return `#!/usr/bin/env bash
# ao git wrapper (ao-broker test fixture modelling AO's, wrapper version ${version})
${STRIP_OWN_DIR}
target="$(PATH="$trimmed_path" command -v git 2>/dev/null)"
if [[ -z "$target" ]]; then echo "ao fixture: git not found" >&2; exit 127; fi
"$target" "$@"
status=$?
if [[ $status -eq 0 ]]; then
  case "$1/$2" in
    checkout/-b | switch/-c) note_metadata branch "$3" ;;
    checkout/* | switch/*)
      branch="$2"
      [[ "$branch" == -* ]] && branch="$3"
      [[ -n "$branch" && "$branch" != HEAD && "$branch" != -* && "$branch" == *[/-]* ]] && note_metadata branch "$branch"
      ;;
  esac
fi
exit $status
`;
}

function writeAtomically(file: string, text: string, mode: number): void {
  const temp = `${file}.tmp.${process.pid}.${Math.random().toString(16).slice(2)}`;
  writeFileSync(temp, text, { mode });
  renameSync(temp, file);
}

/**
 * AO's workspace setup for an agent: writes the wrappers unless `.ao-version` already holds
 * `version`. Returns whether it wrote them.
 */
export function aoSetupWrappers(aoBin: string, version = AO_FIXTURE_VERSION): boolean {
  mkdirSync(aoBin, { recursive: true });
  const marker = join(aoBin, ".ao-version");
  let current: string | undefined;
  try {
    current = readFileSync(marker, "utf8").trim();
  } catch {
    current = undefined;
  }
  if (current === version) return false;
  writeAtomically(
    join(aoBin, "ao-metadata-helper.sh"),
    "#!/usr/bin/env bash\n# fixture: AO's metadata helper\n",
    0o755,
  );
  writeAtomically(join(aoBin, "gh"), aoGhWrapperText(version), 0o755);
  writeAtomically(join(aoBin, "git"), aoGitWrapperText(version), 0o755);
  writeAtomically(marker, version, 0o644);
  return true;
}

/** The PATH AO gives an agent. */
export function aoAgentPath(aoBin: string, inherited: string): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const entry of [aoBin, "/usr/local/bin", ...inherited.split(":")]) {
    if (!entry || seen.has(entry)) continue;
    seen.add(entry);
    out.push(entry);
  }
  return out.join(":");
}

/** The gh AO's own process runs (execGhObserved): the first gh on PATH once ~/.ao/bin is removed. */
export function aoOrchestratorGh(
  aoBin: string,
  pathValue: string,
  exists: (file: string) => boolean,
): string | undefined {
  for (const dir of pathValue.split(":")) {
    if (!dir || dir === aoBin) continue;
    if (exists(join(dir, "gh"))) return join(dir, "gh");
  }
  return undefined;
}
