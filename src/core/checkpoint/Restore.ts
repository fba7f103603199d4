/**
 * The restore stage of a checkpoint: the view the session's persisted state
 * gives the transcript (its block, pinned messages and the verbatim tail
 * after its boundary), with the head that the engine sent last time taken as
 * it was sent, so a provider's prompt cache holds between compactions.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import type * as WorkingState from "../working-state/WorkingState.js"
import * as MemoryView from "./MemoryView.js"
import * as RestoredView from "./RestoredView.js"
import * as SameMessage from "./SameMessage.js"
import * as TailCuts from "./TailCuts.js"

/**
 * Where a session's boundary and pinned messages were found last time, so a
 * checkpoint looks there first instead of searching the whole history.
 *
 * @since 0.1.0
 * @category models
 */
export interface Hints {
  readonly boundaryHint: number
  readonly pinnedHint: ReadonlyArray<number>
  /**
   * What a restore last found the state's source to be (`sourceDigestOf`): its digest and the messages it was
   * made of, so that a caller rebuilding its messages at every call has them compared field by field, not
   * hashed again.
   */
  readonly verified?: { readonly digest: string; readonly source: ReadonlyArray<Transcript.Message> } | undefined
}

/**
 * What a persisted compaction state says, as far as restoring it needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Persisted {
  readonly compactions: number
  readonly block: Transcript.CompactedBlock
  readonly boundaryId: string
  readonly pinnedIds: ReadonlyArray<string>
  readonly workingState?: WorkingState.WorkingState | undefined
  /** The messages after the block as the ladder cut them when the compaction was made (`TailCuts`). */
  readonly cutMessages?: ReadonlyArray<Transcript.Message> | undefined
  /**
   * The digest of what the compaction was made from ({@link sourceDigestOf}): a transcript whose messages there
   * differ is not restored. Absent in states saved before it was kept, which are restored by their ids.
   */
  readonly sourceDigest?: string | undefined
}

/**
 * What the persisted state gives this transcript: the block in force, where
 * the verbatim part starts, the pinned messages, the working state of what the
 * block replaces. A state whose boundary or pinned messages the transcript no
 * longer holds (a rewritten history) gives nothing: the whole transcript is
 * the view again.
 *
 * @since 0.1.0
 * @category models
 */
export interface RestoredState {
  readonly prefix: number
  readonly restored: boolean
  readonly block: Transcript.CompactedBlock | undefined
  readonly from: number
  readonly pinned: ReadonlyArray<number>
  readonly workingState: WorkingState.WorkingState | undefined
  /** The messages after the block as the compaction that made it cut them, in place of the transcript's. */
  readonly cuts: ReadonlyArray<Transcript.Message> | undefined
  /** The hints given, moved to where the state's boundary and pinned messages were found: the session keeps them. */
  readonly hints: Hints
}

/** Where the pinned messages of the state are, or `undefined` when the transcript no longer holds one. */
const pinnedIndices = (
  transcript: Transcript.Transcript,
  ids: ReadonlyArray<string>,
  hints: Hints
): ReadonlyArray<number> | undefined => {
  if (ids.length === hints.pinnedHint.length && ids.every((id, i) => transcript[hints.pinnedHint[i]!]?.id === id)) {
    return hints.pinnedHint
  }
  const found = ids.map((id) => transcript.findIndex((message) => message.id === id))
  return found.includes(-1) ? undefined : found
}

const boundaryIndex = (transcript: Transcript.Transcript, state: Persisted, hints: Hints): number | undefined => {
  // The boundary found last time is checked first: no search of the whole history per checkpoint.
  if (transcript[hints.boundaryHint]?.id === state.boundaryId) return hints.boundaryHint
  const index = transcript.findIndex((message) => message.id === state.boundaryId)
  return index === -1 ? undefined : index
}

/**
 * The digest of what a compaction was made from, in a transcript: the
 * messages its block replaces (from the end of the system prefix to the
 * boundary, pinned ones included) and, after the boundary, the messages of
 * the ids the ladder cut (the originals the state's cuts stand for), by
 * their content (`SameMessage.digestOf`). The save stage keeps it with the
 * state; a restore over a transcript that gives another digest (a message
 * edited, even to the same length) does not restore: the checkpoint
 * compacts again from what the caller sent.
 *
 * @since 0.1.0
 * @category restore
 */
