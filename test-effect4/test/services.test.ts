/**
 * The Effect 4 face's services (src/effect4/services/) over the shared core: the
 * summary cache's key digests as on Effect 3, a compaction state stored by
 * the Effect 3 face decodes here and survives its own JSON, settings clamp
 * into their ranges, and a state that would not survive its JSON is refused.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as SummarizerOffline from "../../src/face/layers/SummarizerOffline.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as CompactionStore from "../../src/face/services/CompactionStore.js"
import * as Settings from "../../src/face/services/Settings.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import * as SummaryCache from "../../src/face/services/SummaryCache.js"

const state = (compactions: number, updatedAt = 5) =>
  new CompactionStore.CompactionState({
    sessionId: "s1",
    compactions,
    block: new Transcript.CompactedBlock({ id: "b", content: "sum", firstReplacedId: "m1", lastReplacedId: "m9" }),
    boundaryId: "m10",
    updatedAt
  })

describe("the services on Effect 4", () => {
  it("a shared-prefix request's cache key digests to what the Effect 3 face gives for it, with and without the summariser's identity", () => {
    const request = new Summarizer.SummaryRequest({
      model: "m",
      system: "S",
      prompt: "P",
      maxTokens: 100,
      agentic: false,
      namespace: "ns",
      span: [],
      prefix: [
        new Transcript.AssistantMessage({
          id: "a",
          content: "c",
          toolCalls: [new Transcript.ToolCall({ id: "t", name: "bash", arguments: "{}" })]
        })
      ]
    })
    // Printed by src/face/services/SummaryCache.ts on Effect 3 for the same request, of a summariser that gives no identity and of the offline one.
    assert.strictEqual(
      SummaryCache.digest(SummaryCache.keyOf(request)),
      "c1bd7e8f560358eab46148f827a11751ad857800057370cfa213e4fb40056ebb"
    )
    assert.strictEqual(
      SummaryCache.digest(SummaryCache.keyOf(request, SummarizerOffline.identity)),
      "fdc6f6d1811a25f6e2a01116830a74398ac94be9cf54718b65a5235f97818453"
    )
  })

  it.effect("a state's JSON as the Effect 3 face stores it decodes here, with its defaults, and comes back", () =>
    Effect.gen(function*() {
      // Written by src/face/services/CompactionStore.ts's encodeJson on Effect 3.
      const stored =
        `{"sessionId":"s1","compactions":2,"block":{"id":"b","content":"sum","firstReplacedId":"m1","lastReplacedId":"m9","_tag":"Compacted"},"boundaryId":"m10","updatedAt":5}`
      const decoded = yield* Schema.decodeEffect(CompactionStore.StateJson)(stored)
      assert.deepStrictEqual(decoded.pinnedIds, [])
      assert.strictEqual(decoded.block.content, "sum")
      const again = yield* CompactionStore.encodeJson(decoded)
      assert.deepStrictEqual(JSON.parse(again), { ...JSON.parse(stored), pinnedIds: [] })
    }))

  it.effect("a state that would not survive its JSON (a non-finite time) is refused", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(CompactionStore.encodeJson(state(1, Number.NaN)))
      assert.isTrue(Exit.isFailure(exit))
      assert.isTrue(Exit.isSuccess(yield* Effect.exit(CompactionStore.encodeJson(state(1)))))
    }))

  it.prop("clamped settings are within their ranges, and a non-finite value takes its default", [
    Schema.Number,
    Schema.Number
  ], ([triggerPct, keepFraction]) => {
    const clamped = Settings.clamp(new Settings.CompactionSettings({ ...Settings.defaults, triggerPct, keepFraction }))
    const [low, high] = Settings.ranges.triggerPct
    assert.isTrue(clamped.triggerPct >= low && clamped.triggerPct <= high)
    assert.isTrue(clamped.keepFraction >= Settings.ranges.keepFraction[0])
    if (!Number.isFinite(triggerPct)) assert.strictEqual(clamped.triggerPct, Settings.defaults.triggerPct)
    if (Number.isFinite(triggerPct) && triggerPct >= low && triggerPct <= high) {
      assert.strictEqual(clamped.triggerPct, triggerPct)
    }
  })

  it("settings are named by key, field or environment variable, as on Effect 3", () => {
    assert.strictEqual(Settings.allowed("triggerPct"), "a number from 10 to 95")
    const byEnv = Settings.nameOf("CONTEXT_COMPRESSOR_COMPACTION_KEEP_FRACTION")
    assert.isTrue(byEnv._tag === "Some" && byEnv.value.field === "keepFraction")
    assert.strictEqual(Settings.layered([{ summarizerModel: "" }, { triggerPct: 200 }]).triggerPct, 95)
    assert.isUndefined(Settings.layered([{ summarizerModel: "" }]).summarizerModel)
  })
})
