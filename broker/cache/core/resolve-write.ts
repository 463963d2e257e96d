/**
 * From a write's effect (rest-facets.ts, graphql-analysis.ts) and the aliases learned from earlier
 * answers to the exact tags it moves. Pure: the caller fetches the aliases the effect asks for
 * (aliasesNeeded) and hands them in.
 */
import {
  branchTag,
  createdTags,
  type Facet,
  objectChangeTags,
  parseObjectKey,
  type Tag,
  unknownNodeTags,
} from "./facets.js";
import type { WriteEffect } from "./rest-facets.js";

export interface Aliases {
  /** Global id → `num:o/r#n` or `repo:o/r`. */
  readonly idObjects: ReadonlyMap<string, string>;
  /** `num:o/r#n` → its node ids. */
  readonly objectIds: ReadonlyMap<string, readonly string[]>;
  /** `num:o/r#n` → its head branch. */
  readonly objectBranch: ReadonlyMap<string, string>;
  /** branch tag → the `num:` objects whose head it is. */
  readonly branchObjects: ReadonlyMap<Tag, readonly string[]>;
}

export const NO_ALIASES: Aliases = {
  idObjects: new Map(),
  objectIds: new Map(),
  objectBranch: new Map(),
  branchObjects: new Map(),
};

export interface AliasRequest {
  readonly ids: string[];
  readonly objects: string[];
  readonly branches: Tag[];
}

/** Which aliases resolving this effect needs (objects reached through ids are asked in a second step). */
export function aliasesNeeded(effect: WriteEffect): AliasRequest {
  return {
    ids: [...effect.nodeIds.map((n) => n.id), ...(effect.createdIn ? [effect.createdIn.repositoryId] : [])],
    objects: effect.objects.map((o) => o.object),
    branches: effect.branches.map((b) => branchTag(b.owner, b.name, b.branch)),
  };
}

function objectTags(object: string, facets: readonly Facet[], aliases: Aliases, alsoId?: string): Tag[] {
  const ids = aliases.objectIds.get(object) ?? [];
  return objectChangeTags({
    object,
    facets,
    // The id a write names may not be among the learned ones yet (learned under another answer).
    ids: alsoId && !ids.includes(alsoId) ? [...ids, alsoId] : ids,
    branch: aliases.objectBranch.get(object),
  });
}

export function resolveWrite(effect: WriteEffect, aliases: Aliases): Tag[] {
  const tags = new Set<Tag>(effect.tags);
  const add = (list: Iterable<Tag>) => {
    for (const t of list) tags.add(t);
  };
  for (const { object, facets } of effect.objects) add(objectTags(object, facets, aliases));
  for (const { id, facets } of effect.nodeIds) {
    const object = aliases.idObjects.get(id);
    if (object && parseObjectKey(object)) add(objectTags(object, facets, aliases, id));
    else if (!object) add(unknownNodeTags(id));
  }
  for (const { owner, name, branch, facets } of effect.branches) {
    for (const object of aliases.branchObjects.get(branchTag(owner, name, branch)) ?? [])
      add(objectTags(object, facets, aliases));
  }
  if (effect.createdIn) {
    const repo = aliases.idObjects.get(effect.createdIn.repositoryId);
    const match = repo ? /^repo:([^/]+)\/(.+)$/.exec(repo) : null;
    if (match)
      add(
        createdTags(match[1] as string, match[2] as string, effect.createdIn.kind, effect.createdIn.branch),
      );
  }
  return [...tags];
}
