import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Count from "../../../../src/core/checkpoint/Count.js"
import * as ViewFit from "../../../../src/core/checkpoint/ViewFit.js"
import type * as Checkpoint from "../../../../src/face/engine/Checkpoint.js"
import * as SessionCache from "../../../../src/face/engine/internal/checkpoint/SessionCache.js"
import * as Cooperative from "../../../../src/face/engine/internal/Cooperative.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import { effectProp, prop } from "../../../support/Property.js"
import * as Transcripts from "../../../transcripts.js"

const chars = (text: string) => text.length

describe("Count.counter", () => {
  it("counts a message's text and the overhead once: a rebuilt message of the same content is not counted again, one edited to the same length is, a derived one is never known by id", () => {
    let counted = 0
    const counter = Count.counter((text) => (counted++, text.length))
    const sessions = SessionCache.make(Infinity)
    const message = new Transcript.UserMessage({ id: "m1", content: "Fix the parser." })
    const first = counter.of(sessions.get("s").counts)
    assert.strictEqual(first.tokens(message), "Fix the parser.".length + Count.messageOverhead)
    // The session's memory takes the checkpoint's counts at its end, not while it counts.
    assert.strictEqual(sessions.get("s").counts.size, 0)
    sessions.commit("s", { counts: first.fresh })
    const next = counter.of(sessions.get("s").counts)
    assert.strictEqual(
      next.tokens(new Transcript.UserMessage({ id: "m1", content: "Fix the parser." })),
      "Fix the parser.".length + Count.messageOverhead
    )
    assert.strictEqual(counted, 1)
    // The same id and length, another text: counted again, never taken for the one counted.
    const edited = counter.of(sessions.get("s").counts)
    assert.strictEqual(
      edited.tokens(new Transcript.UserMessage({ id: "m1", content: "Fix the lexer!!" })),
      "Fix the lexer!!".length + Count.messageOverhead
    )
    assert.strictEqual(counted, 2)
    const derived = ViewFit.markDerived(new Transcript.UserMessage({ id: "m1", content: "Fix" }))
    assert.strictEqual(next.tokens(derived), 3 + Count.messageOverhead)
    assert.isFalse(next.fresh.has("m3"))
    sessions.commit("s", { counts: next.fresh })
    assert.strictEqual(sessions.get("s").counts.get("m1")?.text, "Fix the parser.")
  })

  it("a text counted for one message object is not counted again for another of the same text, as the proxy counts a new message before its checkpoint does; the last 64 texts are remembered, none past 1 MiB", () => {
    const asked: Array<string> = []
    const counter = Count.counter((text) => (asked.push(text), text.length))
    const sessions = SessionCache.make(Infinity)
    const sent = new Transcript.ToolResult({ id: "r1", toolCallId: "c1", content: "3 passed" })
    assert.strictEqual(counter.plain(sent), 8 + Count.messageOverhead)
    // The view's copy of it, another object of another id: the same text, not counted again.
    const viewed = new Transcript.ToolResult({ id: "r1-view", toolCallId: "c1", content: "3 passed" })
    assert.strictEqual(counter.of(sessions.get("s").counts).tokens(viewed), 8 + Count.messageOverhead)
    assert.deepStrictEqual(asked, ["3 passed"])
    // 64 other texts later, the first is counted again.
    for (let index = 0; index < 64; index++) {
      counter.plain(new Transcript.UserMessage({ id: `u${index}`, content: `t${index}` }))
    }
    counter.plain(new Transcript.UserMessage({ id: "again", content: "3 passed" }))
    assert.strictEqual(asked.filter((text) => text === "3 passed").length, 2)
    // A text past 1 MiB is counted each time.
    const huge = "x".repeat(1_048_577)
    counter.plain(new Transcript.UserMessage({ id: "h1", content: huge }))
    counter.plain(new Transcript.UserMessage({ id: "h2", content: huge }))
    assert.strictEqual(asked.filter((text) => text === huge).length, 2)
  })

  it("a derived mark is the message's own: copies, encodings and equal messages do not carry it", () => {
    const message = new Transcript.UserMessage({ id: "m1", content: "Fix" })
    const derived = ViewFit.markDerived(new Transcript.UserMessage({ id: "m1", content: "Fix" }))
    assert.isTrue(ViewFit.isDerived(derived))
    assert.isFalse(ViewFit.isDerived(message))
    assert.isFalse(ViewFit.isDerived(new Transcript.UserMessage({ ...derived })))
    assert.strictEqual(JSON.stringify(derived), JSON.stringify(message))
    assert.deepStrictEqual(Object.keys(derived), Object.keys(message))
  })

  effectProp(
    "count adds up each message's count, pausing or not",
    [Transcripts.transcript(8)],
    ([view]) =>
      Effect.gen(function*() {
        const counter = Count.counter(chars)
        const tokens = counter.plain
        const total = yield* Cooperative.run(Count.countSteps(view, tokens), Cooperative.slice(0))
        assert.strictEqual(total, view.reduce((sum, message) => sum + tokens(message), 0))
      }),
    { fastCheck: { numRuns: 20 } }
  )
})

