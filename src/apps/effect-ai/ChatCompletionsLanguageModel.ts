/**
 * The chat-completions client of `SummarizerChatCompletions` as an @effect/ai
 * `LanguageModel` provider, for local servers that no @effect/ai provider
 * speaks to (llama.cpp, vLLM, Ollama). One source for both Effects: on
 * Effect 3 a provider of @effect/ai's `LanguageModel` (an optional peer,
 * loaded with the `context-compressor/effect-ai` entry), on Effect 4 of
 * `effect/ai`'s, its failures the `AiError` reasons Effect 4 reads an HTTP
 * status as (`#compat-ai`).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as CompatAi from "#compat-ai"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
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
} from "../../face/layers/internal/ChatCompletionsClient.js"
import type { Options } from "../../face/layers/SummarizerChatCompletions.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"

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
export class ProviderConfig extends Compat.Service<ProviderConfig, ProviderOverrides>()(
  "context-compressor/layers/SummarizerChatCompletions/ProviderConfig"
) {}

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

const finishReasonOf = (reason: string | null): CompatAi.Response.FinishReason => {
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

/** The prompt as chat messages: text only; tools, files and tool results are refused. */
const chatMessagesOf = (
  prompt: CompatAi.Prompt.Prompt,
  method: string
): Compat.Result<ReadonlyArray<ChatMessage>, CompatAi.AiError> => {
  const refuse = (description: string) =>
    Compat.Result.fail(CompatAi.invalidUserInputError({ module: providerModule, method, description }))
  const messages: Array<ChatMessage> = []
  for (const message of prompt.content) {
    if (message.role === "system") {
      messages.push({ role: "system", content: message.content })
      continue
    }
    if (message.role === "tool") return refuse("tool results are not supported by this provider")
    const texts: Array<string> = []
    for (const part of message.content) {
      if (part.type === "text") texts.push(part.text)
      else if (part.type !== "reasoning") return refuse(`${part.type} parts are not supported by this provider`)
    }
    messages.push({ role: message.role, content: texts.join("") })
  }
  return Compat.Result.succeed(messages)
}

const toAiError = (failure: CallFailure, method: string): CompatAi.AiError => {
  const site = { module: providerModule, method }
  const request = { method: "POST" as const, url: failure.url, headers: { "content-type": "application/json" } }
  switch (failure._tag) {
    case "Transport":
      return CompatAi.networkError({ ...site, request, description: failure.description })
    case "Timeout":
      return CompatAi.networkError({
        ...site,
        request,
        description: `no answer within ${Duration.format(failure.timeout)}`
      })
    case "Status":
      return CompatAi.httpStatusError({
        ...site,
        request,
        status: failure.status,
        headers: failure.headers,
        body: failure.body,
        description: serverMessage(failure.body)
      })
    case "TooLarge":
      return CompatAi.invalidResponseError({
        ...site,
        request,
        status: failure.status,
        headers: {},
        description: `the body is past the limit of ${failure.limitBytes} bytes`
      })
    case "Decode":
      return CompatAi.invalidResponseError({
        ...site,
        request,
        status: failure.status,
        headers: failure.headers,
        body: failure.body,
        description: failure.description
      })
  }
}

/**
 * The chat-completions client as an @effect/ai `LanguageModel`, for servers
 * no @effect/ai provider speaks to (llama.cpp, vLLM, Ollama). Text prompts
 * only: tools, files and tool results fail with `MalformedInput` (on Effect 4
 * an `AiError` of reason `InvalidUserInputError`); streaming answers the whole
 * reply as one delta. `options.model` is the model unless `withConfigOverride`
 * sets another for a call; max tokens are sent only when `withConfigOverride` /
 * `withMaxTokens` set them. Its `MissingPackageError` is of the type only: the
 * entry that exports it has loaded the `LanguageModel`'s package already.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options & { readonly model: string }
): Effect.Effect<CompatAi.LanguageModelService, OptionalPackage.MissingPackageError, Compat.HttpClient> =>
  Effect.gen(function*() {
    const call = yield* makeClient(options)
    const maxTokensField = options.maxTokensField ?? "max_tokens"
    const complete = (providerOptions: CompatAi.ProviderOptions, method: string) =>
      Effect.gen(function*() {
        const messages = yield* Compat.fromResult(chatMessagesOf(providerOptions.prompt, method))
        if (providerOptions.tools.length > 0) {
          return yield* Effect.fail(
            CompatAi.invalidUserInputError({
              module: providerModule,
              method,
              description: "tools are not supported by this provider"
            })
          )
        }
        const overrides = Option.getOrElse(yield* Effect.serviceOption(ProviderConfig), () => ({}) as ProviderOverrides)
        const body = {
          model: overrides.model ?? options.model,
          messages,
          ...(overrides.maxTokens === undefined ? {} : { [maxTokensField]: overrides.maxTokens })
        }
        return yield* Effect.mapError(call(body), (failure) => toAiError(failure, method))
      })
    const usageOf = (completion: Completion) =>
      CompatAi.encodedUsage({
        inputTokens: completion.usage.promptTokens,
        outputTokens: completion.usage.completionTokens,
        totalTokens: completion.usage.totalTokens
      })
    return yield* CompatAi.makeLanguageModel({
      generateText: (providerOptions) =>
        Effect.map(complete(providerOptions, "generateText"), (completion): Array<CompatAi.Response.PartEncoded> => [
          ...(completion.content === "" ? [] : [{ type: "text" as const, text: completion.content }]),
          { type: "finish", reason: finishReasonOf(completion.finishReason), usage: usageOf(completion) }
        ]),
      streamText: (providerOptions) =>
        Stream.fromIterableEffect(
          Effect.map(
            complete(providerOptions, "streamText"),
            (completion): Array<CompatAi.Response.StreamPartEncoded> => [
              { type: "text-start", id: "0" },
              { type: "text-delta", id: "0", delta: completion.content },
              { type: "text-end", id: "0" },
              { type: "finish", reason: finishReasonOf(completion.finishReason), usage: usageOf(completion) }
            ]
          )
        )
    })
  })

/**
 * Provides the chat-completions client as the @effect/ai `LanguageModel`.
 *
 * @example
 * ```ts
 * import { ChatCompletionsLanguageModel, SummarizerLanguageModel } from "context-compressor/effect-ai"
 * import { Production } from "context-compressor/layers"
 * import { Layer } from "effect"
 *
 * // A LanguageModel over a local OpenAI-compatible server (Ollama, vLLM), here for the summariser.
 * const model = ChatCompletionsLanguageModel.layer({ baseUrl: "http://localhost:11434/v1", model: "qwen3:8b" })
 * const withMaxTokens = ChatCompletionsLanguageModel.withMaxTokens
 * export const summarizer = SummarizerLanguageModel.layer({ withMaxTokens }).pipe(
 *   Layer.provide(model),
 *   Layer.provide(Production.nodeHttpClient)
 * )
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options & { readonly model: string }
): Layer.Layer<CompatAi.LanguageModel, OptionalPackage.MissingPackageError, Compat.HttpClient> =>
  Layer.effect(CompatAi.LanguageModel, make(options))
