/**
 * An in-memory summary cache, keyed by `SummaryCache.digest` of the key, that
 * counts its hits and misses so a test can see whether a summary was reused.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SummaryCache from "../services/SummaryCache.js"
import * as MemoryStores from "./internal/MemoryStores.js"

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
export class MemoryCache extends Compat.Service<MemoryCache, Service>()(
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
  const cache = SummaryCache.SummaryCache.of({
    lookup: (key) => Effect.sync(() => Compat.fromNullishOr(summaries.lookup(SummaryCache.digest(key)))),
    store: (key, summary) => Effect.sync(() => summaries.store(SummaryCache.digest(key), summary))
  })
  const inspection: Service = { stats: Effect.sync(summaries.stats) }
  return Context.make(SummaryCache.SummaryCache, cache).pipe(Context.add(MemoryCache, inspection))
})

/**
 * Provides an empty in-memory `SummaryCache` and the `MemoryCache` that reads its counters.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, SummaryCacheMemory, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // The summaries in memory; `MemoryCache` reads back what was stored.
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   const cache = yield* SummaryCacheMemory.MemoryCache
 *   const { entries, misses } = yield* cache.stats
 *   console.log(`view of ${view.length} messages; ${entries} summary stored after ${misses} miss`)
 * })
 * const services = Testing.layer()
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<SummaryCache.SummaryCache | MemoryCache> = Layer.effectContext(make)

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { SummaryCacheMemory } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `SummaryCacheMemory.layer`.
 * assert.strictEqual(SummaryCacheMemory.layerMemory, SummaryCacheMemory.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `SummaryCacheMemory.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerMemory: typeof layer = layer
