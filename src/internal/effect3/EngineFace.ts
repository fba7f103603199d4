/**
 * What the shared core's checkpoint makes of the face's values (on either Effect)
 * (`Pipeline.Face`): its effects (`EffectFx`), the compaction error, the
 * saved state, the `Compacted` report, the working state and the
 * `Checkpoint`, each of this face's classes. The working state's class is
 * given by `Compactor` (`WorkingState.fromData`): no internal module loads
 * the public orchestration modules.
 *
 * @since 0.1.0
 */
import { CompactionState } from "../../../services/CompactionStore.js"
import * as Checkpoint from "../../Checkpoint.js"
import type * as Pipeline from "../checkpoint/Pipeline.js"
import * as EffectFx from "./EffectFx.js"

/**
 * The face of the checkpoint's values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const face: Omit<Pipeline.Face<CompactionState, Checkpoint.Compacted, Checkpoint.Checkpoint>, "workingState"> = {
  fx: EffectFx.fx,
  failure: Checkpoint.fromFailure,
  // The working state in the fields is this face's (`workingState` below).
  state: (fields) => new CompactionState(fields as ConstructorParameters<typeof CompactionState>[0]),
  report: Checkpoint.compactedOf,
  checkpoint: Checkpoint.fromData
}
