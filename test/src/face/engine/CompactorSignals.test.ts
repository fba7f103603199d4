/**
 * What enters the engine besides the transcript: the main model's
 * context-overflow error (`contextOverflow`, believing the provider's count,
 * and the progress guard), the provider's reported context tokens (SPEC R2.1),
 * and the user-message budget of the block (SPEC R2.3).
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Overflow from "../../../../src/face/engine/Overflow.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

const engine = (settings: SettingsFixed.Overrides = { replyReserveTokens: 200 }) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer({ settings })))

const approxTokens = (text: string) => Math.ceil(text.length / 4)
const viewTokens = (view: Transcript.Transcript) =>
  view.reduce((sum, message) => sum + approxTokens(Transcript.text(message)) + 4, 0)

/** A short session: `turns` turns of a question, one command and a reply, a few hundred tokens each. */
const smallSession = (turns: number): Transcript.Transcript =>
  Generated.fromTurns(Array.from({ length: turns }, (_, i) => ({
    user: `question ${i}: why does the parser cache miss on file ${i}?`,
    steps: [[{
      name: "bash",
      args: JSON.stringify({ command: `cat src/file${i}.ts` }),
      result: `<returncode>0</returncode>\n<output>\n${"const x = 1\n".repeat(60)}</output>`
    }]],
    reply: `file ${i} reads the cache before it is filled`,
    accept: false
  })))

