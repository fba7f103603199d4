/**
 * The memory compaction-state store and summary cache: what
 * `CompactionStoreMemory` and `SummaryCacheMemory` hold and decide. The layer
 * gives the store its codec (its Schema's encoding of a state, its decoding,
 * its save outcomes and its `StoreError`); the cache is plain bookkeeping the
 * layer runs in `Effect.sync`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as StoreRules from "./StoreRules.js"

/**
 * A memory store's programs: each session's state kept as the JSON its
 * codec encodes (so a state that would not survive a persistent store is
 * refused here too), a versioned save read, decided and written as one step.
 *
 * @since 0.1.0
 * @category models
 */
export interface States<State, Outcome, E> {
  /** The session's state, `undefined` when it has none. */
  readonly load: (sessionId: string) => Effect.Effect<State | undefined, E>
  readonly save: (state: State) => Effect.Effect<void, E>
  /** Saves unless the stored state is not the one the saver started from (`StoreRules.saves`). */
  readonly saveIfCurrent: (state: State, expected: number) => Effect.Effect<Outcome, E>
  /** Every session's state as the store encoded it. */
  readonly stored: Effect.Effect<ReadonlyMap<string, string>>
}

/**
 * An empty memory store over `codec`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeStates = <
  State extends { readonly sessionId: string; readonly compactions: number },
  Outcome,
  E
>(
  codec: StoreRules.Codec<State, Outcome, E>
): States<State, Outcome, E> => {
  let encoded: ReadonlyMap<string, string> = new Map()
  // Saves one at a time, so that a versioned save reads and replaces a session's state as one step.
  const lock = Compat.makeSemaphoreUnsafe(1).withPermits(1)
  const put = (sessionId: string, text: string) =>
    Effect.sync(() => {
      encoded = new Map(encoded).set(sessionId, text)
    })
  return {
    load: (sessionId) =>
      Effect.suspend(() => {
        const text = encoded.get(sessionId)
        return text === undefined ? Effect.succeed(undefined) : StoreRules.decodeState(codec, sessionId, text)
      }),
    save: (state) => Effect.flatMap(StoreRules.encodeState(codec, state), (text) => lock(put(state.sessionId, text))),
    saveIfCurrent: (state, expected) =>
      Effect.flatMap(StoreRules.encodeState(codec, state), (text) =>
        lock(Effect.gen(function*() {
          const stored = encoded.get(state.sessionId)
          const current = stored === undefined
            ? undefined
            : yield* StoreRules.decodeState(codec, state.sessionId, stored)
          if (current !== undefined && !StoreRules.saves(current, expected)) {
            return codec.conflict(current)
          }
          yield* put(state.sessionId, text)
          return codec.saved()
        }))),
    stored: Effect.sync(() => encoded)
  }
}

/**
 * The memory cache's counters and size.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryStats {
  readonly hits: number
  readonly misses: number
  readonly entries: number
}

/**
 * A memory summary cache's bookkeeping, by the key's digest: a lookup counts
 * a hit or a miss, a store replaces what the digest held.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summaries {
  readonly lookup: (digest: string) => string | undefined
  readonly store: (digest: string, summary: string) => void
  readonly stats: () => SummaryStats
}

/**
 * An empty memory summary cache.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSummaries = (): Summaries => {
  const summaries = new Map<string, string>()
  let hits = 0
  let misses = 0
  return {
    lookup: (digest) => {
      const summary = summaries.get(digest)
      if (summary === undefined) misses++
      else hits++
      return summary
    },
    store: (digest, summary) => {
      summaries.set(digest, summary)
    },
    stats: () => ({ hits, misses, entries: summaries.size })
  }
}
