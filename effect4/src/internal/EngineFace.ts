/**
 * What the shared core's checkpoint makes of the Effect 4 face's values
 * (`Pipeline.Face`): its effects (`EffectFx`), the compaction error, the
 * saved state, the `Compacted` report, the working state and the
 * `Checkpoint`, each of this face's classes.
 *
 * @since 0.1.0
 */
import type * as Pipeline from "../../../src/internal/checkpoint/Pipeline.js"
import { CompactionState } from "../../services/CompactionStore.js"
import * as Checkpoint from "../Checkpoint.js"
import * as WorkingState from "../WorkingState.js"
import * as EffectFx from "./EffectFx.js"

/**
 * The Effect 4 face of the checkpoint's values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const face: Pipeline.Face<CompactionState, Checkpoint.Compacted, Checkpoint.Checkpoint> = {
  fx: EffectFx.fx,
  failure: Checkpoint.fromFailure,
  // The working state in the fields is this face's (`workingState` below).
  state: (fields) => new CompactionState(fields as ConstructorParameters<typeof CompactionState>[0]),
  report: Checkpoint.compactedOf,
  workingState: WorkingState.fromData,
  checkpoint: Checkpoint.fromData
}
