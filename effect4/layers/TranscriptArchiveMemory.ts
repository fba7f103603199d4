/**
 * The transcript archive in memory (the shared core's `MemoryArchive`): what
 * a compactor without a folder archives, so that its compacted content can be
 * recalled by handle while the process lives. It keeps the newest sessions
 * within a size limit (the oldest session is forgotten first), and reads a
 * session's entries only. Effect 4 face of `layers/TranscriptArchiveMemory`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as MemoryArchive from "../../src/internal/services/MemoryArchive.js"
import * as TranscriptArchive from "../services/TranscriptArchive.js"
import type * as Transcript from "../src/Transcript.js"

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
    return TranscriptArchive.make({
      locate,
      write: (entry) =>
        Effect.sync(() => {
          archive.write(entry.sessionId, entry.messages)
          return locate(entry)
        }),
      lookup: (sessionId, handle) => Effect.sync(() => Option.fromNullishOr(archive.lookup(sessionId, handle)))
    })
  })

/**
 * Provides an empty memory archive.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<TranscriptArchive.TranscriptArchive> =>
  Layer.effect(TranscriptArchive.TranscriptArchive, make(options))
