/**
 * The cut a compaction's view keeps (hysteresis): after a
 * compaction the view takes at most its target, and a newest turn bigger than
 * the verbatim tail is cut by the ladder to meet it. The messages the ladder
 * cut after the block are saved with the compaction state, and a restored view
 * takes them in place of the transcript's (and the block as the ladder cut it,
 * when a view had to), so a reload rebuilds the view that was sent, and the
 * provider's prompt cache still holds after it.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import * as ViewFit from "./ViewFit.js"

/**
 * Where a view's verbatim part starts: just after its compacted block (the
 * system messages and the block before it are not the tail's); 0 without a block.
 *
 * @since 0.1.0
 * @category cutting
 */
export const tailStart = (view: Transcript.Transcript): number =>
  view.findIndex((message) => message._tag === "Compacted") + 1

/**
 * The messages of `fitted`, from its block on, that are not `built`'s at the
 * same place: what the ladder cut in a compaction's view (both views have the
 * same messages in the same order; the ladder only replaces them). The block
 * itself is among them when the ladder clipped it.
 *
 * @since 0.1.0
 * @category cutting
 */
export const cutsOf = (
  built: Transcript.Transcript,
  fitted: Transcript.Transcript
): ReadonlyArray<Transcript.Message> => {
  if (built.length !== fitted.length) return []
  const cuts: Array<Transcript.Message> = []
  for (let index = Math.max(tailStart(fitted) - 1, 0); index < fitted.length; index++) {
    const message = fitted[index]!
    if (message !== built[index] && message._tag !== "System") cuts.push(message)
  }
  return cuts
}

/**
 * A view with the saved cuts in place of the messages they stand for (the
 * same id and kind, from the block on); a cut whose message the view no longer
 * holds is ignored. The cuts are marked as made for a view, so their token
 * counts are never taken for the whole messages'.
 *
 * @since 0.1.0
 * @category cutting
 */
export const apply = (
  view: Transcript.Transcript,
  cuts: ReadonlyArray<Transcript.Message> | undefined
): Transcript.Transcript => {
  if (cuts === undefined || cuts.length === 0) return view
  const byId = new Map(cuts.map((cut) => [cut.id, cut] as const))
  const out = [...view]
  let left = byId.size
  for (let index = Math.max(tailStart(view) - 1, 0); index < out.length && left > 0; index++) {
    const cut = byId.get(out[index]!.id)
    if (cut === undefined || cut._tag !== out[index]!._tag) continue
    out[index] = ViewFit.markDerived(cut)
    left--
  }
  return out
}
