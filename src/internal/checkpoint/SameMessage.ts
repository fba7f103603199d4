/**
 * When two messages are the same message, the one rule the checkpoint's
 * memory between calls relies on: the same object, else (a caller that
 * rebuilds its messages at every call) the same kind and id and the same
 * text length, for a compacted block the same content. The repair stage's
 * clean scan and the restore stage's sent prefix both match by it.
 *
 * @since 0.1.0
 */
import * as Transcript from "../transcript/TranscriptData.js"

/**
 * What identifies a message when its object is not the one seen: the message
 * seen, its id, kind and text length.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fingerprint {
  readonly message: Transcript.Message
  readonly id: string
  readonly tag: Transcript.Message["_tag"]
  readonly length: number
}

/**
 * The fingerprint of a message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fingerprintOf = (message: Transcript.Message): Fingerprint => ({
  message,
  id: message.id,
  tag: message._tag,
  length: Transcript.text(message).length
})

/**
 * Whether a message is the one fingerprinted: the same object, else the same
 * kind and id and the same text length (a compacted block: the same content).
 *
 * @since 0.1.0
 * @category predicates
 */
export const matches = (message: Transcript.Message, print: Fingerprint): boolean =>
  message === print.message || (
    message._tag === print.tag && message.id === print.id &&
    (message._tag === "Compacted"
      ? print.message._tag === "Compacted" && message.content === print.message.content
      : Transcript.text(message).length === print.length)
  )

/**
 * Whether two messages are the same message, by {@link matches}.
 *
 * @since 0.1.0
 * @category predicates
 */
export const same = (a: Transcript.Message, b: Transcript.Message): boolean => a === b || matches(a, fingerprintOf(b))
