/**
 * Where the verbatim messages of each compaction are written, so that the
 * compacted block can name a place to get any id or detail back. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Transcript from "../src/Transcript.js"

/**
 * The messages one compaction moved out of the view, verbatim.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly sessionId: string
  readonly compaction: number
  readonly messages: Transcript.Transcript
  /** Messages the ladder reduced or clipped in a view, archived whole. */
  readonly cut?: boolean | undefined
}

/**
 * An archive that could not be written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ArchiveError extends Schema.TaggedError<ArchiveError>()("ArchiveError", {
  sessionId: Schema.String,
  path: Schema.String,
  reason: Schema.String
}) {}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Where an entry is (or will be) written, before it is. */
  readonly locate: (entry: Entry) => string
  /** Writes an entry whole or not at all; succeeds with its location. */
  readonly write: (entry: Entry) => Effect.Effect<string, ArchiveError>
  /** The archived message of `sessionId` whose recall text has `handle`; absent in an archive that can only be written. */
  readonly lookup?: (
    sessionId: string,
    handle: string
  ) => Effect.Effect<Option.Option<Transcript.Message>, ArchiveError>
}

/**
 * The transcript archive service.
 *
 * @since 0.1.0
 * @category tags
 */
export class TranscriptArchive
  extends Context.Service<TranscriptArchive, Service>()("context-compressor/TranscriptArchive")
{}

/**
 * A transcript archive from its operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => TranscriptArchive.of(service)
