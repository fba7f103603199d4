import { assert, describe, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as QualityGate from "../../../../../../src/core/summarizer/QualityGate.js"
import * as SummaryOutcome from "../../../../../../src/face/engine/internal/checkpoint/SummaryOutcome.js"
import * as SummaryPrompt from "../../../../../../src/face/engine/SummaryPrompt.js"
import * as SummaryCacheMemory from "../../../../../../src/face/layers/SummaryCacheMemory.js"
import * as Transcript from "../../../../../../src/face/models/Transcript.js"
import type * as Attention from "../../../../../../src/face/services/Attention.js"
import * as Summarizer from "../../../../../../src/face/services/Summarizer.js"
import * as SummaryCache from "../../../../../../src/face/services/SummaryCache.js"

const good = (tag: string) =>
  SummaryPrompt.generalSections.map((heading) =>
    `${heading}\n${tag}: ${"a detail of the work that a resumed agent needs to know. ".repeat(3)}`
  ).join("\n\n")

const request = {
  system: "sys",
  prompt: "the span",
  model: "m",
  namespace: "ns",
  maxTokens: 1_000,
  agentic: false
} as unknown as Summarizer.SummaryRequest
const unattended: Attention.Service = {
  attended: Effect.succeed(false),
  choose: () => Effect.succeed("trim")
} as unknown as Attention.Service

/** The summary policy, as the engine makes it (`Compactor.make`). */
const make = (policy: {
  readonly summarizer: Summarizer.Service
  readonly cache: SummaryCache.Service
  readonly attention: Attention.Service
  readonly maxAskedRetries: number
  readonly summaryDeadline: Duration.Duration
  readonly restoreOpening: (reply: string) => string
}) => {
  const once = SummaryOutcome.make({
    ...policy,
    summaryDeadline: {
      millis: Duration.toMillis(policy.summaryDeadline),
      text: Duration.format(policy.summaryDeadline)
    },
    gate: QualityGate.check,
    keyOf: SummaryCache.keyOf,
    digest: SummaryCache.digest
  })
  return (request: Summarizer.SummaryRequest, sessionId: string) => once(request, sessionId)
}

const policyWith = (replies: Array<string | "fail">, cache: SummaryCache.Service) => {
  let calls = 0
  const summarizer: Summarizer.Service = {
    summarize: () =>
      Effect.suspend(() => {
        const reply = replies[Math.min(calls++, replies.length - 1)]!
        return reply === "fail"
          ? Effect.fail({ reason: "server-error", message: "down" } as never)
          : Effect.succeed(reply)
      })
  } as Summarizer.Service
  return {
    summarize: make({
      summarizer,
      cache,
      attention: unattended,
      maxAskedRetries: 3,
      summaryDeadline: Duration.seconds(5),
      restoreOpening: (reply) => reply
    }),
    calls: () => calls
  }
}

describe("SummaryOutcome.make", () => {
  it.effect("a summary the gate refuses is retried once, then trimmed when unattended; a passing one is stored and served from the cache next time", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      const refused = policyWith(["too short", "too short"], cache)
      const trim = yield* refused.summarize(request, "s")
      assert.strictEqual(trim._tag, "Trim")
      assert.strictEqual(refused.calls(), 2)
      const passing = policyWith(["fail", good("first")], cache)
      const made = yield* passing.summarize(request, "s")
      assert.strictEqual(made._tag, "Summary")
      assert.deepStrictEqual(made.gate, ["summarizer: server-error", "passed"])
      const again = yield* policyWith(["fail"], cache).summarize(request, "s")
      assert.isTrue(again._tag === "Summary" && again.cacheHit && again.calls === 0)
      assert.isTrue(
        Option.isSome(
          yield* cache.lookup({
            namespace: "ns",
            schemaVersion: SummaryCache.schemaVersion,
            model: "m",
            summarizer: Summarizer.anonymous,
            request: "sys\n\nthe span"
          })
        )
      )
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))

  it.effect("concurrent asks for one request make it once and share it", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      const policy = policyWith([good("shared")], cache)
      const outcomes = yield* Effect.all([
        policy.summarize(request, "a"),
        policy.summarize(request, "b"),
        policy.summarize(request, "c")
      ], { concurrency: "unbounded" })
      assert.strictEqual(policy.calls(), 1)
      assert.deepStrictEqual(outcomes.map((o) => o._tag), ["Summary", "Summary", "Summary"])
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))

  it.effect("the usage a summariser reports is summed over a compaction's calls; a shared-prefix request is cached under a key that holds its prefix", () =>
    Effect.gen(function*() {
      const cache = yield* SummaryCache.SummaryCache
      const replies = ["too short", good("with usage")]
      let calls = 0
      const summarizer: Summarizer.Service = {
        summarize: () => Effect.die("summarizeWithUsage is used when present"),
        summarizeWithUsage: () =>
          Effect.sync(() => ({ text: replies[calls++]!, usage: { inputTokens: 1_000, cachedInputTokens: 900 } }))
      }
      const policy = make({
        summarizer,
        cache,
        attention: unattended,
        maxAskedRetries: 3,
        summaryDeadline: Duration.seconds(5),
        restoreOpening: (reply) => reply
      })
      const prefix = [new Transcript.UserMessage({ id: "u1", content: "fix the parser" })]
      const shared = { ...request, prefix } as unknown as Summarizer.SummaryRequest
      const outcome = yield* policy(shared, "s")
      assert.strictEqual(outcome._tag, "Summary")
      assert.deepStrictEqual(outcome.usage, { inputTokens: 2_000, cachedInputTokens: 1_800 })
      assert.notStrictEqual(SummaryCache.keyText(shared), SummaryCache.keyText(request))
      assert.include(SummaryCache.keyText(shared), "fix the parser")
      assert.isTrue(
        Option.isNone(
          yield* cache.lookup({
            namespace: "ns",
            schemaVersion: SummaryCache.schemaVersion,
            model: "m",
            summarizer: Summarizer.anonymous,
            request: SummaryCache.keyText(request)
          })
        )
      )
      assert.isTrue(
        Option.isSome(
          yield* cache.lookup({
            namespace: "ns",
            schemaVersion: SummaryCache.schemaVersion,
            model: "m",
            summarizer: Summarizer.anonymous,
            request: SummaryCache.keyText(shared)
          })
        )
      )
      assert.isTrue(Option.isSome(yield* cache.lookup(SummaryCache.keyOf(shared))))
      assert.strictEqual(SummaryCache.keyOf(request).request, `${request.system}\n\n${request.prompt}`)
    }).pipe(Effect.provide(SummaryCacheMemory.layer)))
})
