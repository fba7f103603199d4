/**
 * The memory compaction-state store and summary cache, in the shared core
 * (docs/effect4.md): what both faces' `CompactionStoreMemory` and
 * `SummaryCacheMemory` hold and decide. A face gives the store its codec (its
 * Schema's encoding of a state, its decoding, its save outcomes) and runs the
 * store's programs as its own effects; the cache is plain bookkeeping a face
 * runs in `Effect.sync`.
 *
 * @since 0.1.0
 */
import type * as Fx from "../Fx.js"
import * as StoreRules from "./StoreRules.js"

/**
 * A memory store's programs: each session's state kept as the JSON its
 * codec encodes (so a state that would not survive a persistent store is
 * refused here too), a versioned save read, decided and written as one step.
 *
 * @since 0.1.0
 * @category models
 */
export interface States<State, Outcome> {
  /** The session's state, `undefined` when it has none. */
  readonly load: (sessionId: string) => Fx.Op<State | undefined>
  readonly save: (state: State) => Fx.Op<void>
  /** Saves unless the stored state is not the one the saver started from (`StoreRules.saves`). */
  readonly saveIfCurrent: (state: State, expected: number) => Fx.Op<Outcome>
  /** Every session's state as the store encoded it. */
  readonly stored: Fx.Op<ReadonlyMap<string, string>>
}

/**
 * An empty memory store over `codec`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeStates = <State extends { readonly sessionId: string; readonly compactions: number }, Outcome>(
  fx: Fx.Fx,
  codec: StoreRules.Codec<State, Outcome>
): States<State, Outcome> => {
  let encoded: ReadonlyMap<string, string> = new Map()
  // Saves one at a time, so that a versioned save reads and replaces a session's state as one step.
  const lock = fx.makeLock()
  const put = (sessionId: string, text: string) =>
    fx.sync(() => {
      encoded = new Map(encoded).set(sessionId, text)
    })
  return {
    load: (sessionId) =>
      fx.gen(function*() {
        const text = encoded.get(sessionId)
        return text === undefined ? undefined : yield* StoreRules.decodeState(fx, codec, sessionId, text)
      }),
    save: (state) =>
      fx.gen(function*() {
        const text = yield* StoreRules.encodeState(fx, codec, state)
        yield* lock(put(state.sessionId, text))
      }),
    saveIfCurrent: (state, expected) =>
      fx.gen(function*() {
        const text = yield* StoreRules.encodeState(fx, codec, state)
        return yield* lock(fx.gen(function*() {
          const stored = encoded.get(state.sessionId)
          const current = stored === undefined
            ? undefined
            : yield* StoreRules.decodeState(fx, codec, state.sessionId, stored)
          if (current !== undefined && !StoreRules.saves(current, expected)) {
            return codec.conflict(current)
          }
          yield* put(state.sessionId, text)
          return codec.saved()
        }))
      }),
    stored: fx.sync(() => encoded)
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
