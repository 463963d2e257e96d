/**
 * What every arm is given for one step: the upstream (simulator or capped target), the shared HTTP client, the
 * step's clock and recorder, and the profile. Arms add only their own routing.
 */
import type { Profile } from "../core/profile-schema.js";
import type { HttpTransport } from "../http-transport.js";
import type { StepClock } from "../step-clock.js";
import type { StepRecorder } from "../step-recorder.js";

export interface ArmEnv {
  /** The upstream's clock (epoch ms): the simulator's, for staleness. */
  readonly now: () => number;
  /** Where the "GitHub" of this step is: the simulator's URL (or a capped target). */
  readonly upstreamUrl: string;
  /** The PAT of this step's upstream. */
  readonly token: string;
  readonly transport: HttpTransport;
  readonly clock: StepClock;
  readonly recorder: StepRecorder;
  readonly profile: Profile;
  readonly repo: string;
  /** gh's $TMPDIR cache, shared by every agent on this machine. */
  readonly ghCache: { introspected: boolean };
  /** A private Redis for brokers (redis:// or unix://). */
  readonly redisUrl: string;
  /** A fresh directory for this step's sockets and state. */
  readonly stateDir: string;
  /** Unique per step, for Redis key prefixes. */
  readonly stepId: string;
  readonly signal: AbortSignal;
}
