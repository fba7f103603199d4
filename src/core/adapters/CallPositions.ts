/**
 * Which of a message's calls a view's copy of it keeps, by position. A call id
 * can come twice in one assistant message (some providers' streams write
 * that), so a call of the view is not found by its id alone: the view keeps a
 * message's calls in their order, and each is matched to the next call of the
 * original with its id, one that is unchanged first. Every adapter writes a
 * changed assistant message back through this, so a call is never written
 * twice nor dropped for sharing its id with another.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"

/**
 * For each call of the view's message, the position of the original's call it
 * stands for, or `undefined` for a call the original does not make (written
 * anew). Positions rise with the view's calls, and none is used twice.
 *
 * @since 0.1.0
 * @category pairing
 */
export const callPositions = (
  original: ReadonlyArray<Transcript.ToolCall>,
  kept: ReadonlyArray<Transcript.ToolCall>
): ReadonlyArray<number | undefined> => {
  let after = -1
  return kept.map((call) => {
    let first: number | undefined
    let same: number | undefined
    for (let k = after + 1; k < original.length; k++) {
      const known = original[k]!
      if (known.id !== call.id) continue
      first ??= k
      if (known.name === call.name && known.arguments === call.arguments) {
        same = k
        break
      }
    }
    const position = same ?? first
    if (position !== undefined) after = position
    return position
  })
}

/**
 * The view's calls by the position of the original call each stands for, and
 * the calls the original does not make, in order.
 *
 * @since 0.1.0
 * @category pairing
 */
export const keptByPosition = (
  original: ReadonlyArray<Transcript.ToolCall>,
  kept: ReadonlyArray<Transcript.ToolCall>
): { readonly at: ReadonlyMap<number, Transcript.ToolCall>; readonly added: ReadonlyArray<Transcript.ToolCall> } => {
  const at = new Map<number, Transcript.ToolCall>()
  const added: Array<Transcript.ToolCall> = []
  callPositions(original, kept).forEach((position, n) => {
    if (position === undefined) added.push(kept[n]!)
    else at.set(position, kept[n]!)
  })
  return { at, added }
}
