/**
 * The LanguageModel summariser on Effect 4 (docs/effect4.md): `context-compressor/effect4/effect-ai`'s
 * `SummarizerLanguageModel`, one source with Effect 3's, over a `LanguageModel` made by Effect 4's own
 * `effect/ai` `LanguageModel.make`: the summary comes back; a reply stopped for length is `"cut-off"`,
 * a blank one `"empty-reply"`; each `AiError` reason becomes the `SummarizerError` reason the engine's
 * failure policy acts on; a model that gives no answer in time is `"timeout"`; and a shared-prefix
 * request is written as the view's messages by the `Prompt` adapter, then the prompt.
 */
import { assert, describe, it } from "@effect/vitest"
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import { EffectAiPrompt, SummarizerLanguageModel } from "../../src/effect4/effect-ai/index.js"
import type * as Summarizer from "../../src/face/services/Summarizer.js"
import { request, sharedRequest } from "../../test/support/SummaryRequests.js"

const summary = "## Primary request\nFix the parser cache.\n\n## Key decisions\nRead the files first."

const finish = (reason: Response.FinishReason): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: { total: 40 }, outputTokens: { total: 12 } }
})

/** One summariser call over a model whose every call answers `answer`; what the summariser sent beside it. */
const summarizeWith = (
  answer: Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>,
  options: SummarizerLanguageModel.Options = {},
  summaryRequest: Summarizer.SummaryRequest = request
) =>
  Effect.gen(function*() {
    const sent: Array<Prompt.Prompt> = []
    const model = yield* LanguageModel.make({
      generateText: (providerOptions) => Effect.andThen(Effect.sync(() => sent.push(providerOptions.prompt)), answer),
      streamText: () => Stream.empty
    })
    const summarizer = yield* SummarizerLanguageModel.make(options).pipe(
      Effect.provideService(LanguageModel.LanguageModel, model)
    )
    const outcome = yield* Effect.result(summarizer.summarize(summaryRequest))
    return { outcome, sent }
  })

const failure = (outcome: Result.Result<string, Summarizer.SummarizerError>): Summarizer.SummarizerError => {
  if (Result.isSuccess(outcome)) assert.fail(`expected a SummarizerError, got the summary ${outcome.success}`)
  return outcome.failure
}

const failing = (reason: AiError.AiErrorReason) =>
  Effect.fail(AiError.make({ module: "TestModel", method: "generateText", reason }))

