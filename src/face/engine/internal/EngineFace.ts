/**
 * What the checkpoint's line of stages makes of its plain data
 * (`Pipeline.Face`): the compaction error, the saved state, the `Compacted`
 * report, the working state and the `Checkpoint`, each a class of the public
 * models. The working state's class is given by `Compactor`
 * (`WorkingState.fromData`): no internal module loads the public
 * orchestration modules.
 *
 * @since 0.1.0
 */
import { CompactionState } from "../../services/CompactionStore.js"
import * as Checkpoint from "../Checkpoint.js"
import type * as Pipeline from "./checkpoint/Pipeline.js"

/**
 * The classes of the checkpoint's values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const face: Omit<
  Pipeline.Face<CompactionState, Checkpoint.Compacted, Checkpoint.Checkpoint, Checkpoint.CompactionError>,
  "workingState"
> = {
  failure: Checkpoint.fromFailure,
  // The working state in the fields is the class `workingState` gives (`Compactor`).
  state: (fields) => new CompactionState(fields as ConstructorParameters<typeof CompactionState>[0]),
  report: Checkpoint.compactedOf,
  checkpoint: Checkpoint.fromData
}
