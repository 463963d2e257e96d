/**
 * The environment an agent process needs so that real gh sends every API call to the gateway
 * (docs/architecture.md, "How real gh is routed"): GH_HOST=github.localhost makes gh use
 * http://api.github.localhost/, HTTP_PROXY sends that to the gateway (Go's proxy selection skips
 * only "localhost" itself and loopback IPs, not *.localhost), GH_TOKEN is the broker-issued token,
 * and GH_REPO names the repository on that host. NO_PROXY is cleared because an inherited
 * "localhost" entry would also match api.github.localhost and bypass the gateway.
 */
export interface SessionEnvInput {
  readonly token: string;
  readonly gatewayUrl: string;
  readonly repo: string;
  readonly sessionId: string;
  readonly socketPath: string;
  /** @defaultValue "github.localhost" */
  readonly ghHost?: string;
}

export function sessionEnv(input: SessionEnvInput): Record<string, string> {
  const host = input.ghHost ?? "github.localhost";
  return {
    GH_HOST: host,
    GH_TOKEN: input.token,
    GH_REPO: `${host}/${input.repo}`,
    HTTP_PROXY: input.gatewayUrl,
    http_proxy: input.gatewayUrl,
    NO_PROXY: "",
    no_proxy: "",
    AO_BROKER_SOCKET: input.socketPath,
    AO_SESSION_ID: input.sessionId,
  };
}
