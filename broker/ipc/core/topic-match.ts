/**
 * Which subscriptions receive an event: a pattern is `*` (every topic), `prefix.*` (every topic
 * under `prefix.`, any depth) or an exact topic. Pure. An empty pattern list means every topic.
 */
export function normalizeTopics(topics: readonly string[] | undefined): string[] {
  if (topics === undefined || topics.length === 0 || topics.includes("*")) return ["*"];
  return [...new Set(topics)];
}

export function topicMatches(patterns: readonly string[], topic: string): boolean {
  for (const pattern of patterns) {
    if (pattern === "*" || pattern === topic) return true;
    if (pattern.endsWith(".*") && topic.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}
