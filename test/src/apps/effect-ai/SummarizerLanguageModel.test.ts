/**
 * The LanguageModel summariser over a provider made with @effect/ai 0.37's `LanguageModel.make`,
 * its replies and failures scripted in @effect/ai's own shapes (its `AiError` classes, its usage):
 * Effect 3 only. Its Effect 4 counterpart, over `effect/ai`'s `AiError` reasons, is
 * test-effect4/test/effectAi.test.ts; over a real server, on both, ChatCompletionsLanguageModel.test.ts.
 */
import * as AiError from "@effect/ai/AiError"
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import * as SummarizerLanguageModel from "../../../../src/apps/effect-ai/SummarizerLanguageModel.js"
import type * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { request, sharedRequest } from "../../../support/SummaryRequests.js"

const summary = "## Primary request\nFix the parser cache.\n\n## Key decisions\nRead the files first."

const failure = (outcome: Either.Either<string, Summarizer.SummarizerError>): Summarizer.SummarizerError => {
  if (Either.isRight(outcome)) {
    assert.fail(`expected a SummarizerError, got the summary ${JSON.stringify(outcome.right)}`)
  }
  return outcome.left
}

// --- a provider made with LanguageModel.make that scripts its replies ----------

/** What the scripted provider was told to use as max tokens (its own "provider config"). */
class ScriptedMaxTokens extends Context.Tag("test/ScriptedMaxTokens")<ScriptedMaxTokens, number>() {}

interface Seen {
  prompt?: Prompt.Prompt
  maxTokens?: Option.Option<number>
}

const scriptedModel = (seen: Seen, answer: Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>) =>
  Layer.effect(
    LanguageModel.LanguageModel,
    LanguageModel.make({
      generateText: (options) =>
        Effect.flatMap(Effect.serviceOption(ScriptedMaxTokens), (maxTokens) => {
          seen.prompt = options.prompt
          seen.maxTokens = maxTokens
          return answer
        }),
      streamText: () => Stream.die("the summariser does not stream")
    })
  )

const finish = (reason: Response.FinishReason): Response.PartEncoded => ({
  type: "finish",
  reason,
  usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 }
})

const summarizeScripted = (answer: Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>, seen: Seen = {}) =>
  Effect.flatMap(
    SummarizerLanguageModel.make({ withMaxTokens: (n) => Effect.provideService(ScriptedMaxTokens, n) }),
    (s) => Effect.either(s.summarize(request))
  ).pipe(Effect.provide(scriptedModel(seen, answer)))

const request0 = {
  method: "POST" as const,
  url: "https://api.example.test/v1/responses",
  urlParams: [],
  hash: Option.none(),
  headers: {}
}

