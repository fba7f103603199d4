/**
 * Where the verbatim messages of each compaction are written (SPEC R2.8), so
 * that the compacted block can name a place to get any id or detail back.
 * Optional: an engine without it says the session's own transcript keeps them.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as Transcript from "../models/Transcript.js"

/**
 * The messages one compaction moved out of the view, verbatim.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly sessionId: string
  /** The number of the compaction (1 for the session's first). */
  readonly compaction: number
  /** The messages, oldest first, exactly as the transcript holds them. */
  readonly messages: Transcript.Transcript
  /**
   * Messages the ladder reduced or clipped in a view (still in the view, not
   * moved out), archived whole so that the recall handles in their markers
   * resolve; kept apart from the compactions' entries.
   */
  readonly cut?: boolean | undefined
}

/**
 * An archive that could not be written. The engine goes on without it: the
 * session's transcript still holds every message.
 *
 * @example
 * ```ts
 * import { TranscriptArchive } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // What an archive that cannot write fails with; the engine notes it and goes on without the archive.
 * const write = Effect.fail(
 *   new TranscriptArchive.ArchiveError({
 *     sessionId: "s1",
 *     path: ".context-compressor/archive/s1",
 *     reason: "EROFS: read-only file system"
 *   })
 * )
 * const outcome = await Effect.runPromise(
 *   write.pipe(Effect.catchTag("ArchiveError", (error) => Effect.succeed(`${error.path} not written: ${error.reason}`)))
 * )
 * assert.strictEqual(outcome, ".context-compressor/archive/s1 not written: EROFS: read-only file system")
 * ```
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
  /**
   * Where an entry is (or will be) written, before it is. Entries of the same
   * compaction with other messages (two workers racing) get other places.
   */
  readonly locate: (entry: Entry) => string
  /** Writes an entry whole or not at all; succeeds with its location. */
  readonly write: (entry: Entry) => Effect.Effect<string, ArchiveError>
  /**
   * The archived message of `sessionId` whose recall text has `handle`
   * (`Recall.handleOf`), reading that session's entries only; none when it
   * holds no such message. Absent in an archive that can only be written:
   * recall then says the archive cannot be read.
   *
   * @since 0.1.0
   */
  readonly lookup?: (
    sessionId: string,
    handle: string
  ) => Effect.Effect<Option.Option<Transcript.Message>, ArchiveError>
}

/**
 * The transcript archive service.
 *
 * @example
 * ```ts
 * import { Transcript } from "context-compressor"
 * import { TranscriptArchive } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // Where the messages a compaction moves out of the view go: here a map of the application's.
 * const written = new Map<string, Transcript.Transcript>()
 * const archive = Layer.succeed(
 *   TranscriptArchive.TranscriptArchive,
 *   TranscriptArchive.TranscriptArchive.of({
 *     locate: (entry) => `${entry.sessionId}/${entry.compaction}`,
 *     write: (entry) =>
 *       Effect.sync(() => {
 *         written.set(`${entry.sessionId}/${entry.compaction}`, entry.messages)
 *         return `${entry.sessionId}/${entry.compaction}`
 *       })
 *   })
 * )
 *
 * const messages = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 * const entry = { sessionId: "s1", compaction: 1, messages }
 * const program = Effect.flatMap(TranscriptArchive.TranscriptArchive, (archive) => archive.write(entry))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(program, archive)), "s1/1")
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class TranscriptArchive
  extends Compat.Service<TranscriptArchive, Service>()("context-compressor/TranscriptArchive")
{}
