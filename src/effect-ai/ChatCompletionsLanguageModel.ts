/**
 * The chat-completions client of `SummarizerChatCompletions` as an @effect/ai
 * `LanguageModel` provider, for local servers that no @effect/ai provider
 * speaks to (llama.cpp, vLLM, Ollama). `@effect/ai` is an optional peer
 * dependency, imported when the provider is made: without it, `make` and
 * `layer` fail with `OptionalPackage.MissingPackageError`.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as HttpClient from "@effect/platform/HttpClient"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import {
  CallFailure,
  ChatMessage,
  Completion,
  makeClient,
  serverMessage
} from "../../layers/internal/ChatCompletionsClient.js"
import type { Options } from "../../layers/SummarizerChatCompletions.js"
import * as OptionalPackage from "../../src/OptionalPackage.js"

/**
 * Per-call settings of the provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProviderOverrides {
  readonly model?: string | undefined
  readonly maxTokens?: number | undefined
}

/**
 * The per-call settings of the provider, set around a call
 * with `withConfigOverride`.
 *
 * @since 0.1.0
 * @category context
 */
export class ProviderConfig extends Context.Tag("context-compressor/layers/SummarizerChatCompletions/ProviderConfig")<
  ProviderConfig,
  ProviderOverrides
>() {}

/**
 * Runs an effect with `overrides` of the provider's model or max tokens,
 * merged over any already in place.
 *
 * @since 0.1.0
 * @category context
 */
export const withConfigOverride: {
  (overrides: ProviderOverrides): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: ProviderOverrides): Effect.Effect<A, E, R>
} = dual(
  2,
  <A, E, R>(self: Effect.Effect<A, E, R>, overrides: ProviderOverrides): Effect.Effect<A, E, R> =>
    Effect.flatMap(
      Effect.serviceOption(ProviderConfig),
      (current) =>
        Effect.provideService(self, ProviderConfig, { ...Option.getOrElse(current, () => ({})), ...overrides })
    )
)

/**
 * Runs an effect with the provider's max tokens set: the `withMaxTokens` to
 * give `SummarizerLanguageModel.layer` over this provider.
 *
 * @since 0.1.0
 * @category context
 */
