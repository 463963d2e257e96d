/**
 * Everything one simulator instance holds: the scenario and the world built from it, the
 * scenario clock (an injectable base clock plus the offset `advance()` adds), the primary and
 * secondary limiters, the document cache and the stats. Handlers read it through this object so
 * that `reset()` and `POST /_sim/scenario` can swap the world under them atomically.
 *
 * Invariant: before a request is served the engine has applied every change due by now
 * (`tick()`), so answers always reflect the world at the instant they are computed.
 */
import type { GraphQLSchema } from "graphql";
import { loadGitHubSchema } from "../github/index.js";
import { type LoadedScenario, loadScenario } from "./core/load-scenario.js";
import { PrimaryLimits, type PrimaryResource, type PrimarySnapshot } from "./core/primary-limits.js";
import type { ScenarioEngine, TickReport } from "./core/scenario-engine.js";
import type { ParsedScenario } from "./core/scenario-schema.js";
import { SecondaryLimits, type SecondaryLimitsConfig } from "./core/secondary-limits.js";
import type { World, WorldListener } from "./core/world.js";
import { memoisedIsoTime, type TimeFormat } from "./graphql/context.js";
import { DocumentCache } from "./graphql/document-cache.js";
import { ResultCache } from "./graphql/result-cache.js";
import type { FaultInjector } from "./http/layers/faults.js";
import { type SimStats, StatsCollector } from "./stats.js";

/** The simulator's time source. The default is the real clock. */
export interface SimClock {
  now(): number;
}

export interface SimStateOptions {
  readonly scenario: ParsedScenario;
  readonly limits: Readonly<Record<PrimaryResource, number>>;
  readonly windowMs: Readonly<Record<PrimaryResource, number>>;
  readonly secondary: SecondaryLimitsConfig;
  readonly clock: SimClock;
  readonly token: string;
  readonly webBase: string;
  /** Memoise query answers per world version. @defaultValue true */
  readonly cacheResults?: boolean;
}

export class SimState {
  readonly primary: PrimaryLimits;
  readonly secondary: SecondaryLimits;
  readonly stats = new StatsCollector();
  readonly schema: GraphQLSchema;
  readonly documents: DocumentCache;
  /** Exact answers by (query, variables, world version); undefined when disabled. */
  readonly results: ResultCache | undefined;
  readonly token: string;
  readonly webBase: string;
  /** GitHub DateTime formatting, memoised (GraphQL answers format many repeated instants). */
  readonly iso: TimeFormat = memoisedIsoTime();
  /** The fault injector in force (POST /_sim/faults, sim.setFaults()); none by default. */
  faults: FaultInjector | undefined;
  private readonly clock: SimClock;
  private offset = 0;
  private current: LoadedScenario;
  private scenarioValue: ParsedScenario;
  private readonly changeListeners = new Set<WorldListener>();
  private unsubscribe: (() => void) | undefined;

  constructor(options: SimStateOptions) {
    this.clock = options.clock;
    this.token = options.token;
    this.webBase = options.webBase;
    this.primary = new PrimaryLimits({ limits: options.limits, windowMs: options.windowMs });
    this.secondary = new SecondaryLimits(options.secondary);
    this.schema = loadGitHubSchema();
    this.documents = new DocumentCache(this.schema);
    this.results = options.cacheResults === false ? undefined : new ResultCache();
    this.scenarioValue = options.scenario;
    this.current = this.build();
  }

  /** Scenario clock: the base clock plus every `advance()`. */
  readonly now = (): number => this.clock.now() + this.offset;

  get world(): World {
    return this.current.world;
  }

  get engine(): ScenarioEngine {
    return this.current.engine;
  }

  get defaultRepo(): string {
    return this.current.defaultRepo;
  }

  get scenario(): ParsedScenario {
    return this.scenarioValue;
  }

  private build(): LoadedScenario {
    this.unsubscribe?.();
    const loaded = loadScenario(this.scenarioValue, { now: this.now, startAt: this.now() });
    this.unsubscribe = loaded.world.subscribe((change) => {
      for (const listener of this.changeListeners) listener(change);
    });
    return loaded;
  }

  /** Hears every change of the current world, and of the worlds reset() and load() build later. */
  onChange(listener: WorldListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Applies every scheduled change due by now. */
  tick(): TickReport {
    return this.current.engine.tick(this.now());
  }

  advance(ms: number): TickReport {
    this.offset += Math.max(0, ms);
    return this.tick();
  }

  /** World back to the scenario's start (at the current instant); counters and windows zeroed. */
  reset(): void {
    this.current = this.build();
    this.results?.clear();
    this.primary.reset();
    this.secondary.reset();
    this.stats.reset();
  }

  /** Replaces the scenario and resets. */
  load(scenario: ParsedScenario): void {
    this.scenarioValue = scenario;
    this.reset();
  }

  viewerId(): number {
    return this.world.user(this.world.viewer)?.id ?? 1;
  }

  snapshots(): Record<PrimaryResource, PrimarySnapshot> {
    const now = this.now();
    return {
      core: this.primary.snapshot("core", now),
      graphql: this.primary.snapshot("graphql", now),
      search: this.primary.snapshot("search", now),
    };
  }

  statsSnapshot(): SimStats {
    const next = this.engine.nextAt();
    return this.stats.snapshot(
      this.snapshots(),
      { version: this.world.version, pendingEvents: this.engine.pending(), nextEventAt: next ?? null },
      this.now(),
    );
  }
}
