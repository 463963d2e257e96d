import { describe, expect, it } from "vitest";
import { normalizeTopics, topicMatches } from "../../../../broker/ipc/core/topic-match.js";

describe("topicMatches", () => {
  it.each([
    { name: "star matches anything", patterns: ["*"], topic: "a.b", expected: true },
    { name: "exact match", patterns: ["budget.low"], topic: "budget.low", expected: true },
    { name: "exact mismatch", patterns: ["budget.low"], topic: "budget.lower", expected: false },
    {
      name: "prefix matches one level down",
      patterns: ["lifecycle.*"],
      topic: "lifecycle.pr",
      expected: true,
    },
    {
      name: "prefix matches any depth",
      patterns: ["lifecycle.*"],
      topic: "lifecycle.pr.merged",
      expected: true,
    },
    { name: "prefix does not match itself", patterns: ["lifecycle.*"], topic: "lifecycle", expected: false },
    {
      name: "prefix does not match a longer word",
      patterns: ["lifecycle.*"],
      topic: "lifecycles.x",
      expected: false,
    },
    { name: "any of several patterns", patterns: ["a", "b.*"], topic: "b.c", expected: true },
    { name: "no pattern", patterns: [], topic: "a", expected: false },
  ])("$name", ({ patterns, topic, expected }) => {
    expect(topicMatches(patterns, topic)).toBe(expected);
  });
});

describe("normalizeTopics", () => {
  it.each([
    { name: "absent means all", topics: undefined, expected: ["*"] },
    { name: "empty means all", topics: [], expected: ["*"] },
    { name: "a star among others means all", topics: ["a", "*"], expected: ["*"] },
    { name: "duplicates collapse", topics: ["a", "a", "b.*"], expected: ["a", "b.*"] },
  ])("$name", ({ topics, expected }) => {
    expect(normalizeTopics(topics)).toEqual(expected);
  });
});