describe("contextOverflow believes the provider", () => {
  it.effect("a small session's first overflow compacts it instead of ending in no-progress", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = smallSession(10)
      const before = viewTokens(transcript)
      assert.isBelow(before, 10_000, "the engine's count calls this session small")
      const checkpoint = yield* compactor.contextOverflow({
        sessionId: "small",
        transcript,
        model: "m",
        contextWindow: 128_000
      })
      const report = Option.getOrThrow(checkpoint.compacted)
      assert.strictEqual(report.cause, "overflow")
      assert.isBelow(checkpoint.tokens, before)
      assert.isTrue(checkpoint.view.some((message) => message._tag === "Compacted"))
    }).pipe(Effect.provide(engine())))

  it.effect("the limit and prompt tokens the error names scale the trigger: the view is cut to the provider's window in its count", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = smallSession(16)
      const counted = viewTokens(transcript)
      const overflow = Option.getOrThrow(
        Overflow.classify({
          error: {
            message: `prompt is too long: ${counted * 3} tokens > ${counted * 2} maximum`,
            type: "invalid_request_error"
          }
        })
      )
      assert.strictEqual(overflow.limit, counted * 2)
      const checkpoint = yield* compactor.contextOverflow({
        sessionId: "named",
        transcript,
        model: "m",
        contextWindow: 1_000_000,
        overflow
      })
      // The provider counts three of its tokens for each of the engine's: its window of 2 × counted holds 2/3 of the view.
      const expected = Math.floor(Math.floor(0.8 * counted * 2) * (counted / (counted * 3)))
      assert.approximately(checkpoint.trigger, expected, 2)
      assert.isAtMost(checkpoint.tokens, checkpoint.trigger)
    }).pipe(Effect.provide(engine())))

  it.effect("an overflow believes the last view's count only for the transcript it was made of: a history edited in place, as many messages long, gets what a fresh session gets", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const sent = smallSession(16)
      // The same messages, ids and number, the last reply written again much longer: another request than the one sent.
      const last = sent[sent.length - 1] as Transcript.AssistantMessage
      const edited = [
        ...sent.slice(0, -1),
        new Transcript.AssistantMessage({ id: last.id, content: last.content.repeat(40), toolCalls: [] })
      ]
      assert.strictEqual(edited.length, sent.length)
      const overflow = new Overflow.ContextOverflow({
        provider: "openai",
        limit: viewTokens(edited) * 2,
        promptTokens: viewTokens(edited) * 3,
        message: "too long"
      })
      const input = { model: "m", contextWindow: 1_000_000 }
      yield* compactor.checkpoint({ ...input, sessionId: "edited", transcript: sent })
      const afterSent = yield* compactor.contextOverflow({
        ...input,
        sessionId: "edited",
        transcript: edited,
        overflow
      })
      const fresh = yield* compactor.contextOverflow({ ...input, sessionId: "fresh", transcript: edited, overflow })
      assert.strictEqual(afterSent.trigger, fresh.trigger)
      assert.strictEqual(afterSent.tokens, fresh.tokens)
    }).pipe(Effect.provide(engine())))

  it.effect("the view given back after an overflow fits the provider's window as the provider counts it (R2.13 on the overflow path)", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      // The only span there is to compact is one short turn: any block is longer than what it replaces.
      const transcript: Transcript.Transcript = [
        new Transcript.SystemMessage({ id: "s", content: "You are a coding agent." }),
        new Transcript.UserMessage({ id: "u1", content: "hi" }),
        new Transcript.AssistantMessage({ id: "a1", content: "hello", toolCalls: [] }),
        new Transcript.UserMessage({ id: "u2", content: "now the real work" }),
        new Transcript.AssistantMessage({ id: "a2", content: "working on it ".repeat(400), toolCalls: [] })
      ]
      const counted = viewTokens(transcript)
      // The provider says 8,192 and counts three times what we count.
      const overflow = new Overflow.ContextOverflow({
        provider: "openai",
        limit: 8_192,
        promptTokens: counted * 3,
        message: "too long"
      })
      const checkpoint = yield* compactor.contextOverflow({
        sessionId: "grow",
        transcript,
        model: "m",
        contextWindow: 128_000,
        overflow
      })
      // In the provider's count (ours times three), the view and the reply reserve fit the 8,192 window.
      assert.isAtMost(checkpoint.tokens * 3, 8_192)
      assert.isBelow(checkpoint.tokens, counted)
      assert.isTrue(checkpoint.ladder.length > 0)
    }).pipe(Effect.provide(engine())))

  it.effect("a model that keeps refusing: every view given back is smaller than the one before, and the loop ends in no-progress", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const input = { sessionId: "loop", transcript: Generated.longSession, model: "m", contextWindow: 200_000 }
      let previous = viewTokens(Generated.longSession)
      let calls = 0
      for (;;) {
        calls++
        const outcome = yield* Compat.result(compactor.contextOverflow(input))
        if (TestCompat.isFailure(outcome)) {
          assert.strictEqual(Option.getOrThrow(TestCompat.getFailure(outcome)).reason, "no-progress")
          break
        }
        const { tokens } = TestCompat.getOrThrow(outcome)
        assert.isBelow(tokens, previous, `call ${calls} gave back a view that did not shrink`)
        previous = tokens
        assert.isBelow(calls, Generated.longSession.length, "the loop did not end")
      }
    }).pipe(Effect.provide(engine())))
})

