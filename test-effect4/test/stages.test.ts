/**
 * The checkpoint's stages on Effect 4 (docs/effect4.md): the shared core repairs, plans the
 * boundary and tail of, checks and fits (the ladder's rungs over the built-in policies) the example
 * session and every shared transcript, with effect@4 the only Effect there is and the messages as
 * plain data, and answers what the same stages answer on Effect 3 over the Effect 3 face's classes
 * (`test/support/Effect3Stages.ts`, run by this test as a process of its own on the package's
 * Effect 3).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import type * as RuleData from "../../src/internal/reduce/RuleData.js"
import * as TranscriptData from "../../src/internal/transcript/TranscriptData.js"
import { stageAnswers } from "../../test/support/StageAnswers.js"

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

describe("the checkpoint's stages on Effect 4", () => {
  it("repair, boundary, tail, view checks and the ladder's rungs answer over the example session what they answer on Effect 3", () => {
    const [example] = effect3.cases
    assert.strictEqual(example?.file, "examples/session/agent-session.json")
    assert.isAbove(example!.transcript.length, 100)
    const answers = JSON.parse(JSON.stringify(stageAnswers(example!.transcript, effect3.policies)))
    assert.deepStrictEqual(answers, example!.answers)
    // The rungs did something: at a fifth of the view's tokens the ladder reduced or clipped it.
    assert.isAbove(answers.rungs[2].steps.length, 0)
  })

  it.skipIf(!effect3.sharedTranscripts)(
    "the same over every shared transcript (../shared/transcripts; skipped when the folder is missing)",
    () => {
      const shared = effect3.cases.slice(1)
      assert.isAbove(shared.length, 0)
      for (const { answers, file, transcript } of shared) {
        assert.deepStrictEqual(JSON.parse(JSON.stringify(stageAnswers(transcript, effect3.policies))), answers, file)
      }
    }
  )

  it("a copy the core makes of a message no face made is plain data of the same kind, the original untouched", () => {
    const message: TranscriptData.ToolResult = { _tag: "ToolResult", id: "m1", toolCallId: "c1", content: "long" }
    const copy = TranscriptData.withFields(message, { content: "short" })
    assert.deepStrictEqual(copy, { _tag: "ToolResult", id: "m1", toolCallId: "c1", content: "short" })
    assert.strictEqual(message.content, "long")
    assert.strictEqual(TranscriptData.kitOf(copy), TranscriptData.dataKit)
  })
})
