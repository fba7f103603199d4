/**
 * Recall handles in the shared core (docs/effect4.md): the `ctx_…` name of a
 * message's text in a session, which the block lists, the archives index and
 * recall looks up, the same on both faces. `core/block/Handles.ts` and
 * `Recall` give these under their names.
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as MessageText from "./MessageText.js"

/**
 * What every handle starts with.
 *
 * @since 0.1.0
 * @category constants
 */
export const prefix = "ctx_"

/**
 * What a handle looks like: the prefix, three letters of its session, then the letters of its text.
 *
 * @since 0.1.0
 * @category constants
 */
export const pattern = /^ctx_[A-Za-z0-9]{10,}$/

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const letters = (digest: Buffer, count: number): string => {
  let out = ""
  // A byte modulo 62 is slightly biased; a handle needs to be distinct, not uniform.
  for (let i = 0; i < count; i++) out += alphabet[digest[i]! % alphabet.length]
  return out
}

const sessionTag = (sessionId: string): string =>
  letters(Crypto.createHash("sha256").update("context-compressor/session\0").update(sessionId).digest(), 3)

/**
 * The text recall gives back of a message: its text, none for a compacted block.
 *
 * @since 0.1.0
 * @category getters
 */
export const textOf = (message: MessageText.MessageShape): string | undefined =>
  message._tag === "Compacted" ? undefined : MessageText.text(message)

/**
 * The handle of a text in a session: stable for the two, another for any
 * other session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const handleOf = (sessionId: string, text: string): string =>
  prefix + sessionTag(sessionId) +
  letters(
    Crypto.createHash("sha256").update(`context-compressor/recall\0${sessionId.length}:${sessionId}\0`).update(text)
      .digest(),
    9
  )

/**
 * Whether a handle was made in `sessionId`: a handle of another session (or a
 * made-up one) is refused before anything is read.
 *
 * @since 0.1.0
 * @category guards
 */
export const belongsTo = (handle: string, sessionId: string): boolean =>
  pattern.test(handle) && handle.slice(prefix.length, prefix.length + 3) === sessionTag(sessionId)
