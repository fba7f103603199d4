/**
 * An in-memory summary cache, keyed by `SummaryCache.digest` of the key (the
 * shared core's), that counts its hits and misses so a test can see whether a
 * summary was reused. Effect 4 face of `layers/SummaryCacheMemory`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as SummaryCache from "../services/SummaryCache.js"

/**
 * The counters of the cache: lookups that found a summary, lookups that did
 * not, and how many distinct keys hold a summary.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly hits: number
  readonly misses: number
  readonly entries: number
}

/**
 * What a test can read back from the memory cache.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly stats: Effect.Effect<Stats>
}

/**
 * The inspection side of the memory cache.
 *
 * @since 0.1.0
 * @category tags
 */
export class MemoryCache extends Context.Service<MemoryCache, Service>()(
  "context-compressor/layers/SummaryCacheMemory/MemoryCache"
) {}

interface State {
  readonly summaries: ReadonlyMap<string, string>
  readonly hits: number
  readonly misses: number
}

/**
 * Builds an empty memory cache and its inspection service, as one context to provide.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Context.Context<SummaryCache.SummaryCache | MemoryCache>> = Effect.gen(function*() {
  const state = yield* Ref.make<State>({ summaries: new Map(), hits: 0, misses: 0 })
  const cache = SummaryCache.make({
    lookup: (key) => {
      const digest = SummaryCache.digest(key)
      return Ref.modify(state, (current) => {
        const summary = Option.fromNullishOr(current.summaries.get(digest))
        return [
          summary,
          Option.isSome(summary) ? { ...current, hits: current.hits + 1 } : { ...current, misses: current.misses + 1 }
        ]
      })
    },
    store: (key, summary) => {
      const digest = SummaryCache.digest(key)
      return Ref.update(
        state,
        (current) => ({ ...current, summaries: new Map(current.summaries).set(digest, summary) })
      )
    }
  })
  const inspection: Service = {
    stats: Effect.map(Ref.get(state), ({ hits, misses, summaries }) => ({ hits, misses, entries: summaries.size }))
  }
  return Context.make(SummaryCache.SummaryCache, cache).pipe(Context.add(MemoryCache, inspection))
})

/**
 * Provides an empty in-memory `SummaryCache` and the `MemoryCache` that reads its counters.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SummaryCache.SummaryCache | MemoryCache> = Layer.effectContext(make)
