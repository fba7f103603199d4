/**
 * The summary cache: summaries keyed by prompt namespace, cache-schema
 * version, model, the summariser that makes them and the rendered request
 * (SPEC R2.10). A prompt, rendering or summariser change gives another key, so no old entry is ever reused and no reset is
 * needed. A cache never fails compaction: a broken one is a miss.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as SummaryKey from "../../core/services/SummaryKey.js"
import type * as Summarizer from "./Summarizer.js"

/**
 * The cache-schema version: bumped when the rendering of requests or the key's
 * parts change in a way the prompt namespace does not see (SPEC R2.10 starts
 * it at 4; 5 added the summariser's identity).
 *
 * @since 0.1.0
 * @category constants
 */
export const schemaVersion: typeof SummaryKey.schemaVersion = SummaryKey.schemaVersion

/**
 * The parts of a cache key.
 *
 * @since 0.1.0
 * @category models
 */
export type Key = SummaryKey.Key

/**
 * The text of a request that its cache key holds: a delimited request's
 * instruction and prompt; a shared-prefix request's prefix (each message's
 * kind, id and text) before them.
 *
 * @since 0.1.0
 * @category getters
 */
export const keyText: (request: Summarizer.SummaryRequest) => string = SummaryKey.keyText

/**
 * The cache key of a summariser request made by `summarizer` (default
 * `Summarizer.anonymous`): its namespace and model, this schema version, the
 * summariser's identity, and its {@link keyText}. The one key the engine
 * looks summaries up by (with its summariser's `identity`) and
 * `compact --record` names its files by.
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOf: (request: Summarizer.SummaryRequest, summarizer?: Summarizer.Identity) => Key = SummaryKey.keyOf

/**
 * Makes a digest of keys that remembers each key's (a key looked up and then
 * stored is hashed once).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeDigest = (): (key: Key) => string => {
  const digests = new WeakMap<Key, string>()
  return (key) => {
    const known = digests.get(key)
    if (known !== undefined) return known
    const hex = SummaryKey.digestOf(key)
    digests.set(key, hex)
    return hex
  }
}

/**
 * The key as one string: a SHA-256 over its parts.
 *
 * @since 0.1.0
 * @category constructors
 */
export const digest: (key: Key) => string = makeDigest()

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly lookup: (key: Key) => Effect.Effect<Option.Option<string>>
  /**
   * Stores a summary. A store may keep the summary already there for the key
   * (the first one stored, in a shared cache); `replacing` names a cached
   * summary the quality gate refused, which the new one replaces.
   */
  readonly store: (key: Key, summary: string, options?: StoreOptions) => Effect.Effect<void>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface StoreOptions {
  /** The cached summary the new one replaces (refused by the quality gate). */
  readonly replacing?: string | undefined
}

/**
 * The summary cache service.
 *
 * @example
 * ```ts
 * import { SummaryCache } from "context-compressor/services"
 * import { Effect, Layer, Option } from "effect"
 *
 * // A summary cache of one's own (a key-value store of the application's), keyed by the key's digest.
 * const entries = new Map<string, string>()
 * const cache = Layer.succeed(
 *   SummaryCache.SummaryCache,
 *   SummaryCache.SummaryCache.of({
 *     lookup: (key) =>
 *       Effect.sync(() => {
 *         const summary = entries.get(SummaryCache.digest(key))
 *         return summary === undefined ? Option.none() : Option.some(summary)
 *       }),
 *     store: (key, summary) => Effect.sync(() => void entries.set(SummaryCache.digest(key), summary))
 *   })
 * )
 *
 * const key = {
 *   namespace: "default",
 *   schemaVersion: SummaryCache.schemaVersion,
 *   model: "gpt-5",
 *   summarizer: { kind: "offline" },
 *   request: "…"
 * }
 * const program = Effect.gen(function*() {
 *   const summaries = yield* SummaryCache.SummaryCache
 *   yield* summaries.store(key, "## Goal\nFix the parser.")
 *   return yield* summaries.lookup(key)
 * })
 * const found = await Effect.runPromise(Effect.provide(program, cache))
 * assert.deepStrictEqual(found, Option.some("## Goal\nFix the parser."))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class SummaryCache extends Compat.Service<SummaryCache, Service>()("context-compressor/SummaryCache") {}
