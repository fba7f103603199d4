/**
 * The engine's memory of each session between checkpoints: how far the
 * transcript was found clean, where the boundary and pinned messages were,
 * token counts by message id, and the last view given back (what keeps a
 * provider's prompt cache between compactions). Bounded by estimated bytes,
 * the session used least recently forgotten first; a forgotten session loses
 * nothing but time.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import type * as Checkpoint from "../../Checkpoint.js"
import * as Transcript from "../../Transcript.js"
import type * as CompactionPlan from "./CompactionPlan.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * What the engine keeps of one session.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session extends CompactionPlan.Hints {
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
export const make = (maxBytes: number): Sessions => {
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
  return { get, measure, settle }
}
