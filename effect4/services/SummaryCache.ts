/**
 * The summary cache: summaries keyed by prompt namespace, cache-schema
 * version, model and the rendered request; the key and its digest are the
 * shared core's, so a summary cached through one face is found through the
 * other. A cache never fails compaction: a broken one is a miss. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as SummaryKey from "../../src/internal/services/SummaryKey.js"
import type * as Summarizer from "./Summarizer.js"

/**
 * The cache-schema version.
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
 * The text of a request that its cache key holds.
 *
 * @since 0.1.0
 * @category getters
 */
export const keyText: (request: Summarizer.SummaryRequest) => string = SummaryKey.keyText

/**
 * The cache key of a summariser request made by `summarizer` (default
 * `Summarizer.anonymous`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const keyOf: (request: Summarizer.SummaryRequest, summarizer?: Summarizer.Identity) => Key = SummaryKey.keyOf

/**
 * Makes the digest of keys, remembering each key's (a key looked up and then stored is hashed once).
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
export interface StoreOptions {
  /** The cached summary the new one replaces (refused by the quality gate). */
  readonly replacing?: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly lookup: (key: Key) => Effect.Effect<Option.Option<string>>
  /** Stores a summary; `replacing` names a cached summary the gate refused. */
  readonly store: (key: Key, summary: string, options?: StoreOptions) => Effect.Effect<void>
}

/**
 * The summary cache service.
 *
 * @since 0.1.0
 * @category tags
 */
export class SummaryCache extends Context.Service<SummaryCache, Service>()("context-compressor/SummaryCache") {}

/**
 * A summary cache from its operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => SummaryCache.of(service)
