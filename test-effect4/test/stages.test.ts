/**
 * The checkpoint's stages on Effect 4 (docs/effect4.md): the shared core repairs, plans the
 * boundary and tail of, checks and fits (the ladder's rungs over the built-in policies) the example
 * session and every shared transcript, plans a compaction of each, extracts its working state,
 * builds its block and fits it (`CompactionPlan`, `Ladder.fitSteps`), with effect@4 the only Effect
 * there is and the messages the Effect 4 face's classes (`src/effect4/src/Transcript.ts`, which carry
 * their kit), and answers what the same stages answer on Effect 3 over the Effect 3 face's classes
 * (`test/support/Effect3Stages.ts`, run by this test as a process of its own on the package's
 * Effect 3).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as CompactionPlan from "../../src/core/checkpoint/CompactionPlan.js"
import * as Restore from "../../src/core/checkpoint/Restore.js"
import type * as RuleData from "../../src/core/reduce/RuleData.js"
import * as SettingsValues from "../../src/core/services/SettingsValues.js"
import * as TranscriptData from "../../src/core/transcript/TranscriptData.js"
import * as WorkingState from "../../src/face/engine/WorkingState.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { stageAnswers, tokens } from "../../test/support/StageAnswers.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Stages {
  readonly policies: ReadonlyArray<RuleData.Policy>
  readonly sharedTranscripts: boolean
  readonly cases: ReadonlyArray<{
    readonly file: string
    readonly transcript: TranscriptData.Transcript
    readonly answers: unknown
  }>
}

const effect3: Effect3Stages = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Stages.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
)

/** A transcript printed by the Effect 3 program, decoded into the Effect 4 face's classes. */
const decoded = Schema.decodeUnknownSync(Transcript.Transcript)

describe("the checkpoint's stages on Effect 4", () => {
  it("repair, boundary, tail, view checks, the ladder's rungs, the plan, the working state, the block and the compaction fit answer over the example session what they answer on Effect 3", () => {
    const [example] = effect3.cases
    assert.strictEqual(example?.file, "examples/session/agent-session.json")
    assert.isAbove(example!.transcript.length, 100)
    const answers = JSON.parse(JSON.stringify(stageAnswers(decoded(example!.transcript), effect3.policies)))
    assert.deepStrictEqual(answers, example!.answers)
    // The rungs did something: at a fifth of the view's tokens the ladder reduced or clipped it.
    assert.isAbove(answers.rungs[2].steps.length, 0)
    // A compaction was planned and fitted in each window, with its summary and as a trim; the smaller the window,
    // the later the trim cuts.
    for (const compaction of answers.compactions) {
      assert.strictEqual(compaction.summarised._tag, "Fitted")
      assert.isAbove(compaction.workingState.commands.length, 0)
    }
    assert.isAbove(answers.compactions[0].trimmed.cut, answers.compactions[2].trimmed.cut)
  })

  it("the core's stages make the Effect 4 face's messages: the block and the view built over Effect 4 classes are of those classes, and the working state wraps in its Schema classes", () => {
    const transcript = decoded(effect3.cases[0]!.transcript)
    const restored = Restore.restoreState(transcript, undefined, { boundaryHint: 0, pinnedHint: [] })
    const plan = CompactionPlan.planWithin({
      transcript,
      kit: Transcript.kit,
      restored,
      view: transcript,
      compactions: 1,
      settings: SettingsValues.defaults,
      trigger: 20_000,
      targetAfter: 10_000,
      manual: false,
      tokens
    })
    const cuts = CompactionPlan.cutsOf({ count: (text) => Math.ceil(text.length / 4) })
    const built = CompactionPlan.build(plan, cuts, plan.boundary!, {
      summary: "The summary.",
      fallbackReason: undefined,
      archived: false
    })
    assert.instanceOf(built.block, Transcript.CompactedBlock)
    for (const message of built.view) {
      assert.isTrue(Schema.is(Transcript.Message)(message), message.id)
      assert.isTrue(
        [
          Transcript.SystemMessage,
          Transcript.UserMessage,
          Transcript.AssistantMessage,
          Transcript.ToolResult,
          Transcript.CompactedBlock
        ].some((face) => message instanceof face),
        message.id
      )
    }
    const state = WorkingState.fromData(CompactionPlan.workingStateAt(plan, cuts, plan.boundary!))
    assert.instanceOf(state, WorkingState.WorkingState)
    assert.instanceOf(state.commands[0], WorkingState.Command)
    assert.deepStrictEqual(
      Schema.decodeUnknownSync(WorkingState.WorkingState)(Schema.encodeSync(WorkingState.WorkingState)(state)),
      state
    )
  })

  it.skipIf(!effect3.sharedTranscripts)(
    "the same over every shared transcript (../shared/transcripts; skipped when the folder is missing)",
    () => {
      const shared = effect3.cases.slice(1)
      assert.isAbove(shared.length, 0)
      for (const { answers, file, transcript } of shared) {
        assert.deepStrictEqual(
          JSON.parse(JSON.stringify(stageAnswers(decoded(transcript), effect3.policies))),
          answers,
          file
        )
      }
    }
  )

  it("a copy the core makes of a message no face made is plain data of the same kind, the original untouched", () => {
    const message: TranscriptData.ToolResult = { _tag: "ToolResult", id: "m1", toolCallId: "c1", content: "long" }
    const copy = TranscriptData.withFields(message, { content: "short" })
    assert.deepStrictEqual(copy, { _tag: "ToolResult", id: "m1", toolCallId: "c1", content: "short" })
    assert.strictEqual(message.content, "long")
    assert.strictEqual(Object.getPrototypeOf(copy), Object.prototype)
  })
})
