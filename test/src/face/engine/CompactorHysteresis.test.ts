/**
 * Session economics (issue 23): hysteresis (the view after a compaction takes
 * at most `targetAfterPct` of the trigger, so the next compaction is turns
 * away), a bounded block, and cache-stable views between compactions.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Count from "../../../../src/core/checkpoint/Count.js"
import * as ViewFit from "../../../../src/core/checkpoint/ViewFit.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import * as Tokenizer from "../../../../src/face/services/Tokenizer.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

const engine = (settings: Partial<Settings.CompactionSettings> = {}) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer({ settings })))

const tokens = (message: Transcript.Message) => Math.ceil(Transcript.text(message).length / 4) + 4
const viewTokens = (view: Transcript.Transcript) => view.reduce((sum, message) => sum + tokens(message), 0)

/**
 * A session of turns of about `turnTokens` tokens each, `total` tokens in all: a command and its output, a reply.
 * The newest turn's outputs take `newest.tokens` (default: as the others), in `newest.calls` parallel calls of
 * one assistant message: each under the size the ladder cuts on arrival, together bigger than the verbatim tail.
 */
const sessionOf = (
  total: number,
  turnTokens: number,
  seed: number,
  newest: { readonly tokens: number; readonly calls: number } = { tokens: turnTokens, calls: 1 }
): Transcript.Transcript => {
  const turns = Math.max(Math.ceil(total / turnTokens), 2)
  const output = (i: number, tokens: number) =>
    `line ${i} of the build output, module ${(seed + i) % 97}\n`.repeat(Math.max(Math.floor((tokens * 4) / 45), 1))
  const call = (i: number, c: number, tokens: number) => ({
    name: "bash",
    args: JSON.stringify({ command: `echo done > src/module${i}-${c}.ts && npm test -- module${i}` }),
    result: `<returncode>${(i + c) % 3 === 0 ? 1 : 0}</returncode>\n<output>\n${output(i + c, tokens)}</output>`
  })
  const transcript = Generated.fromTurns(Array.from({ length: turns }, (_, i) => ({
    user: `step ${i}: build module ${(seed + i) % 97} and write src/module${i}.ts`,
    steps: [
      i === turns - 1
        ? Array.from({ length: newest.calls }, (_, c) => call(i, c, Math.floor(newest.tokens / newest.calls)))
        : [call(i, 0, turnTokens)]
    ],
    reply: `module ${i} is built`,
    accept: false
  })))
  // A big newest turn ends on its results, as the transcript is when the model is called next.
  return newest.calls > 1 || newest.tokens !== turnTokens ? transcript.slice(0, -1) : transcript
}

/** The smallest window the command line and the proxy accept (`--window`). */
const smallestWindow = 1_000

