import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import type * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as Generated from "../../../transcripts.js"

const engine = <RS = never>(
  summarizer: Layer.Layer<Summarizer.Summarizer | RS>,
  options: Partial<Compactor.Options> = {}
) =>
  Compactor.layer({ policies: builtInPolicies, ...options }).pipe(
    Layer.provideMerge(Testing.layer<RS>({ summarizer, settings: { replyReserveTokens: 200 } }))
  )

const summary = (marker: string) =>
  SummaryPrompt.generalSections.map((heading) =>
    `${heading}\n${`Section text for ${marker}, long enough to be a real section. `.repeat(3)}`
  ).join("\n\n")

const session = Generated.longSession
/** A window so large that the session is far under the trigger. */
const input = (transcript: Transcript.Transcript = session) => ({
  sessionId: "s1",
  transcript,
  model: "test-model",
  contextWindow: 2_000_000
})

describe("Compactor.compactNow (manual compaction with instructions)", () => {
  it.effect("compacts a session under the trigger, and the summariser's request carries the instructions", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const untouched = yield* compactor.checkpoint(input())
      assert.isTrue(Option.isNone(untouched.compacted))
      const manual = yield* compactor.compactNow({
        ...input(),
        instructions: "Focus on the parser cache and its tests."
      })
      const report = Option.getOrThrow(manual.compacted)
      assert.strictEqual(report.cause, "manual")
      assert.strictEqual(report.instructions, "Focus on the parser cache and its tests.")
      assert.isBelow(manual.tokens, untouched.tokens)
      // Everything before the newest user message is in the block.
      assert.strictEqual(report.boundary.index, session.findLastIndex((message) => message._tag === "User"))
      const [request] = yield* (yield* SummarizerScripted.ScriptedSummarizer).requests
      assert.strictEqual(request!.instructions, "Focus on the parser cache and its tests.")
      assert.include(request!.system, "<instructions>Focus on the parser cache and its tests.</instructions>")
      assert.include(request!.prompt, "<instructions>Focus on the parser cache and its tests.</instructions>")
      assert.isTrue(request!.prompt.trimEnd().endsWith(SummaryPrompt.firstHeading))
    }).pipe(Effect.provide(engine(SummarizerScripted.layer([summary("a")])))))

  it.effect("other instructions miss the summary cache; the same ones hit it", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      yield* compactor.compactNow({ ...input(), sessionId: "a", instructions: "Keep the parser." })
      const same = yield* compactor.compactNow({ ...input(), sessionId: "b", instructions: "Keep the parser." })
      const other = yield* compactor.compactNow({ ...input(), sessionId: "c", instructions: "Keep the tests." })
      assert.isTrue(Option.getOrThrow(same.compacted).cacheHit)
      assert.isFalse(Option.getOrThrow(other.compacted).cacheHit)
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 2)
    }).pipe(Effect.provide(engine(SummarizerScripted.layer([summary("a"), summary("b")])))))

  it.effect("the offline summariser shows the instructions in the block", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const manual = yield* compactor.compactNow({
        ...input(),
        instructions: "Keep what the failing parser test needs."
      })
      const block = manual.view.find((message) => message._tag === "Compacted")!
      assert.include(
        block.content,
        "Focus requested for this compaction (the user's instructions):\n> Keep what the failing parser test needs."
      )
    }).pipe(Effect.provide(engine(SummarizerOffline.layer))))

  it.effect("a view with nothing before its one user message cannot be compacted: a manual compaction fails with cannot-fit", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const oneTurn = [
        new Transcript.SystemMessage({ id: "s", content: "You are an agent." }),
        new Transcript.UserMessage({ id: "u", content: "Fix it." })
      ]
      const outcome = TestCompat.getFailure(
        yield* Compat.result(compactor.compactNow({ ...input(oneTurn), instructions: "x" }))
      )
      assert.isTrue(Option.isSome(outcome) && outcome.value.reason === "cannot-fit")
    }).pipe(Effect.provide(engine(SummarizerOffline.layer))))
})

describe("Compactor summarizerSystemPrompt", () => {
  it.effect("a custom system prompt is sent and gets its own cache namespace", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      yield* compactor.compactNow(input())
      const [request] = yield* (yield* SummarizerScripted.ScriptedSummarizer).requests
      assert.strictEqual(request!.system, "Summarise tersely.")
      assert.strictEqual(request!.namespace, SummaryPrompt.namespaceFor("Summarise tersely."))
      assert.notStrictEqual(request!.namespace, SummaryPrompt.namespace)
      assert.notStrictEqual(SummaryPrompt.namespaceFor("Summarise tersely!"), request!.namespace)
    }).pipe(
      Effect.provide(engine(SummarizerScripted.layer([summary("a")]), { summarizerSystemPrompt: "Summarise tersely." }))
    ))

  it.effect("a compaction's own summary prompt replaces the engine's for that compaction only, with a namespace of its own", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      yield* compactor.compactNow({ ...input(), summaryPrompt: "Keep only the decisions, as a list." })
      yield* compactor.compactNow({ ...input(), sessionId: "other" })
      const [asked, plain] = yield* (yield* SummarizerScripted.ScriptedSummarizer).requests
      assert.strictEqual(asked!.system, "Keep only the decisions, as a list.")
      assert.strictEqual(asked!.namespace, SummaryPrompt.namespaceFor("Keep only the decisions, as a list."))
      assert.strictEqual(plain!.system, "Summarise tersely.")
    }).pipe(
      Effect.provide(
        engine(SummarizerScripted.layer([summary("a"), summary("b")]), { summarizerSystemPrompt: "Summarise tersely." })
      )
    ))
})
