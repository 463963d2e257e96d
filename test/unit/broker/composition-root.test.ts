/**
 * The composition root stays a composition root: each subsystem's start-up logic lives beside the
 * subsystem, and broker/create-broker.ts only calls the builders in order. The limit is on the
 * longest function (startBroker), counted in source lines.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const LIMIT = 100;

function functionLengths(path: string): { name: string; lines: number }[] {
  const source = ts.createSourceFile(path, readFileSync(path, "utf8"), ts.ScriptTarget.Latest, true);
  const found: { name: string; lines: number }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name && ts.isIdentifier(node.name) ? node.name.text : "(anonymous)";
      found.push({ name, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.sort((a, b) => b.lines - a.lines);
}

describe("broker/create-broker.ts", () => {
  it(`has no function longer than ${LIMIT} lines`, () => {
    const lengths = functionLengths("broker/create-broker.ts");
    expect(lengths.map((f) => f.name)).toContain("startBroker");
    expect(lengths[0]?.lines).toBeLessThanOrEqual(LIMIT);
  });
});
