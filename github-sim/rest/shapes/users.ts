/**
 * REST user objects: GitHub's "Simple User" (embedded everywhere) and the authenticated user
 * (`GET /user`). Unknown logins render as GitHub's `ghost`.
 */
import type { SimUser } from "../../core/model.js";
import { restTime, type ShapeContext } from "./context.js";

export function simpleUser(ctx: ShapeContext, login: string | null) {
  if (login === null) return null;
  const user: Pick<SimUser, "id" | "login" | "nodeId" | "type"> = ctx.world.user(login) ?? {
    id: 10137,
    login: "ghost",
    nodeId: "MDQ6VXNlcjEwMTM3",
    type: "User",
  };
  const base = `${ctx.api}/users/${user.login}`;
  return {
    login: user.login,
    id: user.id,
    node_id: user.nodeId,
    avatar_url: `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: "",
    url: base,
    html_url: `${ctx.web}/${user.login}`,
    followers_url: `${base}/followers`,
    following_url: `${base}/following{/other_user}`,
    gists_url: `${base}/gists{/gist_id}`,
    starred_url: `${base}/starred{/owner}{/repo}`,
    subscriptions_url: `${base}/subscriptions`,
    organizations_url: `${base}/orgs`,
    repos_url: `${base}/repos`,
    events_url: `${base}/events{/privacy}`,
    received_events_url: `${base}/received_events`,
    type: user.type,
    user_view_type: "public",
    site_admin: false,
  };
}

export function authenticatedUser(ctx: ShapeContext, user: SimUser) {
  return {
    ...simpleUser(ctx, user.login),
    name: user.name,
    company: null,
    blog: "",
    location: null,
    email: user.email,
    hireable: null,
    bio: null,
    twitter_username: null,
    notification_email: null,
    public_repos: [...ctx.world.repos.values()].filter((r) => r.owner === user.login).length,
    public_gists: 0,
    followers: 0,
    following: 0,
    created_at: restTime(user.createdAt),
    updated_at: restTime(user.createdAt),
    private_gists: 0,
    total_private_repos: 0,
    owned_private_repos: 0,
    disk_usage: 0,
    collaborators: 0,
    two_factor_authentication: true,
    plan: { name: "pro", space: 976562499, collaborators: 0, private_repos: 9999 },
  };
}
