/**
 * The engine's memory of each session between checkpoints: how far the
 * transcript was found clean, where the boundary and pinned messages were,
 * token counts by message id, and the last view given back (what keeps a
 * provider's prompt cache between compactions). Bounded by estimated bytes,
 * the session used least recently forgotten first; a forgotten session loses
 * nothing but time. With a store that keeps the sessions' memory (workers on
 * one database), the last view and counts are written there after each
 * checkpoint and read back when another worker wrote them since: this
 * worker's caches are then a cache of it.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Hash from "node:crypto"
import type * as Checkpoint from "../../Checkpoint.js"
import type * as CompactionStore from "../../../services/CompactionStore.js"
import * as Transcript from "../../Transcript.js"
import type * as Restore from "./Restore.js"
import * as SessionMemory from "./SessionMemory.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * What the engine keeps of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session extends Restore.Hints {
  /** How far the transcript was found to need no repair. */
  clean: ViewRepair.Clean
  /** The tokens of the last view given back, and the length of the transcript it was made of. */
  lastSent: { readonly length: number; readonly tokens: number } | undefined
  /** The last view given back (`sent`), and the view it was made from before the ladder (`base`), message for message. */
  lastView: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
  /** The transcript's length at the session's last compaction. */
  compactedAt: number
  /** Token counts by message id, with the text length they were counted for. */
  readonly counts: Map<string, { readonly length: number; readonly tokens: number }>
  /** The version of the shared memory this session's last view and counts are (none: not read or written yet). */
  version?: string | undefined
  /** A last view read from the shared memory, matched to the transcript's view at the next restore. */
  pendingView?: SessionMemory.PendingView | undefined
}

/**
 * What one session's caches take, estimated: a count entry, a view message's
 * text (UTF-16) and a few references.
 *
 * @since 0.1.0
 * @category getters
 */
export const bytesOf = (session: Session): number => {
  let bytes = 512 + session.counts.size * 96 + session.clean.calls.size * 48
  if (session.lastView !== undefined) {
    for (const message of session.lastView.sent) bytes += 64 + Transcript.text(message).length * 2
  }
  return bytes
}

/**
 * The sessions of one engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sessions {
  /** A session's caches (new ones empty), marked as used now. */
  readonly get: (sessionId: string) => Session
  /**
   * A session's caches (as `get`), brought up to the shared memory first when
   * the store keeps one and another worker wrote it since: its last view,
   * counts and compaction point replace this worker's. A memory that cannot be
   * read is a warning: the session goes on from this worker's caches.
   */
  readonly load: (sessionId: string) => Effect.Effect<Session>
  /**
   * Writes a session's memory after a checkpoint, when the store keeps one;
   * a failed write is a warning (another worker then builds its view from an
   * older memory: the prompt cache's prefix may be lost, never a message).
   */
  readonly persist: (sessionId: string) => Effect.Effect<void>
  /** Measures a session's caches after a checkpoint, and forgets the least recently used sessions past the bound. */
  readonly measure: (sessionId: string, session: Session) => void
  /**
   * What a checkpoint leaves in its session's caches, and the checkpoint as
   * given back: the view under the transcript's own ids, its repairs, whether
   * it keeps the last view's head (`prefixStable`) and the messages since the
   * last compaction.
   */
  readonly settle: (
    sessionId: string,
    session: Session,
    settled: {
      readonly checkpoint: Omit<Checkpoint.Checkpoint, "repairs">
      /** The view before the ladder the checkpoint's view was made from. */
      readonly base: Transcript.Transcript
      readonly transcriptLength: number
      readonly renamed: ViewRepair.Renamed | undefined
      readonly repairs: ReadonlyArray<Checkpoint.Repair>
    }
  ) => Checkpoint.Checkpoint
}

/**
 * The sessions of one engine, their caches bounded by `maxBytes` (estimated).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (maxBytes: number, shared?: CompactionStore.MemoryStore | undefined): Sessions => {
  const sessions = new Map<string, Session>()
  // The estimated bytes of each session's caches, as last measured; their sum.
  const measured = new Map<string, number>()
  let cachedBytes = 0
  const get = (sessionId: string): Session => {
    let cached = sessions.get(sessionId)
    if (cached === undefined) {
      cached = { counts: new Map(), boundaryHint: 0, pinnedHint: [], clean: ViewRepair.empty, lastSent: undefined, lastView: undefined, compactedAt: 0 }
    } else {
      // Used now: the most recent in the map's order, the last to be forgotten.
      sessions.delete(sessionId)
    }
    sessions.set(sessionId, cached)
    return cached
  }
  const measure = (sessionId: string, session: Session): void => {
    // A session forgotten while its checkpoint ran is not counted again.
    if (sessions.get(sessionId) !== session) return
    const bytes = bytesOf(session)
    cachedBytes += bytes - (measured.get(sessionId) ?? 0)
    measured.set(sessionId, bytes)
    for (const [oldest] of sessions) {
      if (cachedBytes <= maxBytes || oldest === sessionId) break
      sessions.delete(oldest)
      cachedBytes -= measured.get(oldest) ?? 0
      measured.delete(oldest)
    }
  }
  const settle: Sessions["settle"] = (sessionId, session, { base, checkpoint, renamed, repairs, transcriptLength }) => {
    const last = session.lastView?.sent
    const prefixStable = Option.isNone(checkpoint.compacted) && last !== undefined && last.length <= checkpoint.view.length &&
      last.every((message, index) => checkpoint.view[index] === message)
    if (Option.isSome(checkpoint.compacted)) session.compactedAt = transcriptLength
    session.lastSent = { length: transcriptLength, tokens: checkpoint.tokens }
    session.lastView = base.length === checkpoint.view.length ? { base, sent: checkpoint.view } : undefined
    measure(sessionId, session)
    return {
      ...checkpoint,
      view: ViewRepair.restoreIds(checkpoint.view, renamed),
      repairs,
      prefixStable,
      sinceCompaction: Math.max(transcriptLength - session.compactedAt, 0)
    }
  }
  const load = (sessionId: string): Effect.Effect<Session> =>
    shared === undefined ? Effect.sync(() => get(sessionId)) : Effect.gen(function*() {
      const stored = yield* Effect.orElseSucceed(
        Effect.tapError(shared.load(sessionId), (error) => Effect.logWarning(`context-compressor: session ${sessionId}: its shared memory could not be read (${error.reason}); this worker's is used`)),
        () => Option.none()
      )
      const session = get(sessionId)
      if (Option.isNone(stored) || stored.value.version === session.version || stored.value.version === "") return session
      const decoded = SessionMemory.decode(stored.value.memory)
      if (Either.isLeft(decoded) || decoded.right === undefined) {
        if (Either.isLeft(decoded)) yield* Effect.logWarning(`context-compressor: session ${sessionId}: its shared memory does not decode (${decoded.left}); this worker's is used`)
        return session
      }
      session.version = stored.value.version
      session.lastSent = decoded.right.lastSent
      session.compactedAt = decoded.right.compactedAt
      session.lastView = undefined
      session.pendingView = decoded.right.view
      return session
    })
  const persist = (sessionId: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      const session = sessions.get(sessionId)
      if (shared === undefined || session === undefined) return Effect.void
      const version = Hash.randomUUID()
      const text = SessionMemory.encode(session)
      return shared.save(sessionId, version, text).pipe(
        Effect.tap(() => Effect.sync(() => (session.version = version))),
        Effect.catchAll((error) => Effect.logWarning(`context-compressor: session ${sessionId}: its memory could not be shared (${error.reason}); other workers use an older one`))
      )
    })
  return { get, load, persist, measure, settle }
}