export const withMaxTokens = (maxTokens: number): <A, E, R>(self: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R> =>
  withConfigOverride({ maxTokens })

const finishReasonOf = (reason: string | null): Response.FinishReason => {
  switch (reason) {
    case "stop":
    case "length":
      return reason
    case "content_filter":
      return "content-filter"
    case "tool_calls":
    case "function_call":
      return "tool-calls"
    case null:
      return "unknown"
    default:
      return "other"
  }
}

const providerModule = "SummarizerChatCompletions"

const loadEffectAi = OptionalPackage.load("@effect/ai", "the chat-completions LanguageModel provider", async () => ({
  AiError: await import("@effect/ai/AiError"),
  LanguageModel: await import("@effect/ai/LanguageModel")
}))

type AiErrors = typeof AiError

/** The prompt as chat messages: text only; tools, files and tool results are refused. */
const chatMessagesOf = (
  AiError: AiErrors,
  prompt: Prompt.Prompt,
  method: string
): Either.Either<ReadonlyArray<ChatMessage>, AiError.MalformedInput> => {
  const messages: Array<ChatMessage> = []
  for (const message of prompt.content) {
    if (message.role === "system") {
      messages.push({ role: "system", content: message.content })
      continue
    }
    if (message.role === "tool") {
      return Either.left(
        new AiError.MalformedInput({
          module: providerModule,
          method,
          description: "tool results are not supported by this provider"
        })
      )
    }
    const texts: Array<string> = []
    for (const part of message.content) {
      if (part.type === "text") texts.push(part.text)
      else if (part.type !== "reasoning") {
        return Either.left(
          new AiError.MalformedInput({
            module: providerModule,
            method,
            description: `${part.type} parts are not supported by this provider`
          })
        )
      }
    }
    messages.push({ role: message.role, content: texts.join("") })
  }
  return Either.right(messages)
}

const toAiError = (AiError: AiErrors, failure: CallFailure, method: string): AiError.AiError => {
  const request = {
    method: "POST" as const,
    url: failure.url,
    urlParams: [],
    hash: Option.none(),
    headers: { "content-type": "application/json" }
  }
  switch (failure._tag) {
    case "Transport":
      return new AiError.HttpRequestError({
        module: providerModule,
        method,
        reason: "Transport",
        request,
        description: failure.description
      })
    case "Timeout":
      return new AiError.HttpRequestError({
        module: providerModule,
        method,
        reason: "Transport",
        request,
        description: `no answer within ${Duration.format(failure.timeout)}`
      })
    case "Status":
      return new AiError.HttpResponseError({
        module: providerModule,
        method,
        reason: "StatusCode",
        request,
        response: { status: failure.status, headers: { ...failure.headers } },
        body: failure.body,
        description: serverMessage(failure.body)
      })
    case "TooLarge":
      return new AiError.HttpResponseError({
        module: providerModule,
        method,
        reason: "Decode",
        request,
        response: { status: failure.status, headers: {} },
        description: `the body is past the limit of ${failure.limitBytes} bytes`
      })
    case "Decode":
      return new AiError.HttpResponseError({
        module: providerModule,
        method,
        reason: "Decode",
        request,
        response: { status: failure.status, headers: { ...failure.headers } },
        body: failure.body,
        description: failure.description
      })
  }
}

/**
 * The chat-completions client as an @effect/ai `LanguageModel`, for servers
 * no @effect/ai provider speaks to (llama.cpp, vLLM, Ollama). Text prompts
 * only: tools, files and tool results fail with `MalformedInput`; streaming
 * answers the whole reply as one delta. `options.model` is the model unless
 * `withConfigOverride` sets another for a call; max tokens are sent only when
 * `withConfigOverride` / `withMaxTokens` set them. Imports `@effect/ai`, and
 * fails with `OptionalPackage.MissingPackageError` when it is not installed.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options & { readonly model: string }
): Effect.Effect<LanguageModel.Service, OptionalPackage.MissingPackageError, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const { AiError, LanguageModel } = yield* loadEffectAi
    const call = yield* makeClient(options)
    const maxTokensField = options.maxTokensField ?? "max_tokens"
    const complete = (providerOptions: LanguageModel.ProviderOptions, method: string) =>
      Effect.gen(function*() {
        const messages = yield* chatMessagesOf(AiError, providerOptions.prompt, method)
        if (providerOptions.tools.length > 0) {
          return yield* new AiError.MalformedInput({
            module: providerModule,
            method,
            description: "tools are not supported by this provider"
          })
        }
        const overrides = Option.getOrElse(yield* Effect.serviceOption(ProviderConfig), () => ({}) as ProviderOverrides)
        const body = {
          model: overrides.model ?? options.model,
          messages,
          ...(overrides.maxTokens === undefined ? {} : { [maxTokensField]: overrides.maxTokens })
        }
        return yield* Effect.mapError(call(body), (failure) => toAiError(AiError, failure, method))
      })
    const usageOf = (completion: Completion) => ({
      inputTokens: completion.usage.promptTokens,
      outputTokens: completion.usage.completionTokens,
      totalTokens: completion.usage.totalTokens
    })
    return yield* LanguageModel.make({
      generateText: (providerOptions) =>
        Effect.map(complete(providerOptions, "generateText"), (completion): Array<Response.PartEncoded> => [
          ...(completion.content === "" ? [] : [{ type: "text" as const, text: completion.content }]),
          { type: "finish", reason: finishReasonOf(completion.finishReason), usage: usageOf(completion) }
        ]),
      streamText: (providerOptions) =>
        Stream.fromIterableEffect(
          Effect.map(complete(providerOptions, "streamText"), (completion): Array<Response.StreamPartEncoded> => [
            { type: "text-start", id: "0" },
            { type: "text-delta", id: "0", delta: completion.content },
            { type: "text-end", id: "0" },
            { type: "finish", reason: finishReasonOf(completion.finishReason), usage: usageOf(completion) }
          ])
        )
    })
  })

/**
 * Provides the chat-completions client as the @effect/ai `LanguageModel`.
 *
 * @example
 * ```ts
 * import { FetchHttpClient } from "@effect/platform"
 * import { ChatCompletionsLanguageModel, SummarizerLanguageModel } from "context-compressor/effect-ai"
 * import { Layer } from "effect"
 *
 * // An @effect/ai LanguageModel over a local OpenAI-compatible server (Ollama, vLLM), here for the summariser.
 * const model = ChatCompletionsLanguageModel.layer({ baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" })
 * const withMaxTokens = ChatCompletionsLanguageModel.withMaxTokens
 * export const summarizer = SummarizerLanguageModel.layer({ withMaxTokens }).pipe(
 *   Layer.provide(model),
 *   Layer.provide(FetchHttpClient.layer)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options & { readonly model: string }
): Layer.Layer<LanguageModel.LanguageModel, OptionalPackage.MissingPackageError, HttpClient.HttpClient> =>
  Layer.unwrapEffect(
    Effect.map(loadEffectAi, ({ LanguageModel }) => Layer.effect(LanguageModel.LanguageModel, make(options)))
  )
