/** The client library's version: the package version it ships in (a smoke test keeps them equal). */
export const VERSION = "0.1.0";
