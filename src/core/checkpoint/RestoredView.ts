/**
 * The view a block gives a transcript, shared by the restore stage (the
 * view a persisted state gives) and the plan (the view a new block gives at
 * a cut): the system messages at the head, the block, the pinned messages
 * (an assistant message narrowed to its pinned calls), then the verbatim
 * transcript from the boundary on.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import * as TranscriptModel from "../transcript/TranscriptData.js"

/**
 * The messages before the first non-system one: kept at the head of every view.
 *
 * @since 0.1.0
 * @category views
 */
export const systemPrefix = (transcript: Transcript.Transcript): number => {
  const index = transcript.findIndex((message) => message._tag !== "System")
  return index === -1 ? transcript.length : index
}

/**
 * The pinned assistant messages narrowed to their pinned calls, by the message
 * they narrow, kept across the checkpoints of one engine (which owns one,
 * made by {@link narrowedMemo}), so the same narrowing gives the same message
 * object at every checkpoint and its token count is cached too.
 *
 * @since 0.1.0
 * @category models
 */
export interface Narrowed {
  readonly byMessage: WeakMap<
    Transcript.Message,
    { readonly key: string; readonly message: Transcript.AssistantMessage }
  >
}

/**
 * An empty {@link Narrowed}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const narrowedMemo = (): Narrowed => ({ byMessage: new WeakMap() })

/**
 * The pinned messages, each assistant message narrowed to the calls whose
 * results are pinned with it (with `narrowed`, the same narrowing gives the
 * same message object at every checkpoint; without it, a new one).
 *
 * @since 0.1.0
 * @category views
 */
export const pinnedMessages = (
  transcript: Transcript.Transcript,
  pinned: ReadonlyArray<number>,
  narrowed?: Narrowed | undefined
): ReadonlyArray<Transcript.Message> => {
  const answered = new Set(pinned.flatMap((index) => {
    const message = transcript[index]!
    return message._tag === "ToolResult" ? [message.toolCallId] : []
  }))
  return pinned.map((index) => {
    const message = transcript[index]!
    if (message._tag !== "Assistant" || message.toolCalls.every((call) => answered.has(call.id))) return message
    const toolCalls = message.toolCalls.filter((call) => answered.has(call.id))
    const key = toolCalls.map((call) => call.id).join("\u0000")
    const known = narrowed?.byMessage.get(message)
    if (known !== undefined && known.key === key) return known.message
    const narrowedMessage = TranscriptModel.withFields(message, { toolCalls })
    narrowed?.byMessage.set(message, { key, message: narrowedMessage })
    return narrowedMessage
  })
}

/**
 * The view of a transcript: the system messages, the block, the pinned
 * messages and the transcript from the boundary on; the transcript itself
 * when there is no block.
 *
 * @since 0.1.0
 * @category views
 */
export const viewOf = (
  transcript: Transcript.Transcript,
  prefix: number,
  block: Transcript.CompactedBlock | undefined,
  pinned: ReadonlyArray<number>,
  boundary: number,
  narrowed?: Narrowed | undefined
): Transcript.Transcript =>
  block === undefined
    ? transcript
    : [
      ...transcript.slice(0, prefix),
      block,
      ...pinnedMessages(transcript, pinned, narrowed),
      ...transcript.slice(boundary)
    ]