describe("hysteresis: the view after a compaction", () => {
  effectProp(
    "takes at most targetAfterPct of the trigger, at any window from the smallest accepted to 1M, any target from 20 to 70 %, and a newest turn of any size up to the trigger; a reload from the store rebuilds that view",
    [
      // The small windows, where the block's floors weigh most, as often as the rest.
      fc.oneof(fc.integer({ min: smallestWindow, max: 12_000 }), fc.integer({ min: smallestWindow, max: 1_000_000 })),
      fc.integer({ min: 20, max: 70 }),
      fc.integer({ min: 0, max: 1_000 }),
      // The newest turn's outputs as a share of the trigger (else as big as the others' each), in 1 to 6 parallel calls.
      fc.oneof(fc.constant(0), fc.double({ min: 0.05, max: 1, noNaN: true })),
      fc.integer({ min: 1, max: 6 })
    ],
    ([window, targetAfterPct, seed, newestShare, newestCalls]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.make({ policies: builtInPolicies })
        const settings = Settings.clamp(new Settings.CompactionSettings({ ...Settings.defaults, targetAfterPct }))
        const trigger = Budget.trigger(settings, window)
        const turnTokens = Math.max(Math.floor(trigger / 20), 60)
        // Past the trigger, in turns of at most a twentieth of it, the newest one maybe far bigger than the verbatim tail.
        const transcript = sessionOf(Math.floor(trigger * 1.3), turnTokens, seed, {
          tokens: newestShare === 0 ? turnTokens : Math.floor(trigger * newestShare),
          // Each result at least 200 tokens: a turn of many tiny results stays whole at the ladder's floors (see docs/compaction.md).
          calls: Math.max(Math.min(newestCalls, Math.floor((newestShare * trigger) / 200)), 1)
        })
        // A window too small for this session is refused with the smallest that works (an estimate: the block
        // grows with the window): the session is run there instead, until it is accepted.
        const at = (contextWindow: number) => ({
          sessionId: `h-${contextWindow}-${targetAfterPct}-${seed}`,
          transcript,
          model: "m",
          contextWindow
        })
        let accepted = window
        let outcome = yield* Compat.result(compactor.checkpoint(at(accepted)))
        for (let tries = 0; TestCompat.isFailure(outcome) && tries < 5; tries++) {
          const error = Option.getOrThrow(TestCompat.getFailure(outcome))
          const larger = error.minimumWindow
          assert.isTrue(error.reason === "cannot-fit" && larger !== undefined && larger > accepted, error.message)
          accepted = larger!
          outcome = yield* Compat.result(compactor.checkpoint(at(accepted)))
        }
        const input = at(accepted)
        const checkpoint = TestCompat.getOrThrow(outcome)
        const report = Option.getOrThrow(checkpoint.compacted)
        const acceptedTrigger = Budget.trigger(settings, accepted)
        // The engine takes the reply reserve in the window: none under the trigger at 80 %.
        const reserve = Budget.replyReserve(settings, acceptedTrigger, accepted)
        const target = Budget.targetAfter(settings, acceptedTrigger, reserve)
        assert.strictEqual(report.targetAfter, target)
        assert.strictEqual(
          target,
          Math.min(
            Math.max(Math.floor((acceptedTrigger * targetAfterPct) / 100), Budget.targetFloorTokens),
            acceptedTrigger - reserve
          )
        )
        // The one way past the target: the newest turn alone after the block, every message of it cut as far as the
        // ladder cuts (a turn of many parallel calls in a small window).
        const tail = checkpoint.view.slice(checkpoint.view.findIndex((m) => m._tag === "Compacted") + 1)
        const newestTurnAtFloors = tail[0]?._tag === "Assistant" && tail.slice(1).every((m) =>
          m._tag === "ToolResult"
        ) &&
          tail.every((m) => Transcript.text(m).length <= ViewFit.clipFloorChars + 320)
        assert.isTrue(
          viewTokens(checkpoint.view) <= target || newestTurnAtFloors,
          `window ${accepted}: ${viewTokens(checkpoint.view)} tokens after, target ${target}`
        )
        // Another engine over the same store (a restarted process): the same view, without compacting again.
        const reloaded = yield* Effect.flatMap(Compactor.make({ policies: builtInPolicies }), (fresh) =>
          fresh.checkpoint(input))
        assert.isTrue(Option.isNone(reloaded.compacted))
        assert.strictEqual(JSON.stringify(reloaded.view), JSON.stringify(checkpoint.view))
      }).pipe(Effect.provide(Testing.layer({ settings: { targetAfterPct } }))),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("the target is never under the floor a block and the newest message's head need, in the smallest windows", () =>
    Effect.gen(function*() {
      const settings = Settings.clamp(new Settings.CompactionSettings({ ...Settings.defaults, targetAfterPct: 20 }))
      assert.strictEqual(Budget.targetAfter(settings, Budget.trigger(settings, 2_000)), Budget.targetFloorTokens)
      assert.strictEqual(Budget.targetAfter(settings, Budget.trigger(settings, 32_000)), 5_120)
    }))

  it.effect("a session compacts rarely: after a compaction, several turns pass before the next", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = sessionOf(60_000, 400, 7)
      const compactedAt: Array<number> = []
      for (let end = 2; end <= transcript.length; end++) {
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "rare",
          transcript: transcript.slice(0, end),
          model: "m",
          contextWindow: 16_000
        })
        if (Option.isSome(checkpoint.compacted)) compactedAt.push(end)
      }
      assert.isAtLeast(compactedAt.length, 2)
      const gaps = compactedAt.slice(1).map((at, i) => at - compactedAt[i]!)
      // Each turn is four messages: at least five turns between two compactions at this window.
      assert.isAtLeast(Math.min(...gaps), 20, `gaps ${gaps.join(", ")}`)
    }).pipe(Effect.provide(engine())))
})

