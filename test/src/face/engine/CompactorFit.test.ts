import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as ViewRepair from "../../../../src/core/checkpoint/ViewRepair.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as ViewCheck from "../../../../src/face/engine/ViewCheck.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

const unavailable = new Summarizer.SummarizerError({ reason: "server-error", message: "HTTP 500" })

const engine = <R = never>(summarizer?: Layer.Layer<Summarizer.Summarizer | R>) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(Testing.layer<R>(summarizer === undefined ? {} : { summarizer }))
  )

const tokens = (message: Transcript.Message) => TokenizerApprox.count(Transcript.text(message)) + 4

const lines = (chars: number, seed: number): string => {
  const out: Array<string> = []
  let used = 0
  for (let i = 0; used < chars; i++) {
    const line = `+ const value${(i * 7919 + seed) % 1000} = compute(${i % 97}) // ${seed}`
    out.push(line)
    used += line.length + 1
  }
  return out.join("\n").slice(0, chars)
}

const approvalResult = (id: string, diffChars: number) =>
  JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool: "workspace_edit",
    action: "stage",
    ok: true,
    summary: `Staged tx_${id}; approval approval_${id} required`,
    data: {
      status: "pending_approval",
      mode: "ask",
      transaction: { id: `tx_${id}`, status: "staged", files: ["src/big.ts"], diff: lines(diffChars, 3) },
      approval: {
        id: `approval_${id}`,
        kind: "transaction",
        title: "Commit edits",
        destructive: false,
        resume: { tool: "workspace_edit", arguments: { action: "commit", transaction_id: `tx_${id}` } }
      }
    },
    retention: { importance: "high", facts: [`tx_${id} staged`] }
  })

type Trouble =
  | { readonly _tag: "HugeResult"; readonly chars: number }
  | { readonly _tag: "HugeAssistant"; readonly chars: number }
  | { readonly _tag: "HugeUser"; readonly chars: number }
  | { readonly _tag: "BigApproval"; readonly chars: number }
  | { readonly _tag: "LostResult" }
  | { readonly _tag: "DuplicateResult" }

const trouble: fc.Arbitrary<Trouble> = fc.oneof(
  fc.integer({ min: 20_000, max: 400_000 }).map((chars) => ({ _tag: "HugeResult", chars }) as const),
  fc.integer({ min: 20_000, max: 200_000 }).map((chars) => ({ _tag: "HugeAssistant", chars }) as const),
  fc.integer({ min: 20_000, max: 100_000 }).map((chars) => ({ _tag: "HugeUser", chars }) as const),
  fc.integer({ min: 20_000, max: 500_000 }).map((chars) => ({ _tag: "BigApproval", chars }) as const),
  fc.constant({ _tag: "LostResult" } as const),
  fc.constant({ _tag: "DuplicateResult" } as const)
)

