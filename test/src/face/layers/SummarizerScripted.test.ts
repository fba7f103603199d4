import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp } from "../../../support/Property.js"

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

/** The reason a call failed with, or undefined if it succeeded. */
const reasonOf = (result: Compat.Result<string, Summarizer.SummarizerError>): string | undefined =>
  Option.getOrUndefined(Option.map(TestCompat.getFailure(result), (error) => error.reason))

const summarizeAll = (prompts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const summarizer = yield* Summarizer.Summarizer
    return yield* Effect.forEach(prompts, (prompt) => Compat.result(summarizer.summarize(request(prompt))))
  })

describe("SummarizerScripted", () => {
  it.effect("answers with the script's steps in order, failing where a step is an error", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c"])
      assert.deepStrictEqual(results[0], Compat.Result.succeed("first"))
      assert.deepStrictEqual(results[1], Compat.Result.fail(rateLimited))
      assert.deepStrictEqual(results[2], Compat.Result.succeed("third"))
    }).pipe(Effect.provide(SummarizerScripted.layer(["first", rateLimited, "third"]))))

  it.effect("fails with reason unavailable once the script has run out, by default", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c"])
      assert.deepStrictEqual(results[0], Compat.Result.succeed("only"))
      for (const result of results.slice(1)) {
        assert.strictEqual(reasonOf(result), "unavailable")
      }
    }).pipe(Effect.provide(SummarizerScripted.layer(["only"]))))

  it.effect("an empty script is unavailable from the first call, even when asked to repeat", () =>
    Effect.gen(function*() {
      const [result] = yield* summarizeAll(["a"])
      assert.isTrue(result !== undefined && reasonOf(result) === "unavailable")
    }).pipe(Effect.provide(SummarizerScripted.layer([], { whenExhausted: "repeatLast" }))))

  it.effect("repeats the last step once the script has run out, when asked to", () =>
    Effect.gen(function*() {
      const results = yield* summarizeAll(["a", "b", "c", "d"])
      assert.deepStrictEqual(results, [
        Compat.Result.succeed("ok"),
        Compat.Result.fail(rateLimited),
        Compat.Result.fail(rateLimited),
        Compat.Result.fail(rateLimited)
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
      assert.deepStrictEqual(firstRun, [Compat.Result.succeed("one")])
      assert.deepStrictEqual(secondRun, [[Compat.Result.succeed("one")], 1])
    }))

  effectProp(
    "call n answers step n while the script lasts, whatever the script",
    [fc.array(fc.oneof(fc.string(), fc.constant(rateLimited)), { maxLength: 8 }), fc.nat({ max: 4 })],
    ([script, extra]) =>
      Effect.gen(function*() {
        const results = yield* summarizeAll(Array.from({ length: script.length + extra }, (_, i) => `p${i}`))
        results.forEach((result, i) => {
          const step = script[i]
          if (step === undefined) assert.strictEqual(reasonOf(result), "unavailable")
          else {assert.deepStrictEqual(
              result,
              typeof step === "string" ? Compat.Result.succeed(step) : Compat.Result.fail(step)
            )}
        })
      }).pipe(Effect.provide(SummarizerScripted.layer(script)))
  )
})
