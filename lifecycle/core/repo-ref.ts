/**
 * Repository names and PR keys. Names are checked against GitHub's own character set before they
 * reach a query or a URL path: the query builders inline them as GraphQL string literals and the
 * guards put them in REST paths, so anything outside [A-Za-z0-9_.-] is refused up front.
 * A PR key is AO's "owner/repo#number", the key of its PREnrichmentData map.
 */
const NAME_PART = /^[A-Za-z0-9_.-]{1,100}$/;

export interface RepoRef {
  readonly owner: string;
  readonly name: string;
}

/** `owner/name` → parts, or undefined when either part is not a GitHub-style name. */
export function parseRepo(repo: string): RepoRef | undefined {
  const parts = repo.split("/");
  if (parts.length !== 2) return undefined;
  const [owner, name] = parts as [string, string];
  if (!NAME_PART.test(owner) || !NAME_PART.test(name) || owner === "." || name === "..") return undefined;
  return { owner, name };
}

/** GitHub treats repository names case-insensitively; keys compare in lower case. */
export function normalizeRepo(repo: string): string {
  return repo.toLowerCase();
}

export function prKey(repo: string, number: number): string {
  return `${normalizeRepo(repo)}#${number}`;
}

/** Branch names as git allows them, minus what would be unsafe to inline (control characters). */
export function isValidBranch(branch: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  return branch.length > 0 && branch.length <= 255 && !/[\u0000-\u001f\u007f\s~^:?*[\\]/.test(branch);
}

export function isValidPrNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0 && value < 2 ** 31;
}
