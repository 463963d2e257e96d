/**
 * The Query root: repository, viewer, user/organization, node/nodes, search (issues and pull
 * requests, GitHub's search syntax subset in core/search-query.ts) and rateLimit.
 */
import type { PageArgs } from "../core/paginate.js";
import { searchIssues } from "../core/search-query.js";
import { WorldError } from "../core/world-error.js";
import { connectionWith } from "./connection.js";
import type { GqlContext } from "./context.js";
import { userView, type View } from "./views/actors.js";
import { issueView } from "./views/issue-view.js";
import { nodeView, notFoundNode } from "./views/node-view.js";
import { pullRequestView } from "./views/pull-request-view.js";
import { repositoryView } from "./views/repository-view.js";

interface SearchArgs extends PageArgs {
  readonly query: string;
  readonly type: string;
}

export function queryRoot(ctx: GqlContext): Record<string, unknown> {
  const viewer = ctx.world.user(ctx.world.viewer);
  return {
    repository: (args: { owner: string; name: string }) => {
      const repo = ctx.world.repo(`${args.owner}/${args.name}`);
      if (!repo) {
        throw new WorldError(
          "NOT_FOUND",
          `Could not resolve to a Repository with the name '${args.owner}/${args.name}'.`,
        );
      }
      return repositoryView(ctx, repo);
    },
    viewer: viewer ? userView(ctx, viewer) : null,
    user: (args: { login: string }) => {
      const user = ctx.world.user(args.login);
      if (user?.type !== "User") {
        throw new WorldError("NOT_FOUND", `Could not resolve to a User with the login of '${args.login}'.`);
      }
      return userView(ctx, user);
    },
    organization: (args: { login: string }) => {
      const org = ctx.world.user(args.login);
      if (org?.type !== "Organization") {
        throw new WorldError(
          "NOT_FOUND",
          `Could not resolve to an Organization with the login of '${args.login}'.`,
        );
      }
      return userView(ctx, org);
    },
    repositoryOwner: (args: { login: string }) => {
      const owner = ctx.world.user(args.login);
      return owner && owner.type !== "Bot" ? userView(ctx, owner) : null;
    },
    node: (args: { id: string }) => {
      const view = nodeView(ctx, args.id);
      if (!view) throw notFoundNode(args.id);
      return view;
    },
    nodes: (args: { ids: readonly string[] }) =>
      args.ids.map((id) => {
        const view = nodeView(ctx, id);
        if (!view) throw notFoundNode(id);
        return view;
      }),
    search: (args: SearchArgs) => {
      const results = args.type === "ISSUE" ? searchIssues(ctx.world, args.query) : [];
      return connectionWith(
        results,
        args,
        ({ repo, item }): View =>
          item.kind === "pr" ? pullRequestView(ctx, repo, item) : issueView(ctx, repo, item),
        {
          issueCount: results.length,
          codeCount: 0,
          repositoryCount: 0,
          userCount: 0,
          wikiCount: 0,
          discussionCount: 0,
        },
      );
    },
    rateLimit: () => ({ __typename: "RateLimit", ...ctx.rateLimit }),
    resource: () => null,
  };
}