describe("a bounded block", () => {
  it.effect("over many compactions the block stays within its share of the target, and what it drops is counted", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = sessionOf(120_000, 400, 3)
      const blocks: Array<number> = []
      let dropped = 0
      for (let end = 2; end <= transcript.length; end += 3) {
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "bounded",
          transcript: transcript.slice(0, end),
          model: "m",
          contextWindow: 16_000
        })
        if (Option.isNone(checkpoint.compacted)) continue
        const block = checkpoint.view.find((m) => m._tag === "Compacted")!
        blocks.push(tokens(block))
        dropped += checkpoint.compacted.value.dropped.facts + checkpoint.compacted.value.dropped.summaryTokens
      }
      assert.isAtLeast(blocks.length, 5)
      const budget = Budget.blockBudget(Settings.defaults, Budget.trigger(Settings.defaults, 16_000))
      for (const size of blocks) assert.isAtMost(size, budget + 64)
      assert.isAbove(dropped, 0)
    }).pipe(Effect.provide(engine())))
})

describe("cache-stable views", () => {
  it.effect("between two compactions no message already sent changes: every checkpoint that does not compact has the last view as its prefix", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = sessionOf(50_000, 500, 11)
      let last: Transcript.Transcript | undefined
      let stable = 0
      for (let end = 2; end <= transcript.length; end++) {
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "stable",
          transcript: transcript.slice(0, end),
          model: "m",
          contextWindow: 8_000
        })
        if (Option.isNone(checkpoint.compacted) && last !== undefined) {
          assert.isTrue(checkpoint.prefixStable, `at ${end}`)
          last.forEach((message, index) =>
            assert.strictEqual(checkpoint.view[index]!.content, message.content, `at ${end}, message ${index}`)
          )
          stable++
        }
        if (Option.isSome(checkpoint.compacted)) assert.strictEqual(checkpoint.sinceCompaction, 0)
        last = checkpoint.view
      }
      assert.isAbove(stable, 20)
    }).pipe(Effect.provide(engine())))
})

describe("the per-session caches are bounded by bytes", () => {
  const rebuilt = (transcript: Transcript.Transcript): Transcript.Transcript =>
    transcript.map((message) =>
      Object.assign(Object.create(Object.getPrototypeOf(message)), message) as Transcript.Message
    )

  const recountsOf = (sessionCacheBytes: number) =>
    Effect.gen(function*() {
      let counted = 0
      const tokenizer = Layer.succeed(
        Tokenizer.Tokenizer,
        Tokenizer.Tokenizer.of({ name: "counting", count: (text) => (counted++, Math.ceil(text.length / 4)) })
      )
      const compactor = yield* Compactor.make({ policies: builtInPolicies, sessionCacheBytes }).pipe(
        Effect.provide(Testing.layer({ tokenizer }))
      )
      // More messages than the counter remembers texts of (Count.recentTexts), whatever session they were of.
      const a = sessionOf(30_000, 300, 1)
      const b = sessionOf(30_000, 300, 2)
      yield* compactor.checkpoint({ sessionId: "a", transcript: a, model: "m", contextWindow: 128_000 })
      yield* compactor.checkpoint({ sessionId: "b", transcript: b, model: "m", contextWindow: 128_000 })
      const before = counted
      // The same messages as new objects: only the session's counts by id spare counting them again.
      yield* compactor.checkpoint({ sessionId: "a", transcript: rebuilt(a), model: "m", contextWindow: 128_000 })
      return { recounted: counted - before, messages: a.length }
    })

  it.effect("within the bound a session keeps its counts; past it the least recently used session is forgotten and counts again", () =>
    Effect.gen(function*() {
      const roomy = yield* recountsOf(64 * 1024 * 1024)
      assert.strictEqual(roomy.recounted, 0)
      const tight = yield* recountsOf(1)
      assert.isAbove(tight.messages, 4 * Count.recentTexts)
      assert.isAtLeast(tight.recounted, tight.messages - Count.recentTexts)
    }))
})
