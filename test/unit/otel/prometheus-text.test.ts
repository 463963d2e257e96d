import { describe, expect, it } from "vitest";
import { findSamples, parsePrometheusText, sumSamples } from "../../../otel/index.js";

const TEXT = `# HELP http_requests_total The total.
# TYPE http_requests_total counter
# UNIT http_requests_total {request}
http_requests_total{method="post",code="200"} 1027 1395066363000
http_requests_total{method="post",code="400"}    3
# a free comment
msdos_file_access_time_seconds{path="C:\\\\DIR\\\\FILE.TXT",error="Cannot find file:\\n\\"FILE.TXT\\""} 1.458255915e9
metric_without_timestamp_and_labels 12.47
h_bucket{le="+Inf"} 5
neg -Inf
`;

describe("parsePrometheusText", () => {
  it("reads families, labels with escapes, special values and ignores comments", () => {
    const scrape = parsePrometheusText(TEXT);
    expect(scrape.problems).toEqual([]);
    expect(scrape.families.get("http_requests_total")).toEqual({
      name: "http_requests_total",
      help: "The total.",
      type: "counter",
      unit: "{request}",
    });
    expect(sumSamples(scrape, "http_requests_total")).toBe(1030);
    expect(findSamples(scrape, "http_requests_total", { code: "400" })[0]?.value).toBe(3);
    expect(findSamples(scrape, "msdos_file_access_time_seconds")[0]?.labels).toEqual({
      path: "C:\\DIR\\FILE.TXT",
      error: 'Cannot find file:\n"FILE.TXT"',
    });
    expect(findSamples(scrape, "neg")[0]?.value).toBe(Number.NEGATIVE_INFINITY);
    expect(findSamples(scrape, "h_bucket", { le: "+Inf" })[0]?.value).toBe(5);
  });

  it("collects problems with line numbers instead of throwing", () => {
    const scrape = parsePrometheusText('ok 1\n{bad="x"} 1\nm{l="unterminated} 1\nm2 notanumber\n');
    expect(scrape.samples.map((s) => s.name)).toEqual(["ok"]);
    expect(scrape.problems).toHaveLength(3);
    expect(scrape.problems[0]).toMatch(/^line 2:/);
  });
});
