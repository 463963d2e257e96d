/**
 * The `direct` and `proxy` arms: AO's way. Agents' gh commands carry the one PAT (AO hands agents
 * no token of their own; every process uses the user's gh auth) and go straight to GitHub, or
 * through the ghcache-style proxy; AO's sequential lifecycle loop polls the same way.
 */
import { type AgentRequestPath, sendAgentRequest } from "../agent-requests.js";
import { AoLoop } from "../ao-loop.js";
import type { ArmName, ResourceUse } from "../core/report-types.js";
import type { ArmEnv } from "./arm-env.js";
import type { ArmInstance, Orchestrator, SessionChannel } from "./arm-types.js";
import { GhcacheProxy } from "./ghcache-proxy.js";

function channel(env: ArmEnv, path: AgentRequestPath, reader: string): SessionChannel {
  return {
    run: (_argv, bindings, command) =>
      command({
        bindings,
        send: (request) => sendAgentRequest(path, request, env.token, reader),
        sleep: (ms) => env.clock.sleep(ms, env.signal),
        ghCache: env.ghCache,
      }),
    close: async () => undefined,
  };
}

export function aoOrchestrator(env: ArmEnv, baseUrl: string, token: string): Orchestrator {
  const [owner = "", repo = ""] = env.repo.split("/");
  const loop = new AoLoop({
    transport: env.transport,
    baseUrl,
    token,
    owner,
    repo,
    config: env.profile.orchestrator.ao,
    clock: env.clock,
    recorder: env.recorder,
  });
  return {
    // AO's loop starts with its first session, so its first cycle is not spent on an empty list.
    watch: async (session, pr) => {
      loop.watch(session.id, session.branch, pr);
      loop.start();
    },
    prCreated: async (session, pr) => loop.prCreated(session.id, pr),
    unwatch: async (session) => loop.unwatch(session.id),
    close: () => loop.close(),
  };
}

export async function startTokenArm(
  name: Extract<ArmName, "direct" | "proxy">,
  env: ArmEnv,
): Promise<ArmInstance> {
  let proxy: GhcacheProxy | undefined;
  let baseUrl = env.upstreamUrl;
  if (name === "proxy") {
    proxy = new GhcacheProxy({ upstream: env.upstreamUrl, transport: env.transport });
    baseUrl = await proxy.start();
  }
  const path: AgentRequestPath = {
    transport: env.transport,
    baseUrl,
    recorder: env.recorder,
    now: env.now,
  };
  const orchestrator = aoOrchestrator(env, baseUrl, env.token);
  return {
    name,
    openSession: async (session) => channel(env, path, session.id),
    orchestrator,
    markWindowStart: () => undefined,
    resourceUse: (): ResourceUse | null => null,
    close: async () => {
      await orchestrator.close();
      await proxy?.close();
    },
  };
}
