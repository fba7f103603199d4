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
import * as MemoryStores from "../../src/internal/services/MemoryStores.js"
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

/**
 * Builds an empty memory cache and its inspection service, as one context to provide.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Context.Context<SummaryCache.SummaryCache | MemoryCache>> = Effect.sync(() => {
  const summaries = MemoryStores.makeSummaries()
  const cache = SummaryCache.make({
    lookup: (key) => Effect.sync(() => Option.fromNullishOr(summaries.lookup(SummaryCache.digest(key)))),
    store: (key, summary) => Effect.sync(() => summaries.store(SummaryCache.digest(key), summary))
  })
  const inspection: Service = { stats: Effect.sync(summaries.stats) }
  return Context.make(SummaryCache.SummaryCache, cache).pipe(Context.add(MemoryCache, inspection))
})

/**
 * Provides an empty in-memory `SummaryCache` and the `MemoryCache` that reads its counters.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SummaryCache.SummaryCache | MemoryCache> = Layer.effectContext(make)
