/**
 * The context's links back up the view graph (context.ts ViewLinks): the one file that imports the
 * views lower views link to, so that those lower views need not import them.
 */
import type { ViewLinks } from "../context.js";
import { commitView } from "./commit-view.js";
import { refView, repositoryView } from "./repository-view.js";

export const VIEW_LINKS: ViewLinks = {
  repository: repositoryView,
  commit: commitView,
  ref: refView,
};
