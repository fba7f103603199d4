/**
 * When two messages are the same message, the one rule the checkpoint's
 * memory between calls relies on: the same object, else (a caller that
 * rebuilds its messages at every call) the same content, field by field:
 * kind, id, text, an assistant's calls (id, name, arguments), a result's call
 * id and name, a block's replaced ids. A length, a position or an id never
 * stands for the content. Where the message seen is no longer at hand (a
 * memory another worker wrote, a persisted compaction), its {@link digestOf}
 * stands for it: a SHA-256 over the same fields, computed once per message
 * object by a {@link Digests} memo.
 *
 * @since 0.1.0
 */
import * as Hash from "node:crypto"
import type * as Transcript from "../transcript/TranscriptData.js"

const sameCalls = (a: ReadonlyArray<Transcript.ToolCall>, b: ReadonlyArray<Transcript.ToolCall>): boolean =>
  a === b || (a.length === b.length && a.every((call, index) => {
    const other = b[index]!
    return call.id === other.id && call.name === other.name && call.arguments === other.arguments
  }))

/**
 * Whether two messages hold the same content: the same kind and id, and every
 * field the model or the engine reads equal (text, calls, a result's call id
 * and name, a block's replaced ids).
 *
 * @since 0.1.0
 * @category predicates
 */
export const sameContent = (a: Transcript.Message, b: Transcript.Message): boolean => {
  if (a === b) return true
  if (a._tag !== b._tag || a.id !== b.id || a.content !== b.content) return false
  switch (a._tag) {
    case "Assistant":
      return sameCalls(a.toolCalls, (b as Transcript.AssistantMessage).toolCalls)
    case "ToolResult": {
      const other = b as Transcript.ToolResult
      return a.toolCallId === other.toolCallId && a.name === other.name
    }
    case "Compacted": {
      const other = b as Transcript.CompactedBlock
      return a.firstReplacedId === other.firstReplacedId && a.lastReplacedId === other.lastReplacedId
    }
    default:
      return true
  }
}

/**
 * The digest of a message's content: 32 hex digits of a SHA-256 over the
 * fields {@link sameContent} compares, each prefixed by its length (no two
 * contents share an input). Two messages with the same digest are the same
 * message, as far as any caller can tell.
 *
 * @since 0.1.0
 * @category constructors
 */
export const digestOf = (message: Transcript.Message): string => {
  const hash = Hash.createHash("sha256")
  const part = (text: string) => hash.update(`${text.length}:`).update(text)
  part(message._tag)
  part(message.id)
  part(message.content)
  switch (message._tag) {
    case "Assistant":
      part(String(message.toolCalls.length))
      for (const call of message.toolCalls) part(call.id), part(call.name), part(call.arguments)
      break
    case "ToolResult":
      part(message.toolCallId)
      part(message.name === undefined ? "" : `=${message.name}`)
      break
    case "Compacted":
      part(message.firstReplacedId)
      part(message.lastReplacedId)
      break
  }
  return hash.digest("hex").slice(0, 32)
}

/**
 * Digests of messages, each computed once per message object.
 *
 * @since 0.1.0
 * @category models
 */
export interface Digests {
  readonly of: (message: Transcript.Message) => string
}

/**
 * A memo of {@link digestOf} by message object (an engine keeps one for its life).
 *
 * @since 0.1.0
 * @category constructors
 */
export const digests = (): Digests => {
  const memo = new WeakMap<Transcript.Message, string>()
  return {
    of: (message) => {
      const known = memo.get(message)
      if (known !== undefined) return known
      const digest = digestOf(message)
      memo.set(message, digest)
      return digest
    }
  }
}

/**
 * The digest of a run of messages: a SHA-256 over their digests, in order.
 *
 * @since 0.1.0
 * @category constructors
 */
export const digestOfAll = (messages: Iterable<Transcript.Message>, digests: Digests): string => {
  const hash = Hash.createHash("sha256")
  for (const message of messages) hash.update(digests.of(message))
  return hash.digest("hex").slice(0, 32)
}

/**
 * The digest of a whole run of messages ({@link digestOfAll}) and, in the same
 * pass, of its first `at` messages (`undefined` when the run is shorter).
 *
 * @since 0.1.0
 * @category constructors
 */
export const digestsOfRun = (
  messages: ReadonlyArray<Transcript.Message>,
  at: number | undefined,
  digests: Digests
): { readonly all: string; readonly at: string | undefined } => {
  const hash = Hash.createHash("sha256")
  let prefix = at === 0 ? hash.copy().digest("hex").slice(0, 32) : undefined
  messages.forEach((message, index) => {
    hash.update(digests.of(message))
    if (index + 1 === at) prefix = hash.copy().digest("hex").slice(0, 32)
  })
  return { all: hash.digest("hex").slice(0, 32), at: prefix }
}
