import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { APICallError } from "@ai-sdk/provider-v4"
import { assert, describe, it } from "@effect/vitest"
import * as AiV7 from "ai-v7"
import { MockLanguageModelV4 } from "ai-v7/test"
import { MockLanguageModelV2 } from "ai/test"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as SummarizerAiSdk from "../../../../src/face/layers/SummarizerAiSdk.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp } from "../../../support/Property.js"
import { request, sharedRequest } from "../../../support/SummaryRequests.js"

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined }
}
const summarize = (options: SummarizerAiSdk.Options) =>
  Effect.flatMap(SummarizerAiSdk.make(options), (summarizer) => Compat.result(summarizer.summarize(request)))

const failure = (outcome: Compat.Result<string, Summarizer.SummarizerError>): Summarizer.SummarizerError =>
  Compat.matchResult(outcome, {
    onSuccess: (summary) => assert.fail(`expected a SummarizerError, got ${JSON.stringify(summary)}`),
    onFailure: (error) => error
  })

describe("SummarizerAiSdk", () => {
  it.effect("asks a V4 model through ai@7's generateText: the instruction as the system part, the budget as maxOutputTokens, no retry", () =>
    Effect.gen(function*() {
      const model = new MockLanguageModelV4({
        doGenerate: async () => ({
          content: [{ type: "text", text: "## Primary request\nFix it." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: []
        })
      })
      const outcome = yield* summarize({
        model,
        generateText: AiV7.generateText as unknown as SummarizerAiSdk.GenerateText
      })
      assert.deepStrictEqual(TestCompat.getOrThrow(outcome), "## Primary request\nFix it.")
      const call = model.doGenerateCalls[0]!
      assert.deepStrictEqual(call.prompt[0], { role: "system", content: request.system })
      assert.strictEqual(call.prompt[1]!.role, "user")
      assert.include(JSON.stringify(call.prompt[1]), "fix the parser")
      assert.strictEqual(call.maxOutputTokens, request.maxTokens)
    }))

  it.effect("a shared-prefix request is the view's messages then the prompt as a user message, with no system part of ours, through ai@7 and without ai", () =>
    Effect.gen(function*() {
      for (
        const generateText of [
          AiV7.generateText as unknown as SummarizerAiSdk.GenerateText,
          SummarizerAiSdk.generateTextDirect
        ]
      ) {
        const model = new MockLanguageModelV4({
          doGenerate: async () => ({
            content: [{ type: "text", text: "## Primary request\nFix it." }],
            finishReason: { unified: "stop", raw: "stop" },
            usage,
            warnings: []
          })
        })
        const outcome = yield* Effect.flatMap(
          SummarizerAiSdk.make({ model, generateText }),
          (summarizer) => Compat.result(summarizer.summarize(sharedRequest))
        )
        assert.deepStrictEqual(TestCompat.getOrThrow(outcome), "## Primary request\nFix it.")
        const prompt = model.doGenerateCalls[0]!.prompt
        assert.deepStrictEqual(prompt.map((message) => message.role), ["system", "user", "assistant", "tool", "user"])
        assert.deepStrictEqual(prompt[0], { role: "system", content: "You are a coding agent." })
        assert.include(JSON.stringify(prompt[2]), "call_1")
        assert.include(JSON.stringify(prompt[3]), "export const parse")
        assert.include(JSON.stringify(prompt[4]), "## Primary request")
        assert.notInclude(JSON.stringify(prompt), request.system)
      }
    }))

  it.effect("without ai, calls the model's own doGenerate with the same request, and reads ai@5's finish reasons", () =>
    Effect.gen(function*() {
      const model = new MockLanguageModelV2({
        doGenerate: async () => ({
          content: [{ type: "text", text: "## Primary" }],
          finishReason: "length",
          usage: { inputTokens: 1, outputTokens: 9, totalTokens: 10 },
          warnings: []
        })
      })
      const cut = failure(yield* summarize({ model, generateText: SummarizerAiSdk.generateTextDirect }))
      assert.strictEqual(cut.reason, "cut-off")
      assert.include(cut.message, "9 tokens written, budget 1234")
      assert.deepStrictEqual(model.doGenerateCalls[0]!.prompt[0], { role: "system", content: request.system })
      assert.strictEqual(model.doGenerateCalls[0]!.maxOutputTokens, request.maxTokens)
      const empty = new MockLanguageModelV4({
        doGenerate: async () => ({ content: [], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] })
      })
      assert.strictEqual(
        failure(yield* summarize({ model: empty, generateText: SummarizerAiSdk.generateTextDirect })).reason,
        "empty-reply"
      )
    }))

  it.effect("reads an APICallError by its status: 429 with retry-after, an overlong prompt, a 5xx; a thrown anything is unavailable", () =>
    Effect.gen(function*() {
      const failing = (error: unknown) => new MockLanguageModelV4({ doGenerate: async () => Promise.reject(error) })
      const call = (statusCode: number, responseBody: string, responseHeaders: Record<string, string> = {}) =>
        new APICallError({
          message: `status ${statusCode}`,
          url: "https://api.example/v1/responses",
          requestBodyValues: {},
          statusCode,
          responseBody,
          responseHeaders
        })
      const direct = (error: unknown) =>
        summarize({ model: failing(error), generateText: SummarizerAiSdk.generateTextDirect })
      const limited = failure(yield* direct(call(429, `{"error":{"message":"slow down"}}`, { "retry-after": "3" })))
      assert.strictEqual(limited.reason, "rate-limited")
      assert.strictEqual(limited.retryAfterMs, 3_000)
      assert.strictEqual(
        failure(yield* direct(call(400, `{"error":{"message":"This model's maximum context length is 8192 tokens"}}`)))
          .reason,
        "context-overflow"
      )
      assert.strictEqual(failure(yield* direct(call(503, "down"))).reason, "server-error")
      assert.strictEqual(failure(yield* direct(new TypeError("fetch failed"))).reason, "unavailable")
    }))

  it.effect("an object that cannot be turned into text, and a cycle of last errors, are still a SummarizerError", () =>
    Effect.gen(function*() {
      const cyclic: { lastError?: unknown } = {}
      const other = { lastError: cyclic }
      cyclic.lastError = other
      for (const thrown of [{ toString: 0 }, Object.create(null), cyclic]) {
        const outcome = yield* summarize({
          model: new MockLanguageModelV4(),
          generateText: () => Promise.reject(thrown)
        })
        assert.strictEqual(failure(outcome).reason, "unavailable")
      }
    }))

  effectProp(
    "never fails with anything but a SummarizerError, whatever generateText throws",
    [fc.anything()],
    ([thrown]) =>
      Effect.map(
        summarize({ model: new MockLanguageModelV4(), generateText: () => Promise.reject(thrown) }),
        (outcome) => {
          assert.instanceOf(failure(outcome), Summarizer.SummarizerError)
        }
      )
  )
})
