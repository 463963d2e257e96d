/**
 * Authentication, as GitHub answers it: `Authorization: token X` or `Bearer X` must carry the
 * accepted token; an unknown token gets 401 "Bad credentials", a missing one 401 "Requires
 * authentication". Rejected requests cost nothing. The token is compared, never logged.
 */
import { timingSafeEqual } from "node:crypto";
import { errorResponse } from "../respond.js";
import type { SimLayer } from "../types.js";

function tokenOf(header: string | undefined): string | undefined {
  const m = header ? /^(?:token|bearer)\s+(\S+)\s*$/i.exec(header) : null;
  return m?.[1];
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function authLayer(acceptedToken: () => string): SimLayer {
  return (next) => async (request) => {
    const token = tokenOf(request.headers.authorization);
    if (token === undefined) {
      const graphql = request.path === "/graphql";
      return errorResponse(
        401,
        graphql ? "This endpoint requires you to be authenticated." : "Requires authentication",
        {
          documentationUrl: graphql
            ? "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
            : "https://docs.github.com/rest",
          outcome: "unauthorized",
        },
      );
    }
    if (!same(token, acceptedToken())) {
      return errorResponse(401, "Bad credentials", {
        documentationUrl: "https://docs.github.com/rest",
        outcome: "unauthorized",
      });
    }
    return next(request);
  };
}
