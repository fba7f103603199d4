import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as fc from "fast-check"
import * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as Adapters from "../../../../src/face/adapters/Adapters.js"
import * as CompactDocument from "../../../../src/face/adapters/CompactDocument.js"
import * as Checkpoint from "../../../../src/face/engine/Checkpoint.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Session from "../../../../src/face/engine/Session.js"
import { effectProp } from "../../../support/Property.js"

/** What the fake engine was asked: which entry, with what input. */
interface Asked {
  readonly entry: "checkpoint" | "contextOverflow" | "compactNow"
  readonly input: Checkpoint.CheckpointInput & Checkpoint.CompactNowInput & Checkpoint.OverflowInput
}

/**
 * An engine that records what it is asked and gives back the transcript's
 * last message alone as the view, or fails with `failure` when given one.
 */
const fakeEngine = (asked: Array<Asked>, failure?: Checkpoint.CompactionError): Compactor.Service => {
  const answer = (entry: Asked["entry"]) => (input: Asked["input"]) =>
    Effect.suspend(() => {
      asked.push({ entry, input })
      if (failure !== undefined) return Effect.fail(failure)
      return Effect.succeed<Checkpoint.Checkpoint>({
        view: input.transcript.slice(-1),
        tokens: 1,
        trigger: 2,
        compacted: Option.none(),
        ladder: [],
        repairs: []
      })
    })
  return {
    checkpoint: answer("checkpoint"),
    contextOverflow: answer("contextOverflow"),
    compactNow: answer("compactNow"),
    tokensOf: () => 1,
    events: Stream.empty,
    subscribe: Effect.die("not used")
  }
}

const chat = [
  { role: "system", content: "You are a coding agent." },
  { role: "user", content: "list the files" },
  { role: "assistant", content: "There are three." }
]

const source = (document: unknown): CompactDocument.Source => ({
  _tag: "Source",
  document,
  format: "auto",
  adapters: Adapters.all
})

const CauseArbitrary: fc.Arbitrary<CompactDocument.Cause> = fc.oneof(
  fc.constant({ _tag: "Trigger" as const }),
  fc.constant({ _tag: "Overflow" as const }),
  fc.record({ _tag: fc.constant("Manual" as const), instructions: fc.string() })
)

describe("CompactDocument", () => {
  effectProp(
    "the cause picks the engine's entry, and the policy is what it is told: the session given or the transcript's",
    [
      CauseArbitrary,
      fc.integer({ min: 1_000, max: 1_000_000 }),
      fc.option(fc.string({ minLength: 1 }), { nil: undefined }).map(Compat.fromNullishOr)
    ],
    ([cause, window, sessionId]) =>
      Effect.gen(function*() {
        const asked: Array<Asked> = []
        const compaction = yield* CompactDocument.compactDocument({
          document: source(chat),
          session: {
            sessionId: Option.getOrUndefined(sessionId),
            model: "m",
            contextWindow: window,
            reportedContextTokens: 7
          },
          cause
        }).pipe(Effect.provideService(Compactor.Compactor, fakeEngine(asked)))
        assert.strictEqual(asked.length, 1)
        const { entry, input } = asked[0]!
        assert.strictEqual(
          entry,
          cause._tag === "Trigger" ? "checkpoint" : cause._tag === "Overflow" ? "contextOverflow" : "compactNow"
        )
        if (cause._tag === "Manual") assert.strictEqual(input.instructions, cause.instructions)
        const expected = Option.getOrElse(sessionId, () => Session.idOf(compaction.read.decoded.transcript))
        assert.strictEqual(input.sessionId, expected)
        assert.strictEqual(compaction.read.sessionId, expected)
        assert.strictEqual(input.contextWindow, window)
        assert.strictEqual(input.model, "m")
        assert.strictEqual(input.reportedContextTokens, 7)
        // The view written back in the document's own format: its last message, as it came.
        assert.deepStrictEqual(compaction.output, chat.slice(-1))
      })
  )

  it.effect("a document read as JSON Lines is written back as JSON Lines; one read already is not read again", () =>
    Effect.gen(function*() {
      const asked: Array<Asked> = []
      const engine = fakeEngine(asked)
      const lines = chat.map((message) => JSON.stringify(message)).join("\n") + "\n"
      const read = yield* CompactDocument.read({ document: lines, format: "openai", adapters: Adapters.all }, "s1")
      assert.strictEqual(read.container, "jsonl")
      assert.strictEqual(read.decoded.format, "openai")
      const compaction = yield* CompactDocument.compactDocument({
        document: read,
        session: { sessionId: "ignored: the read document's session stands", model: "m", contextWindow: 8_000 },
        cause: CompactDocument.trigger
      }).pipe(Effect.provideService(Compactor.Compactor, engine))
      assert.strictEqual(asked[0]!.input.sessionId, "s1")
      assert.strictEqual(asked[0]!.input.transcript, read.decoded.transcript)
      assert.strictEqual(CompactDocument.text(compaction), JSON.stringify(chat[2]) + "\n")
    }))

  it.effect("an unreadable document fails with the adapter's error, the message at fault named once", () =>
    Effect.gen(function*() {
      const asked: Array<Asked> = []
      const error = yield* CompactDocument.compactDocument({
        document: source([{ role: "user", content: "hi" }, { role: "tool", content: "no call id" }]),
        session: { model: "m", contextWindow: 8_000 },
        cause: CompactDocument.trigger
      }).pipe(Effect.provideService(Compactor.Compactor, fakeEngine(asked)), Effect.flip)
      assert.strictEqual(asked.length, 0)
      assert.strictEqual(error.problem._tag, "AdapterError")
      const problem = error.problem as Adapter.AdapterError
      assert.strictEqual(problem.index, 1)
      assert.strictEqual(error.message.split("message 1").length - 1, 1, error.message)
    }))

  it.effect("no view that fits: the window is named unless the compaction was asked for", () =>
    Effect.gen(function*() {
      const failure = new Checkpoint.CompactionError({
        reason: "cannot-fit",
        sessionId: "s",
        message: "the view needs 9,000"
      })
      const fail = (cause: CompactDocument.Cause) =>
        CompactDocument.compactDocument({
          document: source(chat),
          session: { sessionId: "s", model: "m", contextWindow: 4_000 },
          cause
        }).pipe(Effect.provideService(Compactor.Compactor, fakeEngine([], failure)), Effect.flip)
      const triggered = yield* fail(CompactDocument.trigger)
      assert.strictEqual(triggered.problem, failure)
      assert.strictEqual(triggered.message, "the window of 4000 tokens is too small: the view needs 9,000")
      assert.strictEqual((yield* fail({ _tag: "Overflow" })).tooSmallWindow, 4_000)
      const manual = yield* fail({ _tag: "Manual", instructions: "focus" })
      assert.strictEqual(manual.message, "the view needs 9,000")
      assert.isUndefined(manual.tooSmallWindow)
    }))

  it.effect("a transcript of another format than the one named is refused before the engine is asked", () =>
    Effect.gen(function*() {
      const asked: Array<Asked> = []
      const anthropic = [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "x" }] }]
      const error = yield* CompactDocument.compactDocument({
        document: { ...source(anthropic), format: "openai" },
        session: { model: "m", contextWindow: 8_000 },
        cause: CompactDocument.trigger
      }).pipe(Effect.provideService(Compactor.Compactor, fakeEngine(asked)), Effect.flip)
      assert.strictEqual(asked.length, 0)
      assert.include(error.message, "anthropic")
    }))
})
