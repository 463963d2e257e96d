/**
 * Where watched sessions and their state live between restarts. The broker uses the Redis store
 * (adapters/redis-watch-store.ts); unit tests use the in-memory one. A watch is what the
 * orchestrator asked for; a state is what the lifecycle has learned (status, PR facts, event
 * sequence) — kept so a restart neither forgets sessions nor raises their events again.
 */
import type { SessionState } from "./core/session-state.js";

export interface WatchRecord {
  readonly id: string;
  readonly repo: string;
  readonly branch: string;
  readonly pr?: number;
  readonly projectId?: string;
  /** Local epoch ms. */
  readonly watchedAt: number;
}

export interface StoredWatches {
  readonly watches: readonly WatchRecord[];
  /** States of watched sessions (states without a watch are dropped by the store). */
  readonly states: readonly SessionState[];
}

export interface WatchStore {
  load(): Promise<StoredWatches>;
  putWatch(watch: WatchRecord, state: SessionState): Promise<void>;
  deleteWatch(id: string): Promise<void>;
  putStates(states: readonly SessionState[]): Promise<void>;
  close(): Promise<void>;
}

export function createMemoryWatchStore(): WatchStore & { readonly writes: () => number } {
  const watches = new Map<string, WatchRecord>();
  const states = new Map<string, SessionState>();
  let writes = 0;
  const clone = <T>(value: T): T => structuredClone(value);
  return {
    load: async () => ({
      watches: [...watches.values()].map(clone),
      states: [...states.values()].filter((s) => watches.has(s.id)).map(clone),
    }),
    putWatch: async (watch, state) => {
      writes += 1;
      watches.set(watch.id, clone(watch));
      states.set(state.id, clone(state));
    },
    deleteWatch: async (id) => {
      writes += 1;
      watches.delete(id);
      states.delete(id);
    },
    putStates: async (list) => {
      writes += 1;
      for (const state of list) if (watches.has(state.id)) states.set(state.id, clone(state));
    },
    close: async () => {},
    writes: () => writes,
  };
}
