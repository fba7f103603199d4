import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as CompactionPlan from "../../../../../../src/core/checkpoint/CompactionPlan.js"
import * as Restore from "../../../../../../src/core/checkpoint/Restore.js"
import * as Budget from "../../../../../../src/face/engine/Budget.js"
import * as Summarise from "../../../../../../src/face/engine/internal/checkpoint/Summarise.js"
import type * as SummaryOutcome from "../../../../../../src/face/engine/internal/checkpoint/SummaryOutcome.js"
import * as Cooperative from "../../../../../../src/face/engine/internal/Cooperative.js"
import * as SummaryPrompt from "../../../../../../src/face/engine/SummaryPrompt.js"
import * as Transcript from "../../../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../../../src/face/rules/index.js"
import * as Settings from "../../../../../../src/face/services/Settings.js"
import type { SummaryRequest } from "../../../../../../src/face/services/Summarizer.js"
import * as Transcripts from "../../../../../transcripts.js"

const tokens = (message: Transcript.Message) => Math.ceil(Transcript.text(message).length / 4) + 4
const transcript = Transcripts.longSession
const plan = CompactionPlan.planWithin({
  transcript,
  kit: Transcript.kit,
  restored: Restore.restoreState(transcript, undefined, { boundaryHint: 0, pinnedHint: [] }),
  view: transcript,
  compactions: 1,
  settings: Settings.defaults,
  trigger: 6_000,
  targetAfter: 3_000,
  manual: false,
  tokens
})
const cuts = () => CompactionPlan.cutsOf({ count: (text) => Math.ceil(text.length / 4) })

const stage = (outcome: SummaryOutcome.SummaryOutcome) => {
  const asked: Array<{ readonly request: SummaryRequest; readonly sessionId: string }> = []
  const summarise = Summarise.make({
    summarizeOnce: (request, sessionId) => Effect.sync(() => (asked.push({ request, sessionId }), outcome)),
    buildRequest: SummaryPrompt.buildWithTotals,
    buildSharedPrefix: SummaryPrompt.buildSharedPrefix,
    policies: builtInPolicies,
    systemPrompt: undefined
  })
  return { asked, summarise }
}

/** No view given back since the last compaction: a shared-prefix request falls back to delimited. */
const nothingSent = { view: transcript, sent: 0, transcriptLength: transcript.length, renamed: undefined }

describe("Summarise", () => {
  it.effect("asks the summariser once for the span the boundary moves out, with the settings' model over the session's and the instructions", () =>
    Effect.gen(function*() {
      const { asked, summarise } = stage({
        _tag: "Summary",
        text: "## Primary request\nFix it.",
        cacheHit: false,
        calls: 1,
        gate: ["passed"]
      })
      const settings = new Settings.CompactionSettings({ ...Settings.defaults, summarizerModel: "small-model" })
      const summarised = yield* summarise(plan, cuts(), plan.boundary!, {
        sessionId: "s",
        settings,
        model: "big-model",
        trigger: 6_000,
        instructions: "the parser",
        clock: Cooperative.slice(0),
        sent: nothingSent
      })
      assert.strictEqual(asked.length, 1)
      assert.strictEqual(asked[0]!.sessionId, "s")
      assert.strictEqual(asked[0]!.request.model, "small-model")
      assert.strictEqual(asked[0]!.request.instructions, "the parser")
      const expected = SummaryPrompt.buildWithTotals(CompactionPlan.spanAt(plan, plan.boundary!), {
        model: "small-model",
        maxTokens: settings.summaryMaxTokens,
        policies: builtInPolicies,
        envelopeCapChars: settings.envelopeCapChars,
        maxSpanChars: Budget.summaryInputChars(settings, 6_000),
        instructions: "the parser",
        systemPrompt: undefined
      })
      assert.strictEqual(asked[0]!.request.prompt, expected.request.prompt)
      assert.deepStrictEqual(summarised.ruleTotals, expected.ruleTotals)
      assert.strictEqual(summarised.summary, "## Primary request\nFix it.")
    }))

  it.effect("the working state of the boundary is extracted into the checkpoint's cuts, as the block built there reads it", () =>
    Effect.gen(function*() {
      const { summarise } = stage({
        _tag: "Summary",
        text: "## Primary request\nFix it.",
        cacheHit: false,
        calls: 1,
        gate: ["passed"]
      })
      const kept = cuts()
      yield* summarise(plan, kept, plan.boundary!, {
        sessionId: "s",
        settings: Settings.defaults,
        model: "m",
        trigger: 6_000,
        instructions: undefined,
        clock: Cooperative.slice(0),
        sent: nothingSent
      })
      assert.deepStrictEqual(Array.from(kept.workingStates.keys()), [plan.boundary!])
      assert.strictEqual(
        CompactionPlan.workingStateAt(plan, kept, plan.boundary!),
        kept.workingStates.get(plan.boundary!)
      )
    }))

  it.effect("a trim gives no summary and says why", () =>
    Effect.gen(function*() {
      const { summarise } = stage({
        _tag: "Trim",
        reason: "the summariser failed (unavailable)",
        calls: 2,
        gate: ["summarizer: unavailable"]
      })
      const summarised = yield* summarise(plan, cuts(), plan.boundary!, {
        sessionId: "s",
        settings: Settings.defaults,
        model: "m",
        trigger: 6_000,
        instructions: undefined,
        clock: Cooperative.slice(0),
        sent: nothingSent
      })
      assert.isUndefined(summarised.summary)
      assert.strictEqual(summarised.outcome._tag, "Trim")
      assert.strictEqual(summarised.request.model, "m")
    }))

  it.effect("summary_request = shared-prefix sends the view as last sent, then the instruction; with nothing sent it is delimited", () =>
    Effect.gen(function*() {
      const { asked, summarise } = stage({
        _tag: "Summary",
        text: "## Primary request\nFix it.",
        cacheHit: false,
        calls: 1,
        gate: ["passed"]
      })
      const settings = new Settings.CompactionSettings({ ...Settings.defaults, summaryRequest: "shared-prefix" })
      const sent = {
        view: transcript,
        sent: transcript.length,
        transcriptLength: transcript.length,
        renamed: undefined
      }
      const shared = yield* summarise(plan, cuts(), plan.boundary!, {
        sessionId: "s",
        settings,
        model: "m",
        trigger: 6_000,
        instructions: undefined,
        clock: Cooperative.slice(0),
        sent
      })
      assert.deepStrictEqual(
        shared.request.prefix?.map((message) => message.id),
        transcript.map((message) => message.id)
      )
      assert.include(asked[0]!.request.prompt, "## Primary request")
      const delimited = yield* summarise(plan, cuts(), plan.boundary!, {
        sessionId: "s",
        settings,
        model: "m",
        trigger: 6_000,
        instructions: undefined,
        clock: Cooperative.slice(0),
        sent: nothingSent
      })
      assert.isUndefined(delimited.request.prefix)
    }))
})
