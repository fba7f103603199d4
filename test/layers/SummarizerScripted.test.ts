import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as SummarizerScripted from "../../layers/SummarizerScripted.js"
import * as Summarizer from "../../services/Summarizer.js"

const request = (prompt: string): Summarizer.SummaryRequest =>
  new Summarizer.SummaryRequest({
    model: "test-model",
    system: "Summarise.",
    prompt,
    maxTokens: 1_000,
    agentic: false,
    namespace: "test/v1",
    span: []
  })

const rateLimited = new Summarizer.SummarizerError({ reason: "rate-limited", message: "slow down", retryAfterMs: 50 })

const summarizeAll = (prompts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const summarizer = yield* Summarizer.Summarizer
    return yield* Effect.forEach(prompts, (prompt) => Effect.either(summarizer.summarize(request(prompt))))
  })

describe("SummarizerScripted", () => {
  it.effect("answers with the script's steps in order, failing where a step is an error", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c"])
      assert.deepStrictEqual(results[0], Either.right("first"))
      assert.deepStrictEqual(results[1], Either.left(rateLimited))
      assert.deepStrictEqual(results[2], Either.right("third"))
    }).pipe(Effect.provide(SummarizerScripted.layer(["first", rateLimited, "third"]))))

  it.effect("fails with reason unavailable once the script has run out, by default", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c"])
      assert.deepStrictEqual(results[0], Either.right("only"))
      for (const result of results.slice(1)) {
        assert.isTrue(Either.isLeft(result))
        if (Either.isLeft(result)) assert.strictEqual(result.left.reason, "unavailable")
      }
    }).pipe(Effect.provide(SummarizerScripted.layer(["only"]))))

  it.effect("an empty script is unavailable from the first call, even when asked to repeat", () =>
    Effect.gen(function*() {
      const [result] = yield* summarizeAll(["a"])
      assert.isTrue(result !== undefined && Either.isLeft(result) && result.left.reason === "unavailable")
    }).pipe(Effect.provide(SummarizerScripted.layer([], { whenExhausted: "repeatLast" }))))

  it.effect("repeats the last step once the script has run out, when asked to", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c", "d"])
      assert.deepStrictEqual(results, [
        Either.right("ok"),
        Either.left(rateLimited),
        Either.left(rateLimited),
        Either.left(rateLimited)
      ])
    }).pipe(Effect.provide(SummarizerScripted.layer(["ok", rateLimited], { whenExhausted: "repeatLast" }))))

  it.effect("records every request it was given, failed ones included, and counts the calls", () =>
    Effect.gen(function*() {
      const scripted = yield* SummarizerScripted.ScriptedSummarizer
      assert.strictEqual(yield* scripted.calls, 0)
      yield* summarizeAll(["a", "b", "c"])
      assert.strictEqual(yield* scripted.calls, 3)
      const requests = yield* scripted.requests
      assert.deepStrictEqual(requests.map((r) => r.prompt), ["a", "b", "c"])
      assert.deepStrictEqual(requests[0], request("a"))
    }).pipe(Effect.provide(SummarizerScripted.layer([rateLimited]))))

  it.effect("each layer build starts over with a fresh script and no recorded requests", () =>
    Effect.gen(function*() {
      const layer = SummarizerScripted.layer(["one"])
      const firstRun = yield* Effect.provide(summarizeAll(["a"]), layer)
      const secondRun = yield* Effect.provide(
        Effect.zip(summarizeAll(["b"]), Effect.flatMap(SummarizerScripted.ScriptedSummarizer, (s) => s.calls)),
        layer
      )
      assert.deepStrictEqual(firstRun, [Either.right("one")])
      assert.deepStrictEqual(secondRun, [[Either.right("one")], 1])
    }))

  it.effect.prop(
    "call n answers step n while the script lasts, whatever the script",
    [fc.array(fc.oneof(fc.string(), fc.constant(rateLimited)), { maxLength: 8 }), fc.nat({ max: 4 })],
    ([script, extra]) =>
      Effect.gen(function*() {
        const results = yield* summarizeAll(Array.from({ length: script.length + extra }, (_, i) => `p${i}`))
        results.forEach((result, i) => {
          const step = script[i]
          if (step === undefined) assert.isTrue(Either.isLeft(result) && result.left.reason === "unavailable")
          else assert.deepStrictEqual(result, typeof step === "string" ? Either.right(step) : Either.left(step))
        })
      }).pipe(Effect.provide(SummarizerScripted.layer(script)))
  )
})
