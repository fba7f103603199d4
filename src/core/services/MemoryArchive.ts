/**
 * The memory transcript archive in the shared core (docs/effect4.md): the
 * messages compactions moved out, by session and recall handle, bounded in
 * characters (the sessions written longest ago forgotten first), and the
 * place a block names for an entry. `TranscriptArchiveMemory` of each face
 * wraps it in its service.
 *
 * @since 0.1.0
 */
import * as ArchiveDigest from "./ArchiveDigest.js"
import type * as MessageText from "./MessageText.js"
import * as RecallHandles from "./RecallHandles.js"

/**
 * The characters of message text the archive keeps across sessions by default (64 MiB).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxChars = 64 * 1024 * 1024

/**
 * Where an entry is: a place in the compactor's memory, named by the
 * compaction's number and the digest of its messages' ids.
 *
 * @since 0.1.0
 * @category getters
 */
export const locate = (entry: {
  readonly compaction: number
  readonly messages: ReadonlyArray<{ readonly id: string }>
}): string =>
  `the compactor's memory archive (compaction ${entry.compaction}, ${ArchiveDigest.digestOf(entry.messages)})`

/**
 * A memory archive of messages of type `M`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Archive<M> {
  /** Keeps each message of the entry under its handle (one already held stays), then forgets the oldest sessions past the bound. */
  readonly write: (sessionId: string, messages: ReadonlyArray<M>) => void
  /** The message of `sessionId` whose recall text has `handle`, if held. */
  readonly lookup: (sessionId: string, handle: string) => M | undefined
}

/**
 * An empty memory archive holding at most `maxChars` characters of text,
 * but for the session written last, which is always kept.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <M extends MessageText.MessageShape>(maxChars: number = defaultMaxChars): Archive<M> => {
  // Session to handle to message; a Map keeps the sessions in the order last written.
  const sessions = new Map<string, { readonly byHandle: Map<string, M>; chars: number }>()
  let total = 0
  return {
    write: (sessionId, messages) => {
      const session = sessions.get(sessionId) ?? { byHandle: new Map<string, M>(), chars: 0 }
      sessions.delete(sessionId)
      sessions.set(sessionId, session)
      for (const message of messages) {
        const text = RecallHandles.textOf(message)
        if (text === undefined) continue
        const handle = RecallHandles.handleOf(sessionId, text)
        if (session.byHandle.has(handle)) continue
        session.byHandle.set(handle, message)
        session.chars += text.length
        total += text.length
      }
      for (const [id, oldest] of sessions) {
        if (total <= maxChars || id === sessionId) break
        sessions.delete(id)
        total -= oldest.chars
      }
    },
    lookup: (sessionId, handle) => sessions.get(sessionId)?.byHandle.get(handle)
  }
}