describe("SummarizerLanguageModel on Effect 4, over effect/ai's LanguageModel", () => {
  it.effect("a good summary comes back; the request is sent as its instruction (system) and prompt (user)", () =>
    Effect.gen(function*() {
      const { outcome, sent } = yield* summarizeWith(Effect.succeed([{ type: "text", text: summary }, finish("stop")]))
      assert.deepStrictEqual(outcome, Result.succeed(summary))
      assert.deepStrictEqual(
        sent[0]!.content.map((message) => message.role),
        ["system", "user"]
      )
      assert.strictEqual(sent[0]!.content[0]!.content, request.system)
    }))

  it.effect("a shared-prefix request is the view's messages as the Prompt adapter writes them, then the prompt as a user message", () =>
    Effect.gen(function*() {
      const { outcome, sent } = yield* summarizeWith(
        Effect.succeed([{ type: "text", text: summary }, finish("stop")]),
        {},
        sharedRequest
      )
      assert.isTrue(Result.isSuccess(outcome))
      const messages = sent[0]!.content
      assert.deepStrictEqual(messages.map((message) => message.role), ["system", "user", "assistant", "tool", "user"])
      const call = messages[2]!
      assert.isTrue(
        call.role === "assistant" &&
          call.content.some((part) => part.type === "tool-call" && part.id === "call_1" && part.name === "bash")
      )
      const last = messages[4]!
      assert.isTrue(
        last.role === "user" && last.content[0]!.type === "text" && last.content[0]!.text === sharedRequest.prompt
      )
    }))

  it.effect("a reply stopped for length is cut-off, naming the tokens written and the budget", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeWith(Effect.succeed([{ type: "text", text: "## Primary" }, finish("length")]))
      const error = failure(outcome)
      assert.strictEqual(error.reason, "cut-off")
      assert.include(error.message, "12 tokens written, budget 1234")
    }))

  it.effect("a blank reply is empty-reply", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeWith(Effect.succeed([{ type: "text", text: " \n " }, finish("stop")]))
      assert.strictEqual(failure(outcome).reason, "empty-reply")
    }))

  it.effect("a reply that finished with an error is server-error", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeWith(Effect.succeed([{ type: "text", text: summary }, finish("error")]))
      assert.strictEqual(failure(outcome).reason, "server-error")
    }))

  const cases: ReadonlyArray<{
    readonly name: string
    readonly reason: AiError.AiErrorReason
    readonly expected: Summarizer.SummarizerError["reason"]
    readonly retryAfterMs?: number
  }> = [
    {
      name: "a network failure is unavailable",
      reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url: "http://model/v1" }),
      expected: "unavailable"
    },
    {
      name: "a rate limit is rate-limited, with the wait it gives",
      reason: new AiError.RateLimitError({ retryAfter: Duration.seconds(2) }),
      expected: "rate-limited",
      retryAfterMs: 2_000
    },
    {
      name: "a rate limit's wait is read from its retry-after header when it gives none",
      reason: new AiError.RateLimitError({
        http: { response: { status: 429, headers: { "Retry-After": "3" } }, body: "slow down" }
      }),
      expected: "rate-limited",
      retryAfterMs: 3_000
    },
    {
      name: "an invalid request saying the prompt is too long is context-overflow",
      reason: new AiError.InvalidRequestError({
        description:
          "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."
      }),
      expected: "context-overflow"
    },
    {
      name: "another invalid request is unavailable",
      reason: new AiError.InvalidRequestError({}),
      expected: "unavailable"
    },
    {
      name: "a provider's internal error is server-error",
      reason: new AiError.InternalProviderError({ description: "overloaded" }),
      expected: "server-error"
    },
    {
      name: "a response that cannot be decoded is malformed-reply",
      reason: new AiError.InvalidResponseError({ description: "expected choices" }),
      expected: "malformed-reply"
    },
    {
      name: "an output that cannot be decoded is malformed-reply",
      reason: new AiError.InvalidOutputError({ description: "not a string" }),
      expected: "malformed-reply"
    },
    { name: "an exhausted quota is unavailable", reason: new AiError.QuotaExhaustedError({}), expected: "unavailable" },
    {
      name: "a refused key is unavailable",
      reason: new AiError.AuthenticationError({ kind: "InvalidKey" }),
      expected: "unavailable"
    },
    {
      name: "a content policy refusal is unavailable",
      reason: new AiError.ContentPolicyError({ description: "refused" }),
      expected: "unavailable"
    },
    { name: "an unknown failure is unavailable", reason: new AiError.UnknownError({}), expected: "unavailable" }
  ]
  for (const { expected, name, reason, retryAfterMs } of cases) {
    it.effect(name, () =>
      Effect.gen(function*() {
        const { outcome } = yield* summarizeWith(failing(reason))
        const error = failure(outcome)
        assert.strictEqual(error.reason, expected, error.message)
        assert.strictEqual(error.retryAfterMs, retryAfterMs)
        // The message names where it failed, and the reason's kind or the address it could not reach.
        assert.include(error.message, "TestModel.generateText: ")
        assert.include(error.message, reason._tag === "NetworkError" ? "POST http://model/v1" : reason._tag)
      }))
  }

  it.live("a model that gives no answer within the timeout is timeout", () =>
    Effect.gen(function*() {
      const { outcome } = yield* summarizeWith(Effect.never, { timeout: "20 millis" })
      const error = failure(outcome)
      assert.strictEqual(error.reason, "timeout")
      assert.include(error.message, "no answer within")
    }))

  it.effect("names itself as a language-model summariser of the model and endpoint given", () =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.make({
        generateText: () => Effect.succeed([]),
        streamText: () => Stream.empty
      })
      const summarizer = yield* SummarizerLanguageModel.make({
        model: "gpt-x",
        endpoint: "https://u:p@api.example/v1?k=1"
      })
        .pipe(Effect.provideService(LanguageModel.LanguageModel, model))
      assert.deepStrictEqual(summarizer.identity, {
        kind: "language-model",
        model: "gpt-x",
        endpoint: "https://api.example/v1",
        promptVersion: "1"
      })
    }))
})

describe("EffectAiPrompt on Effect 4, over effect/ai's Prompt", () => {
  it("reads no tool-approval part (Effect 4's own): a Prompt holding one is refused, naming the part", () => {
    const prompt = Prompt.make([
      { role: "user", content: "delete the build folder" },
      {
        role: "assistant",
        content: [
          { type: "tool-call", id: "c1", name: "bash", params: { command: "rm -r build" } },
          { type: "tool-approval-request", approvalId: "a1", toolCallId: "c1" }
        ]
      }
    ])
    const decoded = EffectAiPrompt.fromPrompt(prompt)
    assert.isTrue(Result.isFailure(decoded))
    if (Result.isFailure(decoded)) {
      assert.strictEqual(decoded.failure.index, 1)
      assert.include(decoded.failure.reason, "\"tool-approval-request\"")
    }
  })
})
