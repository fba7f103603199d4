/**
 * A checkpoint's outcome as the shared core makes it: the view, what the
 * checkpoint did, the compaction report (the face's `Compacted`, made by
 * the face), the ladder's rungs and the repairs as plain data. Each face
 * makes its `Checkpoint` of it (an `Option` of the report, its `LadderStep`
 * and `Repair` classes).
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import type * as Ladder from "./Ladder.js"
import type * as ViewRepair from "./ViewRepair.js"

/**
 * One rung of the degradation ladder a view took.
 *
 * @since 0.1.0
 * @category models
 */
export type LadderStep = Ladder.LadderStep

/**
 * A repair made in the view, never in the transcript.
 *
 * @since 0.1.0
 * @category models
 */
export type Repair = ViewRepair.Repair

/**
 * The outbound view and what the checkpoint did (each face's `Checkpoint`,
 * with the report none or the face's `Compacted`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckpointData<Report> {
  readonly view: Transcript.Transcript
  readonly tokens: number
  readonly trigger: number
  readonly compacted: Report | undefined
  readonly ladder: ReadonlyArray<LadderStep>
  readonly repairs: ReadonlyArray<Repair>
  readonly prefixStable?: boolean | undefined
  readonly sinceCompaction?: number | undefined
  /** The session the view was made in: the input's, or the branch of a derived id the history was found in. */
  readonly sessionId?: string | undefined
}
