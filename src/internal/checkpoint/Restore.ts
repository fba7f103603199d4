/**
 * The restore stage of a checkpoint: the view the session's persisted state
 * gives the transcript (its block, pinned messages and the verbatim tail
 * after its boundary), with the head that the engine sent last time taken as
 * it was sent, so a provider's prompt cache holds between compactions.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../../Transcript.js"
import * as CompactionPlan from "./CompactionPlan.js"
import * as SameMessage from "./SameMessage.js"
import type * as SessionCache from "./SessionCache.js"
import * as SessionMemory from "./SessionMemory.js"

/**
 * What the restore stage gives: the persisted state found in the transcript,
 * the view it gives, and that view with the head already sent taken as it
 * went (`sent` messages of it, the whole last view or none).
 *
 * @since 0.1.0
 * @category models
 */
export interface Restored {
  readonly restored: CompactionPlan.Restored
  /** The view before the ladder: the state's block, its pinned messages and the tail. */
  readonly restoredView: Transcript.Transcript
  /** {@link restoredView} with the last view's head as it was sent. */
  readonly view: Transcript.Transcript
  /** How many messages at the head of `view` were sent as they are. */
  readonly sent: number
}

/**
 * Restores a session's view of a transcript from its persisted state and the
 * engine's memory of the session.
 *
 * @since 0.1.0
 * @category restore
 */
export const restore = (
  transcript: Transcript.Transcript,
  state: CompactionPlan.Persisted | undefined,
  session: Pick<SessionCache.Session, "boundaryHint" | "pinnedHint" | "lastView" | "pendingView">
): Restored => {
  const restored = CompactionPlan.restore(transcript, state, session)
  const restoredView = CompactionPlan.restoredView(transcript, restored)
  // A last view another worker sent (read from the shared memory) is matched to this view once, then kept as this worker's.
  if (session.pendingView !== undefined) {
    session.lastView = SessionMemory.hydrate(session.pendingView, restoredView)
    session.pendingView = undefined
  }
  // Between compactions the messages already sent go out as they went (clipped or not): the prompt cache holds.
  const { sent, view } = sentPrefix(restoredView, session.lastView)
  return { restored, restoredView, view, sent }
}

/**
 * The view with the head that matches the last view's base taken as it was
 * sent: position by position while the message is the one the last view was
 * made from (the same object, else the same id, kind and text length); and
 * how many messages at its head were sent as they are (the whole last view,
 * or none), which the ladder leaves alone between compactions.
 *
 * @since 0.1.0
 * @category restore
 */
export const sentPrefix = (
  view: Transcript.Transcript,
  last: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
): { readonly view: Transcript.Transcript; readonly sent: number } => {
  if (last === undefined) return { view, sent: 0 }
  const length = Math.min(view.length, last.base.length)
  let same = 0
  while (same < length && SameMessage.same(view[same]!, last.base[same]!)) same++
  // Only a whole last view is a sent prefix: one that lost messages (a new compaction's state) is not.
  const sent = same === last.base.length ? same : 0
  if (same === 0 || last.sent.slice(0, same).every((message, index) => message === view[index])) return { view, sent }
  return { view: [...last.sent.slice(0, same), ...view.slice(same)], sent }
}