describe("the provider's reported context tokens (SPEC R2.1)", () => {
  it.effect("a reported count past the trigger compacts a transcript the tokenizer calls small, and the report starts from it", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = smallSession(10)
      const quiet = yield* compactor.checkpoint({ sessionId: "r1", transcript, model: "m", contextWindow: 128_000 })
      assert.isTrue(Option.isNone(quiet.compacted))
      const counted = viewTokens(transcript)
      // The provider counts 100,000 more than we do: that is the request's fixed overhead (tools, system prompt).
      const reported = yield* compactor.checkpoint({
        sessionId: "r2",
        transcript,
        model: "m",
        contextWindow: 128_000,
        reportedContextTokens: counted + 100_000
      })
      const report = Option.getOrThrow(reported.compacted)
      assert.strictEqual(report.tokensBefore, counted + 100_000)
      assert.strictEqual(report.cause, "trigger")
      // The overhead plus the view fits under the trigger, with the reply reserve.
      assert.isAtMost(reported.tokens + 200, reported.trigger)
      assert.strictEqual(reported.tokens, viewTokens(reported.view) + 100_000)
    }).pipe(Effect.provide(engine())))

  it.effect("an overhead that alone passes the trigger fails with one line giving both counts", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = smallSession(10)
      const counted = viewTokens(transcript)
      const error = yield* Effect.flip(
        compactor.checkpoint({
          sessionId: "r5",
          transcript,
          model: "m",
          contextWindow: 128_000,
          reportedContextTokens: 120_000
        })
      )
      assert.strictEqual(error.reason, "cannot-fit")
      assert.include(error.message, `fixed overhead of ${120_000 - counted} tokens`)
      assert.include(error.message, "120000")
      assert.include(error.message, String(counted))
      assert.notInclude(error.message, "\n")
    }).pipe(Effect.provide(engine())))

  it.effect("a reported count under the trigger leaves a transcript the tokenizer calls large unchanged", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const counted = yield* compactor.checkpoint({
        sessionId: "r3",
        transcript: Generated.longSession,
        model: "m",
        contextWindow: 8_000
      })
      assert.isTrue(Option.isSome(counted.compacted))
      const reported = yield* compactor.checkpoint({
        sessionId: "r4",
        transcript: Generated.longSession,
        model: "m",
        contextWindow: 8_000,
        reportedContextTokens: 1_000
      })
      assert.isTrue(Option.isNone(reported.compacted))
      assert.strictEqual(reported.tokens, 1_000)
      assert.strictEqual(reported.view.length, Generated.longSession.length)
    }).pipe(Effect.provide(engine())))
})

/** A session of `turns` turns whose user messages are long: their budget in the block, not the turns, decides what the block keeps. */
const talkativeSession = (turns: number, userChars: number): Transcript.Transcript =>
  Generated.fromTurns(Array.from({ length: turns }, (_, i) => ({
    user: `request ${i}: ` +
      "please keep the parser cache warm across restarts and say why. ".repeat(Math.ceil(userChars / 63)),
    steps: [],
    reply: `noted ${i}`,
    accept: false
  })))

const userSection = (content: string): string => content.split("## The user's other messages, oldest first")[1] ?? ""

describe("the user-message budget of the block (SPEC R2.3)", () => {
  effectProp(
    "the user's other messages take at most 8 % of the trigger (within [2,000, 20,000]), the newest kept, and the omitted ones named by count and ids",
    [fc.integer({ min: 40_000, max: 400_000 })],
    ([window]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const transcript = talkativeSession(60, Math.ceil(window / 12))
        const checkpoint = yield* compactor.checkpoint({
          sessionId: `talk-${window}`,
          transcript,
          model: "m",
          contextWindow: window
        })
        const report = Option.getOrThrow(checkpoint.compacted)
        const block = checkpoint.view.find((message): message is Transcript.CompactedBlock =>
          message._tag === "Compacted"
        )!
        const budget = Budget.userMessageBudget(checkpoint.trigger)
        const section = userSection(block.content)
        const kept = Array.from(section.matchAll(/^\[(m\d+)\] (.*)$/gm))
        const keptTokens = kept.reduce((sum, match) => sum + approxTokens(match[2]!), 0)
        assert.isAtMost(keptTokens, budget)
        assert.isAbove(report.userMessagesOmitted, 0, "the session's user messages pass the budget")
        const note = /\[(\d+) user messages? omitted here, (m\d+) to (m\d+): they are in the session's transcript\]/
          .exec(section)
        assert.isNotNull(note, "the block says how many were omitted and where")
        assert.strictEqual(Number(note![1]), report.userMessagesOmitted)
        // Omitted from the middle: after the pinned first message, before the newest ones kept.
        const replacedUsers = transcript.slice(0, transcript.findIndex((m) => m.id === report.boundary.id)).filter((
          m
        ) => m._tag === "User").slice(1)
        assert.strictEqual(note![2], replacedUsers[0]!.id)
        assert.strictEqual(kept[kept.length - 1]![1], replacedUsers[replacedUsers.length - 1]!.id)
        assert.strictEqual(kept.length + report.userMessagesOmitted, replacedUsers.length)
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 6 } }
  )
})
