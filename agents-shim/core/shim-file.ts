/**
 * What is already at DIR/gh, decided from its text: this shim (any version), AO's own bash wrapper
 * (which the installer keeps and chains to, because AO records `gh pr create` through it), or a
 * file of someone else's that must not be overwritten without --force.
 */
export const SHIM_MARKER = "# ao-broker-shim: gh";
export const GIT_HELPER_MARKER = "# ao-broker-shim: git";
/** The second line of the wrapper AO writes to ~/.ao/bin/gh (agent-orchestrator's GH_WRAPPER). */
export const AO_WRAPPER_MARKER = "# ao gh wrapper";

export type ExistingGh =
  | { readonly kind: "none" }
  | { readonly kind: "shim"; readonly version: string | undefined }
  | { readonly kind: "ao-wrapper" }
  | { readonly kind: "foreign" };

export function classifyGhFile(content: string | undefined): ExistingGh {
  if (content === undefined) return { kind: "none" };
  const head = content.slice(0, 4096);
  const lines = head.split("\n", 6);
  if (lines.some((line) => line.startsWith(SHIM_MARKER))) {
    const version = /^# version: (\S+)$/m.exec(head)?.[1];
    return { kind: "shim", version };
  }
  if (lines.some((line) => line.startsWith(AO_WRAPPER_MARKER))) return { kind: "ao-wrapper" };
  return { kind: "foreign" };
}
