/**
 * A summariser over @effect/ai's `LanguageModel`, so that any @effect/ai
 * provider (OpenAI, Anthropic, Google, OpenRouter, or the chat-completions
 * provider of `ChatCompletionsLanguageModel`) can write the
 * summaries: the request's instruction is the system message and its prompt
 * the user message; a reply the model stopped for length fails with
 * `"cut-off"`, an empty one with `"empty-reply"`, and every `AiError` becomes a
 * `SummarizerError` the engine's failure policy acts on.
 *
 * The model is the provider's, not `request.model`, and the `LanguageModel`
 * does not say which: give its name as `Options.model` (or pin the settings'
 * summariser model to it) so the summary cache is keyed by the model that
 * wrote the summary. @effect/ai 0.37 has no provider-neutral max tokens
 * (`generateText` takes a prompt, a toolkit and a tool choice; the limit is
 * each provider's own `Config`), so the summary budget reaches the model only
 * through `Options.withMaxTokens`, e.g.
 * `(n) => OpenAiLanguageModel.withConfigOverride({ max_output_tokens: n })`,
 * `(n) => AnthropicLanguageModel.withConfigOverride({ max_tokens: n })` or
 * `ChatCompletionsLanguageModel.withMaxTokens`.
 *
 * A shared-prefix request's view is written by the `Prompt` adapter
 * (`EffectAiPrompt.fromTranscript`: tool calls and results as the model's own
 * parts), then the prompt as a user message.
 *
 * `@effect/ai` is an optional peer dependency on Effect 3, loaded with the
 * `context-compressor/effect-ai` entry. One source for both Effects: on
 * Effect 4 (`context-compressor/effect4/effect-ai`) the `LanguageModel` is
 * Effect 4's own `effect/ai` one, and its `AiError`'s reason is read as the
 * summariser's (`#compat-ai`, `src/apps/effect-ai/compat/Ai4.ts`).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as CompatAi from "#compat-ai"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SummaryKey from "../../core/services/SummaryKey.js"
import * as SummarizerChatCompletions from "../../face/layers/SummarizerChatCompletions.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"
import * as Summarizer from "../../face/services/Summarizer.js"
import * as EffectAiPrompt from "./EffectAiPrompt.js"

/**
 * How the summariser drives the model.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Sets the provider's max output tokens around one call, given the summary
   * budget (`request.maxTokens`). Without it the provider's configured limit
   * applies and the budget is not sent.
   */
  readonly withMaxTokens?:
    | ((maxTokens: number) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>)
    | undefined
  /** How long a call may take before it fails with reason `"timeout"` (default 120 seconds). */
  readonly timeout?: Compat.DurationInput | undefined
  /**
   * The provider's model and where it is served (a base URL, never a key), as
   * the summary cache key names the summariser: the `LanguageModel` does not
   * say them. Give them when summaries of different models share a cache.
   */
  readonly model?: string | undefined
  readonly endpoint?: string | undefined
}

/**
 * An `AiError` as the summariser's error: transport failures and requests the
 * provider cannot take are `"unavailable"`, HTTP statuses are read as the
 * chat-completions summariser reads them (429 `"rate-limited"` with
 * `retry-after`, an overlong prompt `"context-overflow"`, 5xx
 * `"server-error"`), and replies that cannot be decoded `"malformed-reply"`.
 * On Effect 4 it reads the `AiError`'s reason (`NetworkError`,
 * `RateLimitError`, `InvalidRequestError`, `InternalProviderError`, …).
 *
 * @since 0.1.0
 * @category utils
 */
export const toSummarizerError: (error: CompatAi.AiError, nowMs: number) => Summarizer.SummarizerError =
  CompatAi.toSummarizerError

