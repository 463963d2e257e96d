/**
 * A small parser for the Prometheus text exposition format
 * (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format), enough to check
 * our own /metrics output in tests and for tools that read a scrape: `# HELP`, `# TYPE`, `# UNIT`
 * lines and samples `name{label="value",...} value [timestamp]`. Problems are collected with their
 * line number instead of thrown, so a test can assert "no problems" and see them all at once.
 */

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PrometheusFamily {
  readonly name: string;
  type?: string;
  help?: string;
  unit?: string;
}

export interface PrometheusScrape {
  readonly families: ReadonlyMap<string, PrometheusFamily>;
  readonly samples: readonly PrometheusSample[];
  readonly problems: readonly string[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function parseValue(text: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  return text.trim() === "" ? Number.NaN : Number(text);
}

/** Parses `{a="x",b="y"}` starting at `text[0] === "{"`; returns the labels and the rest of the line. */
function parseLabels(text: string): { labels: Record<string, string>; rest: string } | string {
  const labels: Record<string, string> = {};
  let i = 1;
  while (i < text.length) {
    while (text[i] === " " || text[i] === ",") i++;
    if (text[i] === "}") return { labels, rest: text.slice(i + 1) };
    const name = LABEL_NAME.exec(text.slice(i))?.[0];
    if (name === undefined) return `bad label name at "${text.slice(i, i + 20)}"`;
    i += name.length;
    if (text[i] !== "=" || text[i + 1] !== '"') return `label ${name}: expected ="`;
    i += 2;
    let value = "";
    for (;;) {
      const ch = text[i];
      if (ch === undefined) return `label ${name}: unterminated value`;
      if (ch === "\\") {
        const next = text[i + 1];
        value += next === "n" ? "\n" : (next ?? "");
        i += 2;
        continue;
      }
      if (ch === '"') break;
      value += ch;
      i++;
    }
    i++;
    labels[name] = value;
  }
  return "unterminated label set";
}

export function parsePrometheusText(text: string): PrometheusScrape {
  const families = new Map<string, PrometheusFamily>();
  const samples: PrometheusSample[] = [];
  const problems: string[] = [];
  const family = (name: string): PrometheusFamily => {
    let f = families.get(name);
    if (f === undefined) {
      f = { name };
      families.set(name, f);
    }
    return f;
  };
  text.split("\n").forEach((rawLine, index) => {
    const line = rawLine.trim();
    const where = `line ${index + 1}`;
    if (line === "") return;
    if (line.startsWith("#")) {
      const match = /^#\s+(HELP|TYPE|UNIT)\s+(\S+)(?:\s+(.*))?$/.exec(line);
      if (!match) return; // other comments are allowed
      const [, kind, name, rest] = match as unknown as [string, string, string, string | undefined];
      if (kind === "TYPE") family(name).type = rest ?? "";
      else if (kind === "HELP") family(name).help = rest ?? "";
      else family(name).unit = rest ?? "";
      return;
    }
    const name = NAME.exec(line)?.[0];
    if (name === undefined) {
      problems.push(`${where}: no metric name in "${line.slice(0, 40)}"`);
      return;
    }
    let rest = line.slice(name.length);
    let labels: Record<string, string> = {};
    if (rest.startsWith("{")) {
      const parsed = parseLabels(rest);
      if (typeof parsed === "string") {
        problems.push(`${where}: ${parsed}`);
        return;
      }
      labels = parsed.labels;
      rest = parsed.rest;
    }
    const [valueText] = rest.trim().split(/\s+/);
    const value = parseValue(valueText ?? "");
    if (Number.isNaN(value) && valueText !== "NaN") {
      problems.push(`${where}: ${name} has no numeric value`);
      return;
    }
    samples.push({ name, labels, value });
  });
  return { families, samples, problems };
}

/** Samples of one series name whose labels include every given label. */
export function findSamples(
  scrape: PrometheusScrape,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): PrometheusSample[] {
  return scrape.samples.filter(
    (sample) =>
      sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  );
}

/** Sum of the values of matching samples (0 when none). */
export function sumSamples(
  scrape: PrometheusScrape,
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number {
  return findSamples(scrape, name, labels).reduce((total, sample) => total + sample.value, 0);
}