describe("Count.budget", () => {
  const input = (reported?: number): Checkpoint.OverflowInput => ({
    sessionId: "s",
    transcript: [],
    model: "m",
    contextWindow: 32_000,
    ...(reported === undefined ? {} : { reportedContextTokens: reported })
  })

  prop(
    "at a trigger the view's budget is the messages' trigger less the reply reserve, and the provider's count above ours is the overhead",
    [
      fc.integer({ min: 0, max: 40_000 }),
      fc.option(fc.integer({ min: 0, max: 40_000 }), { nil: undefined })
    ],
    ([counted, reported]) => {
      const budget = Count.budget({
        settings: Settings.defaults,
        input: input(reported),
        cause: "trigger",
        counted,
        lastSent: undefined,
        transcriptDigest: "d"
      })
      assert.strictEqual(budget.viewTokens, reported ?? counted)
      assert.strictEqual(budget.overhead, reported === undefined ? 0 : Math.max(reported - counted, 0))
      assert.strictEqual(budget.messagesTrigger, budget.trigger - budget.overhead)
      assert.strictEqual(budget.viewBudget, budget.messagesTrigger - budget.replyReserve)
      assert.strictEqual(budget.believed, 1)
    }
  )

  prop("after an overflow the provider is believed: the trigger shrinks by the ratio of our count to the window", [
    fc.integer({ min: 1, max: 31_999 })
  ], ([counted]) => {
    const overflow = Count.budget({
      settings: Settings.defaults,
      input: input(),
      cause: "overflow",
      counted,
      lastSent: undefined,
      transcriptDigest: "d"
    })
    const trigger = Count.budget({
      settings: Settings.defaults,
      input: input(),
      cause: "trigger",
      counted,
      lastSent: undefined,
      transcriptDigest: "d"
    })
    assert.closeTo(overflow.believed, counted / 32_000, 1e-9)
    assert.isAtMost(overflow.trigger, trigger.trigger)
    assert.strictEqual(overflow.refused, counted)
  })

  prop("what the provider refused is the view last sent only for the transcript it was made of, known by its digest", [
    fc.integer({ min: 2, max: 31_999 }),
    fc.stringMatching(/^[0-9a-f]{32}$/),
    fc.stringMatching(/^[0-9a-f]{32}$/)
  ], ([counted, sentDigest, digest]) => {
    const refusedWith = (lastSent: Count.LastSent | undefined, transcriptDigest: string) =>
      Count.budget({
        settings: Settings.defaults,
        input: input(),
        cause: "overflow",
        counted,
        lastSent,
        transcriptDigest
      })
        .refused
    const smaller = Math.floor(counted / 2)
    // The same transcript: the smaller view the ladder sent is what was refused.
    assert.strictEqual(refusedWith({ tokens: smaller, digest: sentDigest }, sentDigest), smaller)
    // Another transcript of as many messages: the view counted now.
    if (digest !== sentDigest) {
      assert.strictEqual(refusedWith({ tokens: smaller, digest: sentDigest }, digest), counted)
    }
    // A memory kept before the digest was: no transcript is taken for its own.
    assert.strictEqual(refusedWith({ tokens: smaller }, sentDigest), counted)
  })
})
