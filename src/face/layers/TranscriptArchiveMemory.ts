/**
 * The transcript archive in memory: what a compactor without a folder (the
 * Promise API's default, `Production.layerMemory`) archives, so that its
 * compacted content can be recalled by handle while the process lives. It
 * keeps the newest sessions within a size limit (the oldest session is
 * forgotten first), and reads a session's entries only.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as MemoryArchive from "../../core/services/MemoryArchive.js"
import type * as Transcript from "../models/Transcript.js"
import * as TranscriptArchive from "../services/TranscriptArchive.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The characters of message text kept across sessions (default {@link defaultMaxChars}). */
  readonly maxChars?: number | undefined
}

/**
 * The default size limit: 64 million characters of archived text.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxChars: number = MemoryArchive.defaultMaxChars

/**
 * The name an entry is given: where the block says the moved-out messages are.
 *
 * @since 0.1.0
 * @category paths
 */
export const locate: (entry: TranscriptArchive.Entry) => string = MemoryArchive.locate

/**
 * Makes an empty memory archive.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<TranscriptArchive.Service> =>
  Effect.sync(() => {
    const archive = MemoryArchive.make<Transcript.Message>(options.maxChars)
    return TranscriptArchive.TranscriptArchive.of({
      locate,
      write: (entry) =>
        Effect.sync(() => {
          archive.write(entry.sessionId, entry.messages)
          return locate(entry)
        }),
      lookup: (sessionId, handle) => Effect.sync(() => Compat.fromNullishOr(archive.lookup(sessionId, handle)))
    })
  })

/**
 * Provides an empty memory archive.
 *
 * @example
 * ```ts
 * import { Transcript } from "context-compressor"
 * import { TranscriptArchiveMemory } from "context-compressor/layers"
 * import { TranscriptArchive } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // The archive in memory, bounded in characters, for a process that recalls what it compacted.
 * const messages = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 * const program = Effect.gen(function*() {
 *   const archive = yield* TranscriptArchive.TranscriptArchive
 *   return yield* archive.write({ sessionId: "s1", compaction: 1, messages })
 * })
 * console.log(await Effect.runPromise(Effect.provide(program, TranscriptArchiveMemory.layer({ maxChars: 1_000_000 }))))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<TranscriptArchive.TranscriptArchive> =>
  Layer.effect(TranscriptArchive.TranscriptArchive, make(options))