describe("SummarizerLanguageModel over a scripted provider", () => {
  it.effect("the provider is given the instruction as system message and the prompt as user message, and the budget through withMaxTokens", () =>
    Effect.gen(function*() {
      const seen: Seen = {}
      const outcome = yield* summarizeScripted(Effect.succeed([{ type: "text", text: summary }, finish("stop")]), seen)
      assert.deepStrictEqual(outcome, Either.right(summary))
      const messages = seen.prompt!.content
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user"])
      assert.strictEqual(messages[0]!.content, request.system)
      const user = messages[1]!
      assert.isTrue(
        user.role === "user" && user.content.length === 1 && user.content[0]!.type === "text" &&
          user.content[0]!.text === request.prompt
      )
      assert.strictEqual(Option.getOrUndefined(seen.maxTokens ?? Option.none()), 1_234)
    }))

  it.effect("a shared-prefix request is the view's messages as the Prompt adapter writes them, then the prompt as a user message, with no system message of ours", () =>
    Effect.gen(function*() {
      const seen: Seen = {}
      const outcome = yield* Effect.flatMap(
        SummarizerLanguageModel.make({ withMaxTokens: (n) => Effect.provideService(ScriptedMaxTokens, n) }),
        (s) => Effect.either(s.summarize(sharedRequest))
      ).pipe(Effect.provide(scriptedModel(seen, Effect.succeed([{ type: "text", text: summary }, finish("stop")]))))
      assert.deepStrictEqual(outcome, Either.right(summary))
      const messages = seen.prompt!.content
      assert.deepStrictEqual(messages.map((m) => m.role), ["system", "user", "assistant", "tool", "user"])
      assert.strictEqual(messages[0]!.content, "You are a coding agent.")
      const last = messages[4]!
      assert.isTrue(
        last.role === "user" && last.content[0]!.type === "text" && last.content[0]!.text === sharedRequest.prompt
      )
      const call = messages[2]!
      assert.isTrue(
        call.role === "assistant" && call.content.some((part) => part.type === "tool-call" && part.id === "call_1")
      )
    }))

  it.effect("finish reason length is cut-off even with text; error is server-error; an unknown finish with text is accepted", () =>
    Effect.gen(function*() {
      const cut = failure(yield* summarizeScripted(Effect.succeed([{ type: "text", text: summary }, finish("length")])))
      assert.strictEqual(cut.reason, "cut-off")
      const errored = failure(
        yield* summarizeScripted(Effect.succeed([{ type: "text", text: summary }, finish("error")]))
      )
      assert.strictEqual(errored.reason, "server-error")
      const noFinish = yield* summarizeScripted(Effect.succeed([{ type: "text", text: summary }]))
      assert.deepStrictEqual(noFinish, Either.right(summary))
    }))

  it.effect("no text at all is empty-reply", () =>
    Effect.gen(function*() {
      assert.strictEqual(failure(yield* summarizeScripted(Effect.succeed([finish("stop")]))).reason, "empty-reply")
    }))

  it.effect("AiErrors map onto the failure reasons", () =>
    Effect.gen(function*() {
      const reasonOf = (error: AiError.AiError) =>
        Effect.map(summarizeScripted(Effect.fail(error)), (outcome) => failure(outcome))
      const overflowBody = JSON.stringify(
        {
          error: {
            message: "Your input exceeds the context window of this model.",
            type: "invalid_request_error",
            code: "context_length_exceeded"
          }
        },
        null,
        2
      )
      const overflow = yield* reasonOf(
        new AiError.HttpResponseError({
          module: "OpenAiClient",
          method: "createResponse",
          reason: "StatusCode",
          request: request0,
          response: { status: 400, headers: {} },
          body: overflowBody
        })
      )
      assert.strictEqual(overflow.reason, "context-overflow")
      assert.include(overflow.message, "Your input exceeds the context window")
      const limited = yield* reasonOf(
        new AiError.HttpResponseError({
          module: "AnthropicClient",
          method: "createMessage",
          reason: "StatusCode",
          request: request0,
          response: { status: 429, headers: { "retry-after": "7" } }
        })
      )
      assert.deepStrictEqual([limited.reason, limited.retryAfterMs], ["rate-limited", 7_000])
      const overloaded = yield* reasonOf(
        new AiError.HttpResponseError({
          module: "m",
          method: "g",
          reason: "StatusCode",
          request: request0,
          response: { status: 529, headers: {} }
        })
      )
      assert.strictEqual(overloaded.reason, "server-error")
      const undecodable = yield* reasonOf(
        new AiError.HttpResponseError({
          module: "m",
          method: "g",
          reason: "Decode",
          request: request0,
          response: { status: 200, headers: {} }
        })
      )
      assert.strictEqual(undecodable.reason, "malformed-reply")
      assert.strictEqual(
        (yield* reasonOf(new AiError.MalformedOutput({ module: "m", method: "g", description: "bad parts" }))).reason,
        "malformed-reply"
      )
      assert.strictEqual(
        (yield* reasonOf(
          new AiError.HttpRequestError({
            module: "m",
            method: "g",
            reason: "Transport",
            request: request0,
            description: "socket hang up"
          })
        )).reason,
        "unavailable"
      )
      assert.strictEqual(
        (yield* reasonOf(new AiError.MalformedInput({ module: "m", method: "g", description: "no tools" }))).reason,
        "unavailable"
      )
      assert.strictEqual(
        (yield* reasonOf(new AiError.UnknownError({ module: "m", method: "g", description: "?" }))).reason,
        "unavailable"
      )
    }))
})
