/**
 * The head of a shared-prefix summariser request (the
 * `summary_request` setting): the view exactly as the engine last gave it
 * for the session, as the provider got it, so that its prompt cache serves
 * the request's head. Only a view whose head is the whole last view given
 * back, and whose span to summarise lies within it, can be one; otherwise the
 * request is delimited.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * A shared prefix: the messages as sent, and how many of the newest of them
 * stay verbatim after the compaction.
 *
 * @since 0.1.0
 * @category models
 */
export interface SharedPrefix {
  readonly prefix: Transcript.Transcript
  readonly kept: number
}

/**
 * The shared prefix of a compaction, or `undefined` when there is none: the
 * engine gave back no view for the session since its last compaction or
 * restart (`sent` is 0), or the cut lies past what was sent. `view` is the
 * checkpoint's view, whose first `sent` messages are the last view as given
 * back and whose tail is the transcript's from the restored boundary on
 * (position for position); `cut` the compaction's boundary in the
 * transcript; `renamed` the ids the repair gave reused call ids, put back as sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (input: {
  readonly view: Transcript.Transcript
  readonly sent: number
  readonly transcriptLength: number
  readonly cut: number
  readonly renamed: ViewRepair.Renamed | undefined
}): SharedPrefix | undefined => {
  const { cut, sent, transcriptLength, view } = input
  if (sent <= 0 || sent > view.length) return undefined
  const cutInView = view.length - (transcriptLength - cut)
  if (cutInView <= 0 || cutInView > sent) return undefined
  return { prefix: ViewRepair.restoreIds(view.slice(0, sent), input.renamed), kept: sent - cutInView }
}