/**
 * Who the summariser of these options is, as the summary cache key names it:
 * kind `language-model`, the `model` and `endpoint` given (the endpoint as a
 * base URL without a user, password, query or fragment), and the version of
 * how it sends a request to the model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const identityOf = (options: Pick<Options, "model" | "endpoint">): Summarizer.Identity => ({
  kind: "language-model",
  model: options.model,
  endpoint: options.endpoint === undefined ? undefined : SummaryKey.endpointOf(options.endpoint),
  promptVersion: "1"
})

/**
 * Makes the summariser over the `LanguageModel` in context. Its
 * `MissingPackageError` is of the type only: the entry that exports it has
 * loaded the `LanguageModel`'s package already.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<Summarizer.Service, OptionalPackage.MissingPackageError, CompatAi.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* CompatAi.LanguageModel
    // A delimited request is its instruction (system) and prompt (user); a shared-prefix one is the view as
    // sent, written anew by the Prompt adapter, then the prompt as a user message.
    const promptOf = (request: Summarizer.SummaryRequest): CompatAi.Prompt.RawInput =>
      request.prefix === undefined
        ? [{ role: "system", content: request.system }, { role: "user", content: request.prompt }]
        : EffectAiPrompt.fromTranscript(Summarizer.messagesOf(request))
    const timeout = Compat.durationFromInput(options.timeout ?? SummarizerChatCompletions.defaultTimeout)
    const summarize = (request: Summarizer.SummaryRequest): Effect.Effect<string, Summarizer.SummarizerError> => {
      const generate = model.generateText({ prompt: promptOf(request) })
      return (options.withMaxTokens === undefined ? generate : options.withMaxTokens(request.maxTokens)(generate)).pipe(
        Compat.catch((error) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(toSummarizerError(error, now)))
        ),
        Compat.timeoutOrElse({
          duration: timeout,
          orElse: () =>
            Effect.fail(
              new Summarizer.SummarizerError({
                reason: "timeout",
                message: `the language model gave no answer within ${Duration.format(timeout)}`
              })
            )
        }),
        Effect.flatMap((response) => {
          if (response.finishReason === "length") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "cut-off",
                message: `the language model stopped at its token limit (finish reason "length", ${
                  CompatAi.outputTokensOf(response.usage) ?? "?"
                } tokens written, budget ${request.maxTokens}): a summary cut short is refused`
              })
            )
          }
          if (response.finishReason === "error") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "server-error",
                message: "the language model finished with an error"
              })
            )
          }
          if (response.text.trim() === "") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "empty-reply",
                message: `the language model answered an empty reply (finish reason "${response.finishReason}")`
              })
            )
          }
          return Effect.succeed(response.text)
        }),
        Effect.withSpan("SummarizerLanguageModel.summarize", { attributes: { maxTokens: request.maxTokens } })
      )
    }
    return Summarizer.Summarizer.of({ identity: identityOf(options), summarize })
  })

/**
 * Provides the `Summarizer` over the @effect/ai `LanguageModel`.
 *
 * @example
 * ```ts
 * import { ChatCompletionsLanguageModel, SummarizerLanguageModel } from "context-compressor/effect-ai"
 * import { Production } from "context-compressor/layers"
 * import { Layer } from "effect"
 *
 * // The summaries written by a LanguageModel (OpenAiLanguageModel, AnthropicLanguageModel, …).
 * const model = ChatCompletionsLanguageModel.layer({ baseUrl: "http://localhost:8000/v1", model: "qwen3-8b" })
 * export const summarizer = SummarizerLanguageModel.layer({
 *   withMaxTokens: ChatCompletionsLanguageModel.withMaxTokens,
 *   timeout: "90 seconds"
 * }).pipe(Layer.provide(model), Layer.provide(Production.nodeHttpClient))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Summarizer.Summarizer, OptionalPackage.MissingPackageError, CompatAi.LanguageModel> =>
  Layer.effect(Summarizer.Summarizer, make(options))

/**
 * The former name of {@link layer}.
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `SummarizerLanguageModel.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerLanguageModel: typeof layer = layer