export const sourceDigestOf = (
  transcript: Transcript.Transcript,
  prefix: number,
  boundary: number,
  cutIds: ReadonlyArray<string>,
  digests: SameMessage.Digests
): string => SameMessage.digestOfAll(sourceOf(transcript, prefix, boundary, cutIds), digests)

/**
 * The messages {@link sourceDigestOf} digests, in its order.
 *
 * @since 0.1.0
 * @category restore
 */
export const sourceOf = (
  transcript: Transcript.Transcript,
  prefix: number,
  boundary: number,
  cutIds: ReadonlyArray<string>
): ReadonlyArray<Transcript.Message> => {
  const tail = new Map<string, Transcript.Message>()
  if (cutIds.length > 0) {
    const wanted = new Set(cutIds)
    for (let index = boundary; index < transcript.length && tail.size < wanted.size; index++) {
      const message = transcript[index]!
      if (wanted.has(message.id) && !tail.has(message.id)) tail.set(message.id, message)
    }
  }
  const originals = cutIds.flatMap((id) => {
    const message = tail.get(id)
    return message === undefined ? [] : [message]
  })
  return [...transcript.slice(prefix, boundary), ...originals]
}

/** Whether a state's source is the transcript's, and what the session keeps of it for the next restore. */
const verifySource = (
  transcript: Transcript.Transcript,
  prefix: number,
  boundary: number,
  state: Persisted,
  known: Hints["verified"],
  digests: SameMessage.Digests
): { readonly same: boolean; readonly verified: Hints["verified"] } => {
  const digest = state.sourceDigest
  if (digest === undefined) return { same: true, verified: known }
  const source = sourceOf(transcript, prefix, boundary, (state.cutMessages ?? []).map(({ id }) => id))
  // The same messages as the last restore verified, field by field: no digest to compute again.
  if (
    known !== undefined && known.digest === digest && known.source.length === source.length &&
    known.source.every((message, index) => SameMessage.sameContent(message, source[index]!))
  ) return { same: true, verified: known }
  const same = SameMessage.digestOfAll(source, digests) === digest
  return { same, verified: same ? { digest, source } : known }
}

/**
 * Restores a persisted state over a transcript (see {@link RestoredState}),
 * looking where the hints say first; the state restored carries the hints
 * moved to where its messages were found.
 *
 * @since 0.1.0
 * @category restore
 */
export const restoreState = (
  transcript: Transcript.Transcript,
  state: Persisted | undefined,
  hints: Hints,
  digests: SameMessage.Digests = SameMessage.digests()
): RestoredState => {
  const prefix = RestoredView.systemPrefix(transcript)
  const knownBoundary = state === undefined ? prefix : boundaryIndex(transcript, state, hints)
  const knownPinned = state === undefined ? [] : pinnedIndices(transcript, state.pinnedIds, hints)
  // The ids found, the compacted span must hold what the block was made from, byte for byte.
  const source = state === undefined || knownBoundary === undefined || knownPinned === undefined
    ? undefined
    : verifySource(transcript, prefix, knownBoundary, state, hints.verified, digests)
  const found: Hints = {
    boundaryHint: state === undefined || knownBoundary === undefined ? hints.boundaryHint : knownBoundary,
    pinnedHint: state === undefined || knownPinned === undefined ? hints.pinnedHint : knownPinned,
    ...(source?.verified === undefined ? {} : { verified: source.verified })
  }
  const restored = knownBoundary !== undefined && knownPinned !== undefined && source?.same !== false
  return {
    prefix,
    restored,
    block: restored ? state?.block : undefined,
    from: restored ? knownBoundary : prefix,
    pinned: restored ? knownPinned : [],
    workingState: restored ? state?.workingState : undefined,
    cuts: restored ? state?.cutMessages : undefined,
    hints: found
  }
}

/**
 * The view of a restored state, with the cuts its compaction saved in place
 * of the transcript's messages.
 *
 * @since 0.1.0
 * @category restore
 */
