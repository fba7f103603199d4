/**
 * The identity of a session: the id under which the engine keeps a history's
 * compaction state when the caller names none. One definition for every
 * program, so the same history posted to the HTTP API, sent through the proxy
 * or given to the Promise API continues the same session.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Transcript from "./Transcript.js"

/**
 * The prefix of a derived session id.
 *
 * @since 0.1.0
 * @category constants
 */
export const idPrefix = "session-"

/**
 * The session id of a history that names none: {@link idPrefix} and 16 hex
 * digits of a SHA-256 digest of its messages up to and including the first
 * user message (each as its kind, the length of its text and its text).
 *
 * The first user message is the anchor because it is the one prefix a history
 * never rewrites: appending messages, a compaction's view or a later turn
 * leave the id unchanged, while two tasks under the same system prompt get
 * two ids. A history without a user message yet (nothing to compact) is named
 * by its first message alone, and the empty history by the digest of nothing.
 *
 * @example
 * ```ts
 * import { Session, Transcript } from "context-compressor"
 *
 * const history: Transcript.Transcript = [
 *   new Transcript.SystemMessage({ id: "m0", content: "You are a coding agent." }),
 *   new Transcript.UserMessage({ id: "m1", content: "Fix the failing test in parser.ts." })
 * ]
 * const later = [...history, new Transcript.AssistantMessage({ id: "m2", content: "Looking at parser.ts.", toolCalls: [] })]
 * assert.match(Session.idOf(history), /^session-[0-9a-f]{16}$/)
 * assert.strictEqual(Session.idOf(later), Session.idOf(history))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const idOf = (history: Transcript.Transcript): string => {
  const hash = Crypto.createHash("sha256")
  const firstUser = history.findIndex((message) => message._tag === "User")
  for (const message of history.slice(0, firstUser === -1 ? 1 : firstUser + 1)) {
    const text = Transcript.text(message)
    hash.update(`${message._tag}:${text.length}:`).update(text)
  }
  return `${idPrefix}${hash.digest("hex").slice(0, 16)}`
}
