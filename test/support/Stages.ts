/**
 * A checkpoint's stages up to the plan, as the stage tests start from them:
 * the budget (`Count.budget`), the ladder's (`Ladder.fitOf`), the restored
 * view of a transcript without a saved state, and its plan within the
 * budget; tokens counted as chars/4 plus 4 a message.
 */
import * as CompactionPlan from "../../src/core/checkpoint/CompactionPlan.js"
import * as Count from "../../src/core/checkpoint/Count.js"
import * as Ladder from "../../src/core/checkpoint/Ladder.js"
import * as Restore from "../../src/core/checkpoint/Restore.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import * as Settings from "../../src/face/services/Settings.js"

/** A message's tokens: chars/4 plus 4. */
export const tokens = (message: Transcript.Message): number => Math.ceil(Transcript.text(message).length / 4) + 4

/** A text's tokens: chars/4. */
export const count = (text: string): number => Math.ceil(text.length / 4)

/**
 * The budget, the ladder's budget, the restored view and the plan of `transcript` in a window, on the default
 * settings, and a maker of the plan's cuts (each call a fresh one); with `archivePathOf`, the blocks built at
 * a cut name where an archive puts what the cut moves out.
 */
export const planned = (
  contextWindow: number,
  transcript: Transcript.Transcript,
  archivePathOf?: (movedOut: Transcript.Transcript) => string
) => {
  const counted = Count.budget({
    settings: Settings.defaults,
    input: { contextWindow },
    cause: "trigger",
    counted: transcript.reduce((sum, message) => sum + tokens(message), 0),
    lastSent: undefined,
    transcriptDigest: ""
  })
  const fit = Ladder.fitOf({
    settings: Settings.defaults,
    counted,
    policies: builtInPolicies,
    firstUserMessage: Transcript.firstUserMessage(transcript),
    tokens
  })
  const restored = Restore.restoreState(transcript, undefined, { boundaryHint: 0, pinnedHint: [] })
  const plan = CompactionPlan.planWithin({
    transcript,
    kit: Transcript.kit,
    restored,
    view: transcript,
    compactions: 1,
    settings: Settings.defaults,
    trigger: counted.messagesTrigger,
    targetAfter: counted.targetAfter,
    manual: false,
    tokens
  })
  return { counted, fit, restored, plan, cuts: () => CompactionPlan.cutsOf({ count, archivePathOf }) }
}