/** A generated session with troubles spliced in at turn starts. */
const troubled: fc.Arbitrary<Transcript.Transcript> = fc
  .tuple(Generated.transcript(10), fc.array(fc.tuple(trouble, fc.nat()), { minLength: 1, maxLength: 3 }))
  .map(([base, troubles]) => {
    const messages = [...base]
    troubles.forEach(([t, at], n) => {
      const index = 1 + (at % messages.length)
      const id = `t${n}`
      switch (t._tag) {
        case "HugeResult":
          messages.splice(
            index,
            0,
            new Transcript.AssistantMessage({
              id: `${id}a`,
              content: "Reading it all.",
              toolCalls: [
                new Transcript.ToolCall({ id: `${id}c`, name: "bash", arguments: "{\"command\":\"git diff\"}" })
              ]
            }),
            new Transcript.ToolResult({ id: `${id}r`, toolCallId: `${id}c`, name: "bash", content: lines(t.chars, n) })
          )
          break
        case "HugeAssistant":
          messages.splice(
            index,
            0,
            new Transcript.AssistantMessage({
              id: `${id}a`,
              content: "I repeat myself. ".repeat(Math.ceil(t.chars / 17)),
              toolCalls: []
            })
          )
          break
        case "HugeUser":
          messages.splice(index, 0, new Transcript.UserMessage({ id: `${id}u`, content: lines(t.chars, n) }))
          break
        case "BigApproval":
          messages.splice(
            index,
            0,
            new Transcript.AssistantMessage({
              id: `${id}a`,
              content: "Staging.",
              toolCalls: [
                new Transcript.ToolCall({ id: `${id}c`, name: "workspace_edit", arguments: "{\"action\":\"stage\"}" })
              ]
            }),
            new Transcript.ToolResult({
              id: `${id}r`,
              toolCallId: `${id}c`,
              name: "workspace_edit",
              content: approvalResult(`0000000${n}`, t.chars)
            })
          )
          break
        case "LostResult":
          messages.splice(
            index,
            0,
            new Transcript.AssistantMessage({
              id: `${id}a`,
              content: "Running it.",
              toolCalls: [
                new Transcript.ToolCall({ id: `${id}c`, name: "bash", arguments: "{\"command\":\"npm test\"}" })
              ]
            })
          )
          break
        case "DuplicateResult": {
          const result = messages.find((m): m is Transcript.ToolResult => m._tag === "ToolResult")
          if (result !== undefined) {
            messages.splice(messages.indexOf(result) + 1, 0, new Transcript.ToolResult({ ...result, id: `${id}d` }))
          }
          break
        }
      }
    })
    // Splicing may land inside a batch of results: keep only transcripts a recorded run could hold.
    return messages
  })

/** A checkpoint after every message, as an agent loop does. */
const replay = (transcript: Transcript.Transcript, contextWindow: number) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const outcomes: Array<
      {
        readonly prefix: Transcript.Transcript
        readonly outcome: Compat.Result<Compactor.Checkpoint, Compactor.CompactionError>
      }
    > = []
    for (let end = 1; end <= transcript.length; end++) {
      const prefix = transcript.slice(0, end)
      outcomes.push({
        prefix,
        outcome: yield* Compat.result(
          compactor.checkpoint({ sessionId: "fit", transcript: prefix, model: "m", contextWindow })
        )
      })
    }
    return outcomes
  })

const malformed = (transcript: Transcript.Transcript) => "malformed" in ViewRepair.repair(transcript, Transcript.kit)

