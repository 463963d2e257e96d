/**
 * GraphQL views of people and small shared objects: User / Bot / Organization (Actor,
 * RepositoryOwner), Label, author association. A view is a plain object whose properties are
 * GitHub's field names; fields the simulator does not model fall back to type defaults in the
 * executor (graphql-handler.ts), so any valid query runs.
 */
import type { SimLabel, SimRepo, SimUser } from "../../core/model.js";
import { type GqlContext, isoTime } from "../context.js";

export type View = Record<string, unknown> & { readonly __typename: string };

export function actorView(ctx: GqlContext, login: string | null): View | null {
  if (!login) return null;
  const user = ctx.world.user(login);
  if (!user) return ghostView(ctx);
  return userView(ctx, user);
}

export function userView(ctx: GqlContext, user: SimUser): View {
  const url = `${ctx.webBase}/${user.type === "Bot" ? "apps/" : ""}${user.login}`;
  return {
    __typename: user.type,
    id: user.nodeId,
    databaseId: user.id,
    login: user.login,
    name: user.name,
    email: user.email ?? "",
    url,
    resourcePath: `/${user.login}`,
    avatarUrl: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    createdAt: isoTime(user.createdAt),
    updatedAt: isoTime(user.createdAt),
    isViewer: user.login === ctx.world.viewer,
    company: null,
    bio: "",
    location: null,
  };
}

/** GitHub's stand-in for a deleted account. */
function ghostView(ctx: GqlContext): View {
  return {
    __typename: "User",
    id: "MDQ6VXNlcjEwMTM3",
    databaseId: 10137,
    login: "ghost",
    name: "Deleted user",
    url: `${ctx.webBase}/ghost`,
    avatarUrl: "https://avatars.githubusercontent.com/u/10137?v=4",
  };
}

export function ownerView(ctx: GqlContext, repo: SimRepo): View {
  const owner = ctx.world.user(repo.owner);
  return owner
    ? userView(ctx, owner)
    : { __typename: "Organization", login: repo.owner, id: "", name: repo.owner };
}

export function labelView(ctx: GqlContext, repo: SimRepo, label: SimLabel): View {
  return {
    __typename: "Label",
    id: label.nodeId,
    name: label.name,
    color: label.color,
    description: label.description,
    isDefault: label.isDefault,
    createdAt: isoTime(label.createdAt),
    updatedAt: isoTime(label.createdAt),
    url: `${ctx.webBase}/${repo.fullName}/labels/${encodeURIComponent(label.name)}`,
    resourcePath: `/${repo.fullName}/labels/${encodeURIComponent(label.name)}`,
  };
}

/** Labels of an issue or PR, in the repository's label order. */
export function labelsOf(repo: SimRepo, names: readonly string[]): SimLabel[] {
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return repo.labels.filter((l) => wanted.has(l.name.toLowerCase()));
}

export function usersOf(ctx: GqlContext, logins: readonly string[]): View[] {
  return logins.map((login) => actorView(ctx, login)).filter((v): v is View => v !== null);
}

export { authorAssociation } from "../../core/derived-state.js";