export const stateView = (
  transcript: Transcript.Transcript,
  restored: RestoredState,
  narrowed?: RestoredView.Narrowed | undefined
): Transcript.Transcript =>
  TailCuts.apply(
    RestoredView.viewOf(transcript, restored.prefix, restored.block, restored.pinned, restored.from, narrowed),
    restored.cuts
  )

/**
 * What the restore stage gives: the persisted state found in the transcript,
 * the view it gives, and that view with the head already sent taken as it
 * went (`sent` messages of it, the whole last view or none).
 *
 * @since 0.1.0
 * @category models
 */
export interface Restored {
  readonly restored: RestoredState
  /** The view before the ladder: the state's block, its pinned messages and the tail. */
  readonly restoredView: Transcript.Transcript
  /** {@link restoredView} with the last view's head as it was sent. */
  readonly view: Transcript.Transcript
  /** How many messages at the head of `view` were sent as they are. */
  readonly sent: number
  /**
   * The last view given back, as this restore read it: a last view another worker sent (read from the shared
   * memory) is matched to this view here, and the session keeps it as this worker's from then on.
   */
  readonly lastView: LastView | undefined
}

/**
 * The last view given back (`sent`), and the view it was made from before the ladder (`base`), message for message.
 *
 * @since 0.1.0
 * @category models
 */
export interface LastView {
  readonly base: Transcript.Transcript
  readonly sent: Transcript.Transcript
}

/**
 * Restores a session's view of a transcript from its persisted state and a
 * snapshot of the engine's memory of the session; what the session should
 * keep of it (the hints, the last view matched) is in what it gives.
 *
 * @since 0.1.0
 * @category restore
 */
export const restore = (
  transcript: Transcript.Transcript,
  state: Persisted | undefined,
  session: Hints & {
    readonly lastView: LastView | undefined
    readonly pendingView?: MemoryView.PendingView | undefined
  },
  kit: Transcript.Kit,
  narrowed?: RestoredView.Narrowed | undefined,
  digests: SameMessage.Digests = SameMessage.digests()
): Restored => {
  const restored = restoreState(transcript, state, session, digests)
  const rebuilt = stateView(transcript, restored, narrowed)
  // A last view another worker sent (read from the shared memory) is matched to this view once, then kept as this worker's.
  const lastView = session.pendingView === undefined
    ? session.lastView
    : MemoryView.hydrate(session.pendingView, rebuilt, kit, digests)
  // A caller that rebuilds its messages at every call: the head that is, field by field, the last view's is taken
  // as those very objects, so what was counted, digested and reduced for them is not done again.
  const restoredView = lastView === undefined ? rebuilt : seenHead(rebuilt, lastView.base)
  // Between compactions the messages already sent go out as they went (clipped or not): the prompt cache holds.
  const { sent, view } = sentPrefix(restoredView, lastView)
  return { restored, restoredView, view, sent, lastView }
}

/**
 * A view with its head, while it holds the same content as `seen` message
 * for message (`SameMessage.sameContent`), made of `seen`'s objects: equal fields,
 * one object, so every cache by object holds across calls.
 *
 * @since 0.1.0
 * @category restore
 */
export const seenHead = (view: Transcript.Transcript, seen: Transcript.Transcript): Transcript.Transcript => {
  const same = sameHead(view, seen)
  return view.slice(0, same).every((message, index) => message === seen[index])
    ? view
    : [...seen.slice(0, same), ...view.slice(same)]
}

/** How many messages at the head of `view` hold, position by position, the content of `seen`'s. */
const sameHead = (view: Transcript.Transcript, seen: Transcript.Transcript): number => {
  const length = Math.min(view.length, seen.length)
  let same = 0
  while (same < length && SameMessage.sameContent(view[same]!, seen[same]!)) same++
  return same
}

/**
 * The view with the head that matches the last view's base taken as it was
 * sent: position by position while the message is the one the last view was
 * made from (the same object, else the same content, `SameMessage.sameContent`); and
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
  const same = sameHead(view, last.base)
  // Only a whole last view is a sent prefix: one that lost messages (a new compaction's state) is not.
  const sent = same === last.base.length ? same : 0
  if (same === 0 || last.sent.slice(0, same).every((message, index) => message === view[index])) return { view, sent }
  return { view: [...last.sent.slice(0, same), ...view.slice(same)], sent }
}
