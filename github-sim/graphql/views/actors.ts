/**
 * GraphQL views of people and labels: User / Bot / Organization (Actor, RepositoryOwner) and
 * Label. A view is an instance whose getters and methods are GitHub's field names (methods take
 * the field's arguments); state sits in private fields so no GitHub field name can collide with
 * it. Fields a view does not model fall back to neutral values (field-resolution.ts), so any
 * query valid against GitHub's schema runs. Getters compute only what a query asks for.
 */
import type { SimLabel, SimRepo, SimUser } from "../../core/model.js";
import type { GqlContext, View } from "../context.js";

export type { View };

type UserRecord = Pick<SimUser, "id" | "nodeId" | "login" | "name" | "email" | "type" | "createdAt">;

export class UserView implements View {
  readonly #ctx: GqlContext;
  readonly #user: UserRecord;

  constructor(ctx: GqlContext, user: UserRecord) {
    this.#ctx = ctx;
    this.#user = user;
  }

  get __typename(): string {
    return this.#user.type;
  }
  get id(): string {
    return this.#user.nodeId;
  }
  get databaseId(): number {
    return this.#user.id;
  }
  get login(): string {
    return this.#user.login;
  }
  get name(): string | null {
    return this.#user.name;
  }
  get email(): string {
    return this.#user.email ?? "";
  }
  get url(): string {
    return `${this.#ctx.webBase}/${this.#user.type === "Bot" ? "apps/" : ""}${this.#user.login}`;
  }
  get resourcePath(): string {
    return `/${this.#user.login}`;
  }
  get avatarUrl(): string {
    return `https://avatars.githubusercontent.com/u/${this.#user.id}?v=4`;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#user.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#user.createdAt);
  }
  get isViewer(): boolean {
    return this.#user.login === this.#ctx.world.viewer;
  }
  get bio(): string {
    return "";
  }
}

/** GitHub's stand-in for a deleted account. */
const GHOST: UserRecord = {
  id: 10137,
  nodeId: "MDQ6VXNlcjEwMTM3",
  login: "ghost",
  name: "Deleted user",
  email: null,
  type: "User",
  createdAt: 0,
};

export function actorView(ctx: GqlContext, login: string | null): UserView | null {
  if (!login) return null;
  return new UserView(ctx, ctx.world.user(login) ?? GHOST);
}

export function userView(ctx: GqlContext, user: SimUser): UserView {
  return new UserView(ctx, user);
}

export function ownerView(ctx: GqlContext, repo: SimRepo): UserView {
  return new UserView(
    ctx,
    ctx.world.user(repo.owner) ?? { ...GHOST, login: repo.owner, name: repo.owner, type: "Organization" },
  );
}

export class LabelView implements View {
  readonly #ctx: GqlContext;
  readonly #repo: SimRepo;
  readonly #label: SimLabel;

  constructor(ctx: GqlContext, repo: SimRepo, label: SimLabel) {
    this.#ctx = ctx;
    this.#repo = repo;
    this.#label = label;
  }

  get __typename(): string {
    return "Label";
  }
  get id(): string {
    return this.#label.nodeId;
  }
  get name(): string {
    return this.#label.name;
  }
  get color(): string {
    return this.#label.color;
  }
  get description(): string | null {
    return this.#label.description;
  }
  get isDefault(): boolean {
    return this.#label.isDefault;
  }
  get createdAt(): string {
    return this.#ctx.iso(this.#label.createdAt);
  }
  get updatedAt(): string {
    return this.#ctx.iso(this.#label.createdAt);
  }
  get resourcePath(): string {
    return `/${this.#repo.fullName}/labels/${encodeURIComponent(this.#label.name)}`;
  }
  get url(): string {
    return `${this.#ctx.webBase}${this.resourcePath}`;
  }
}

export function labelView(ctx: GqlContext, repo: SimRepo, label: SimLabel): LabelView {
  return new LabelView(ctx, repo, label);
}

/** Labels of an issue or PR, in the repository's label order. */
export function labelsOf(repo: SimRepo, names: readonly string[]): SimLabel[] {
  if (names.length === 0) return [];
  const wanted = new Set(names.map((n) => n.toLowerCase()));
  return repo.labels.filter((l) => wanted.has(l.name.toLowerCase()));
}

export function usersOf(ctx: GqlContext, logins: readonly string[]): UserView[] {
  return logins.map((login) => actorView(ctx, login)).filter((v): v is UserView => v !== null);
}

export { authorAssociation } from "../../core/derived-state.js";
