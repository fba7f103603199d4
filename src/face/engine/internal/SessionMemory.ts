/**
 * What the engine remembers of a session between checkpoints, as a store
 * shared by workers keeps it: the last view given back as a diff over the
 * view it was made from (each message of that base by its kind, id and text
 * length; of the view, only the messages the ladder changed, whole), the
 * tokens and transcript length of the last view, and the transcript length
 * at the last compaction. A worker that did not serve the session's last
 * request reads it back and builds, from the same transcript and state, the
 * same view as the worker that did, message for message. This module is the
 * face's codec, compiled for both Effects (workers of either read each other's memory); the fingerprints and `hydrate` are the shared core's
 * (`MemoryView`).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import type * as Count from "../../../core/checkpoint/Count.js"
import type * as SameMessage from "../../../core/checkpoint/SameMessage.js"
import * as Transcript from "../../models/Transcript.js"
import * as SessionCache from "./checkpoint/SessionCache.js"

/**
 * A message of the last view's base as its fingerprint: what the sent-prefix
 * rule compares (`Restore.sameMessage`): kind, id and text length, and for a
 * block a digest of its content.
 *
 * @since 0.1.0
 * @category models
 */
export const Fingerprint = Compat.Tuple([
  Schema.String,
  Schema.String,
  Schema.Number,
  Compat.optionalElement(Schema.String)
])

/**
 * The persisted memory of a session.
 *
 * @since 0.1.0
 * @category models
 */
export const Memory = Schema.Struct({
  lastSent: Schema.optional(Schema.Struct({
    tokens: Schema.Number,
    digest: Schema.optional(Schema.String)
  })),
  compactedAt: Schema.Number,
  /** A derived id's session: the last transcript seen, its length and digest (`SessionCache.Seen`). */
  seen: Schema.optional(Schema.Struct({ length: Schema.Number, digest: Schema.String })),
  view: Schema.optional(Schema.Struct({
    base: Schema.Array(Fingerprint),
    /** The view's messages that are not the base's at their position: `[position, message]`. */
    changed: Schema.Array(Compat.Tuple([Schema.Number, Transcript.Message]))
  }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Memory = typeof Memory.Type

/**
 * The last view of a memory, still to be matched to a transcript's view.
 *
 * @since 0.1.0
 * @category models
 */
export type PendingView = NonNullable<Memory["view"]>

const MemoryJson = Compat.fromJsonString(Memory)
const encodeJson = Schema.encodeSync(MemoryJson)
const decodeJson = Compat.decodeUnknownResult(MemoryJson)

/**
 * A session's memory as JSON text.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encode = (memory: {
  readonly lastSent: Count.LastSent | undefined
  readonly compactedAt: number
  readonly lastView: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
  readonly lastSeen?: SessionCache.Seen | undefined
}, digests?: SameMessage.Digests): string => {
  const value = SessionCache.memoryOf(memory, encodeMessage, digests)
  // The fingerprints and counts are their own encoding (strings and numbers): only the changed messages go through
  // the Schema, so a memory written at every checkpoint costs its JSON, not a check of each fingerprint.
  // `encodeSchema` writes the same text (a property test holds them together).
  return JSON.stringify(
    value.view === undefined ? value : {
      ...value,
      view: { base: value.view.base, changed: value.view.changed.map(([at, message]) => [at, encodeMessage(message)]) }
    }
  )
}

const encodeMessage = Schema.encodeSync(Transcript.Message)

/**
 * {@link encode} through the memory's Schema whole: the same text, slower.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeSchema = (memory: Parameters<typeof encode>[0], digests?: SameMessage.Digests): string =>
  encodeJson(SessionCache.memoryOf(memory, encodeMessage, digests))

/**
 * A memory read back; none for an empty text (a row holding only reported
 * tokens) or one that does not decode, which costs a worker the prompt
 * cache's prefix, never a wrong view.
 *
 * @since 0.1.0
 * @category codecs
 */
export const decode = (text: string): Compat.Result<Memory | undefined, string> =>
  text === ""
    ? Compat.Result.succeed(undefined)
    : Compat.matchResult(decodeJson(text), {
      onSuccess: (memory): Compat.Result<Memory | undefined, string> => Compat.Result.succeed(memory),
      onFailure: (error) => Compat.Result.fail(error.message)
    })

/**
 * The codec the shared core's session memory is made with on this face (`SessionCache.make`).
 *
 * @since 0.1.0
 * @category codecs
 */
export const codec: SessionCache.MemoryCodec = {
  encode,
  decode
}