describe("Compactor fit guarantee (SPEC R2.13)", () => {
  effectProp(
    "for any session with huge messages, big pending approvals and lost or duplicated results, every checkpoint's view passes ViewCheck and fits, or the error names a smallest window above this one",
    [troubled.filter((t) => !malformed(t)), fc.integer({ min: 6_000, max: 140_000 })],
    ([transcript, contextWindow]) =>
      Effect.gen(function*() {
        const before = JSON.stringify(transcript)
        const outcomes = yield* replay(transcript, contextWindow)
        assert.strictEqual(JSON.stringify(transcript), before, "the transcript was modified")
        const settings = SettingsFixed.settings({})
        const trigger = Budget.trigger(settings, contextWindow)
        for (const { outcome, prefix } of outcomes) {
          if (TestCompat.isFailure(outcome)) {
            const error = Option.getOrThrow(TestCompat.getFailure(outcome))
            assert.strictEqual(error.reason, "cannot-fit", error.message)
            assert.isAbove(error.minimumWindow ?? Infinity, contextWindow, error.message)
            continue
          }
          const violations = ViewCheck.check(TestCompat.getOrThrow(outcome).view, {
            firstUserMessage: Transcript.firstUserMessage(prefix),
            fit: { trigger, replyReserve: Budget.replyReserve(settings, trigger, contextWindow), tokens }
          })
          assert.deepStrictEqual(violations, [])
        }
        // Above 16k (a quarter of it for the reply) these sessions always fit.
        if (contextWindow >= 16_000) assert.isTrue(outcomes.every(({ outcome }) => TestCompat.isSuccess(outcome)))
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 12 } }
  )

  it.effect("a newest tool result of 868,000 characters is clipped in the view with a marker naming it, the summary kept", () =>
    Effect.gen(function*() {
      const transcript = [
        ...Generated.longSession,
        new Transcript.UserMessage({ id: "ask", content: "Show me the whole diff." }),
        new Transcript.AssistantMessage({
          id: "call",
          content: "Here.",
          toolCalls: [new Transcript.ToolCall({ id: "big", name: "bash", arguments: "{}" })]
        }),
        new Transcript.ToolResult({ id: "diff", toolCallId: "big", name: "bash", content: lines(868_000, 1) })
      ]
      const compactor = yield* Compactor.Compactor
      const { compacted, ladder, view } = yield* compactor.checkpoint({
        sessionId: "big",
        transcript,
        model: "m",
        contextWindow: 32_000
      })
      const clipped = view.find((m) => m.id === "diff")!
      assert.isBelow(clipped.content.length, 100_000)
      assert.include(clipped.content, "tool result diff in this view")
      assert.include(clipped.content, "the whole text is in the session's transcript")
      assert.isTrue(ladder.some((step) => step.step === "clip-messages" && step.messageIds.includes("diff")))
      assert.strictEqual((transcript[transcript.length - 1] as Transcript.ToolResult).content.length, 868_000)
      if (Option.isSome(compacted)) assert.strictEqual(compacted.value.fallback, "none")
    }).pipe(Effect.provide(engine())))

  it.effect("a pinned staged approval with a 500 KB diff keeps its approval record and resume byte for byte; the diff is reduced", () =>
    Effect.gen(function*() {
      const staged = approvalResult("0badf00d", 500_000)
      const transcript = [
        ...Generated.longSession.slice(0, 10),
        new Transcript.AssistantMessage({
          id: "stage",
          content: "Staging.",
          toolCalls: [new Transcript.ToolCall({ id: "s1", name: "workspace_edit", arguments: "{}" })]
        }),
        new Transcript.ToolResult({ id: "staged", toolCallId: "s1", name: "workspace_edit", content: staged }),
        ...Generated.longSession.slice(10)
      ]
      const compactor = yield* Compactor.Compactor
      const { view } = yield* compactor.checkpoint({
        sessionId: "approval",
        transcript,
        model: "m",
        contextWindow: 128_000
      })
      const pinned = view.find((m) => m.id === "staged")!
      const approval = (JSON.parse(staged) as { data: { approval: unknown } }).data.approval
      assert.include(pinned.content, JSON.stringify(approval))
      assert.isBelow(pinned.content.length, 50_000)
    }).pipe(Effect.provide(engine())))

  it.effect("a call whose result was lost mid-session gets a synthetic result in the view, reported; a second result is left out", () =>
    Effect.gen(function*() {
      const base = Generated.longSession
      const resultAt = base.findIndex((m, i) => i > 5 && m._tag === "ToolResult")
      const lost = [...base.slice(0, resultAt), ...base.slice(resultAt + 1)]
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "lost",
        transcript: lost,
        model: "m",
        contextWindow: 8_000
      })
      const call = (base[resultAt] as Transcript.ToolResult).toolCallId
      assert.deepStrictEqual(checkpoint.repairs.map((r) => [r.kind, r.toolCallId]), [["lost-result", call]])
      assert.deepStrictEqual(ViewCheck.check(checkpoint.view), [])
      assert.strictEqual(lost.length, base.length - 1)
      const twice = [
        ...base.slice(0, resultAt + 1),
        new Transcript.ToolResult({ ...(base[resultAt] as Transcript.ToolResult), id: "again" }),
        ...base.slice(resultAt + 1)
      ]
      const again = yield* compactor.checkpoint({
        sessionId: "twice",
        transcript: twice,
        model: "m",
        contextWindow: 8_000
      })
      assert.deepStrictEqual(again.repairs.map((r) => [r.kind, r.messageId]), [["duplicate-result", "again"]])
      assert.isFalse(again.view.some((m) => m.id === "again"))
    }).pipe(Effect.provide(engine())))

  it.effect("a rebuilt transcript whose prefix only looks like the one found clean (same ids at its ends) is scanned again whole: the lost result is repaired", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const call = new Transcript.ToolCall({ id: "c1", name: "bash", arguments: "{}" })
      const first = [
        new Transcript.UserMessage({ id: "m0", content: "Run the tests." }),
        new Transcript.AssistantMessage({ id: "m1", content: "Running.", toolCalls: [call] }),
        new Transcript.ToolResult({ id: "m2", toolCallId: "c1", name: "bash", content: "ok" }),
        new Transcript.UserMessage({ id: "m3", content: "And now?" })
      ]
      const clean = yield* compactor.checkpoint({
        sessionId: "alike",
        transcript: first,
        model: "m",
        contextWindow: 32_000
      })
      assert.deepStrictEqual(clean.repairs, [])
      // Numbered ids, as an adapter gives them: the result at m2 is now a user message of the same length.
      const second = [
        first[0]!,
        first[1]!,
        new Transcript.UserMessage({ id: "m2", content: "ok" }),
        first[3]!,
        new Transcript.AssistantMessage({ id: "m4", content: "Done.", toolCalls: [] })
      ]
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "alike",
        transcript: second,
        model: "m",
        contextWindow: 32_000
      })
      assert.deepStrictEqual(checkpoint.repairs.map((r) => [r.kind, r.toolCallId]), [["lost-result", "c1"]])
      assert.deepStrictEqual(ViewCheck.check(checkpoint.view), [])
    }).pipe(Effect.provide(engine())))

  it.effect("a result that answers no call is a malformed transcript: the error names the message and the problem", () =>
    Effect.gen(function*() {
      const transcript = [
        new Transcript.UserMessage({ id: "u", content: "hi" }),
        new Transcript.ToolResult({ id: "orphan", toolCallId: "nowhere", content: "x".repeat(100_000) })
      ]
      const compactor = yield* Compactor.Compactor
      const error = yield* Effect.flip(
        compactor.checkpoint({ sessionId: "bad", transcript, model: "m", contextWindow: 8_000 })
      )
      assert.strictEqual(error.reason, "invalid-view")
      assert.include(error.message, "message orphan")
      assert.include(error.message, "nowhere")
    }).pipe(Effect.provide(engine())))

  it.effect("below the minimum the error names the smallest window, and a checkpoint at that window fits", () =>
    Effect.gen(function*() {
      const transcript = [
        new Transcript.SystemMessage({ id: "sys", content: lines(40_000, 9) }),
        new Transcript.UserMessage({ id: "u", content: "go" })
      ]
      const compactor = yield* Compactor.Compactor
      const error = yield* Effect.flip(
        compactor.checkpoint({ sessionId: "tiny", transcript, model: "m", contextWindow: 8_000 })
      )
      assert.strictEqual(error.reason, "cannot-fit")
      const smallest = error.minimumWindow!
      assert.include(error.message, `the smallest context window that works is ${smallest} tokens`)
      const fits = yield* compactor.checkpoint({ sessionId: "tiny-2", transcript, model: "m", contextWindow: smallest })
      assert.strictEqual(fits.view.length, 2)
      const under = yield* Effect.flip(
        compactor.checkpoint({ sessionId: "tiny-3", transcript, model: "m", contextWindow: smallest - 1 })
      )
      assert.strictEqual(under.minimumWindow, smallest)
    }).pipe(Effect.provide(engine())))

  it.effect("the reply reserve scales with a small window: a quarter of the trigger at most", () =>
    Effect.gen(function*() {
      const settings = SettingsFixed.settings({})
      assert.strictEqual(Budget.replyReserve(settings, Budget.trigger(settings, 8_000)), 1_600)
      assert.strictEqual(Budget.replyReserve(settings, Budget.trigger(settings, 128_000)), 4_096)
    }))

  effectProp(
    "the reply reserve in the window: only what the window above the trigger lacks is reserved under it, so reserve and window room together are the reserve of the trigger alone, at least",
    [
      fc.integer({ min: 1_000, max: 2_000_000 }),
      fc.integer({ min: 10, max: 95 }),
      fc.integer({ min: 0, max: 200_000 })
    ],
    ([window, triggerPct, replyReserveTokens]) =>
      Effect.sync(() => {
        const settings = SettingsFixed.settings({ triggerPct, replyReserveTokens })
        const trigger = Budget.trigger(settings, window)
        const underTrigger = Budget.replyReserve(settings, trigger, window)
        assert.isAtLeast(underTrigger, 0)
        assert.isAtMost(underTrigger, Budget.replyReserve(settings, trigger))
        assert.isAtLeast(underTrigger + (window - trigger), Budget.replyReserve(settings, trigger))
        // At the default trigger of 80 % the window's fifth above it is room enough: nothing under it.
        if (triggerPct <= 80 && replyReserveTokens === Settings.defaults.replyReserveTokens) {
          assert.strictEqual(underTrigger, 0)
        }
      })
  )

  it.effect("at the default trigger a session compacts at the trigger, not a reserve under it; with replyReserveIn trigger, a reserve earlier", () =>
    Effect.gen(function*() {
      const settings = SettingsFixed.settings({})
      const trigger = Budget.trigger(settings, 8_000)
      // A view of 5,000 tokens at 8k: under the trigger of 6,400, but over it with the old reserve of 1,600 under it.
      const transcript = [
        new Transcript.SystemMessage({ id: "s", content: "system" }),
        new Transcript.UserMessage({ id: "u0", content: "first ".repeat(200) }),
        ...Array.from({ length: 8 }, (_, i) => [
          new Transcript.AssistantMessage({ id: `a${i}`, content: "step ".repeat(250), toolCalls: [] }),
          new Transcript.UserMessage({ id: `u${i + 1}`, content: "more ".repeat(250) })
        ]).flat()
      ]
      const count = transcript.reduce((n, m) => n + TokenizerApprox.count(Transcript.text(m)) + 4, 0)
      assert.isAbove(count + Budget.replyReserve(settings, trigger), trigger)
      assert.isAtMost(count, trigger)
      const input = { sessionId: "reserve-in", transcript, model: "m", contextWindow: 8_000 }
      const inWindow = yield* Effect.flatMap(Compactor.make({ policies: builtInPolicies }), (c) => c.checkpoint(input))
      assert.isTrue(Option.isNone(inWindow.compacted))
      const underTrigger = yield* Effect.flatMap(
        Compactor.make({ policies: builtInPolicies, levers: { replyReserveIn: "trigger" } }),
        (c) => c.checkpoint({ ...input, sessionId: "reserve-in-trigger" })
      )
      assert.isTrue(Option.isSome(underTrigger.compacted))
    }).pipe(Effect.provide(Testing.layer({}))))
})

