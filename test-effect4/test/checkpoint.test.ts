/**
 * The checkpoint's models on Effect 4 (`src/effect4/src/Checkpoint.ts`, `ViewCheck.ts`): the report and
 * the error encode with the Effect 3 face's fields and defaults, a report stored before a field
 * existed decodes with its default, and a failure the shared core words becomes this face's
 * `CompactionError` with its violations as this face's classes.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as CheckpointFailures from "../../src/core/checkpoint/CheckpointFailures.js"
import * as Checkpoint from "../../src/face/engine/Checkpoint.js"
import * as ViewCheck from "../../src/face/engine/ViewCheck.js"
import * as Transcript from "../../src/face/models/Transcript.js"

const report = {
  sessionId: "s",
  cause: "trigger",
  compactions: 1,
  tokensBefore: 900,
  tokensAfter: 300,
  trigger: 800,
  boundary: { index: 4, id: "m4" },
  replaced: { firstId: "m1", lastId: "m3", count: 3 },
  cacheHit: false,
  summarizerCalls: 1,
  gate: ["passed"],
  fallback: "none",
  summaryChars: 120,
  missingFromSummary: [],
  userMessagesOmitted: 0,
  rules: { keep: 2 }
} as const

describe("the checkpoint's models on Effect 4", () => {
  it("a Compacted report made without the ladder, repairs and dropped facts encodes them with the Effect 3 defaults, and decodes back", () => {
    const compacted = new Checkpoint.Compacted(report)
    const encoded = Schema.encodeSync(Checkpoint.Compacted)(compacted)
    assert.deepStrictEqual(encoded, { ...report, ladder: [], repairs: [], dropped: { facts: 0, summaryTokens: 0 } })
    const decoded = Schema.decodeUnknownSync(Checkpoint.Compacted)(report)
    assert.deepStrictEqual(decoded.ladder, [])
    assert.deepStrictEqual(decoded.dropped, { facts: 0, summaryTokens: 0 })
    assert.isUndefined(decoded.archivePath)
  })

  it("a failure the core words becomes this face's CompactionError: its reason, message and violations as ViewCheck.Violation", () => {
    const question = new Transcript.UserMessage({ id: "m0", content: "list the files" })
    const orphan = new Transcript.ToolResult({ id: "m1", toolCallId: "c1", content: "src" })
    const violations = ViewCheck.check([question, orphan])
    assert.isAbove(violations.length, 0)
    assert.instanceOf(violations[0], ViewCheck.Violation)
    const error = Checkpoint.fromFailure(CheckpointFailures.invalidView("s", violations))
    assert.instanceOf(error, Checkpoint.CompactionError)
    assert.strictEqual(error._tag, "CompactionError")
    assert.strictEqual(error.reason, "invalid-view")
    assert.strictEqual(error.message, violations.map((violation) => violation.detail).join("; "))
    assert.instanceOf(error.violations?.[0], ViewCheck.Violation)
    const store = Checkpoint.fromFailure(CheckpointFailures.store("s")({ reason: "disk full" }))
    assert.deepStrictEqual(Schema.encodeSync(Checkpoint.CompactionError)(store), {
      _tag: "CompactionError",
      reason: "store",
      sessionId: "s",
      message: "the compaction state could not be read or written: disk full"
    })
  })

  it("the report fields count the view before the ladder from its steps", () => {
    const fields = Checkpoint.reportFields({
      view: [new Transcript.UserMessage({ id: "m1", content: "Fix the parser." })],
      tokens: 900,
      trigger: 25_600,
      compacted: Option.none(),
      ladder: [
        new Checkpoint.LadderStep({
          step: "clip-messages",
          messageIds: ["m1"],
          tokensBefore: 1_500,
          tokensAfter: 900,
          detail: "clipped"
        })
      ],
      repairs: []
    })
    assert.strictEqual(fields.tokensBefore, 1_500)
    assert.isNull(fields.compacted)
  })
})