describe("Compactor trim (SPEC R2.7)", () => {
  it.effect("a trim removes the oldest turns, at least 10 % of the view and enough to fit, with the mechanical block and no further summariser call", () =>
    Effect.gen(function*() {
      const transcript = Generated.longSession
      const compactor = yield* Compactor.Compactor
      const { compacted, tokens: after, view } = yield* compactor.checkpoint({
        sessionId: "trim",
        transcript,
        model: "m",
        contextWindow: 8_000
      })
      const report = Option.getOrThrow(compacted)
      assert.strictEqual(report.fallback, "trim")
      assert.strictEqual(yield* (yield* SummarizerScripted.ScriptedSummarizer).calls, 2)
      const removed = transcript.slice(1, report.boundary.index).reduce((sum, m) => sum + tokens(m), 0)
      assert.isAtLeast(removed, report.tokensBefore / 10)
      assert.isBelow(after, report.trigger)
      const block = view.find((m) => m._tag === "Compacted")!
      assert.include(block.content, "Working state (extracted mechanically)")
      // The earliest cut that is enough: cutting one turn start earlier would not fit or not remove 10 %.
      const keepBudgetBoundary = report.boundary.index
      assert.isAbove(keepBudgetBoundary, 1)
    }).pipe(Effect.provide(engine(SummarizerScripted.layer([unavailable, unavailable])))))
})
