/**
 * The Effect 3 side of the AI compat: the names `Ai4.ts` exports, each over @effect/ai 0.37's
 * `LanguageModel`. The `SummarizerLanguageModel` face imports it as `#compat-ai`; the Effect 3
 * build resolves that here, the Effect 4 build to `Ai4.ts` (docs/effect4.md, "One source").
 * Only the @effect/ai modules import it, so an application without AI never loads it; and it
 * names @effect/ai, an optional peer, in types only, loading it when a summariser is made.
 *
 * @since 0.1.0
 */
import type * as AiErrorModule from "@effect/ai/AiError"
import type * as LanguageModelModule from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as SummarizerChatCompletions from "../../../layers/SummarizerChatCompletions.js"
import * as Summarizer from "../../../services/Summarizer.js"
import * as OptionalPackage from "../../OptionalPackage.js"

/**
 * The language model the summariser needs in context: @effect/ai's `LanguageModel` tag.
 *
 * @since 0.1.0
 * @category compat
 */
export type LanguageModel = LanguageModelModule.LanguageModel

/**
 * The language model service the summariser calls: @effect/ai's `LanguageModel.Service`.
 *
 * @since 0.1.0
 * @category compat
 */
export type LanguageModelService = LanguageModelModule.Service

/**
 * A failure of the language model: @effect/ai's `AiError`.
 *
 * @since 0.1.0
 * @category compat
 */
export type AiError = AiErrorModule.AiError

/**
 * A prompt as `generateText` takes it: @effect/ai's `Prompt.RawInput`.
 *
 * @since 0.1.0
 * @category compat
 */
export type RawPrompt = Prompt.RawInput

const firstLine = (text: string): string => text.split("\n")[0]!.trim()

/**
 * An `AiError` as the summariser's error: transport failures and requests the
 * provider cannot take are `"unavailable"`, HTTP statuses are read as the
 * chat-completions summariser reads them (429 `"rate-limited"` with
 * `retry-after`, an overlong prompt `"context-overflow"`, 5xx
 * `"server-error"`), and replies that cannot be decoded `"malformed-reply"`.
 *
 * @since 0.1.0
 * @category compat
 */
export const toSummarizerError = (error: AiError, nowMs: number): Summarizer.SummarizerError => {
  switch (error._tag) {
    case "HttpRequestError":
      return new Summarizer.SummarizerError({
        reason: "unavailable",
        message: `${error.request.method} ${error.request.url} could not be reached (${error.reason}): ${
          error.description ?? "no description"
        }`
      })
    case "HttpResponseError": {
      const at = `${error.request.method} ${error.request.url}`
      if (error.reason !== "StatusCode") {
        return new Summarizer.SummarizerError({
          reason: "malformed-reply",
          message: `${at} answered ${error.response.status} with a malformed reply (${error.reason}): ${
            error.description ?? "no description"
          }`
        })
      }
      const { detail, reason, retryAfterMs } = SummarizerChatCompletions.classifyStatus(
        error.response.status,
        error.response.headers,
        error.body ?? error.description ?? "",
        nowMs
      )
      const wait = retryAfterMs === undefined ? "" : ` (retry after ${retryAfterMs} ms)`
      const message = `${at} answered ${error.response.status} (${reason}): ${detail}${wait}`
      return retryAfterMs === undefined
        ? new Summarizer.SummarizerError({ reason, message })
        : new Summarizer.SummarizerError({ reason, message, retryAfterMs })
    }
    case "MalformedOutput":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message: `${error.module}.${error.method}: ${firstLine(error.message)}`
      })
    case "MalformedInput":
      return new Summarizer.SummarizerError({
        reason: "unavailable",
        message: `${error.module}.${error.method} cannot take the request: ${
          error.description ?? firstLine(error.message)
        }`
      })
    case "UnknownError":
      return new Summarizer.SummarizerError({ reason: "unavailable", message: firstLine(error.message) })
  }
}

const loadLanguageModel = OptionalPackage.load(
  "@effect/ai",
  "the LanguageModel summariser",
  () => import("@effect/ai/LanguageModel")
)

// The Prompt adapter writes a shared-prefix request's head; it imports @effect/ai, so it is loaded with it.
const loadPromptAdapter = OptionalPackage.load(
  "@effect/ai",
  "the LanguageModel summariser",
  () => import("../EffectAiPrompt.js")
)

/**
 * The `LanguageModel` in context, @effect/ai loaded first: fails with
 * `MissingPackageError` when it is not installed.
 *
 * @since 0.1.0
 * @category compat
 */
export const languageModel: Effect.Effect<LanguageModelService, OptionalPackage.MissingPackageError, LanguageModel> =
  Effect.flatMap(loadLanguageModel, ({ LanguageModel }) => LanguageModel)

/**
 * How a shared-prefix request is written as a prompt: the view as sent,
 * written anew by the @effect/ai `Prompt` adapter, then the prompt as a user
 * message. Loads the adapter (and so @effect/ai).
 *
 * @since 0.1.0
 * @category compat
 */
export const prefixPromptWriter: Effect.Effect<
  (request: Summarizer.SummaryRequest) => RawPrompt,
  OptionalPackage.MissingPackageError
> = Effect.map(loadPromptAdapter, (EffectAiPrompt) => (request) => {
  const empty = Either.getOrUndefined(EffectAiPrompt.adapter.decodeResult([]))
  return empty === undefined
    ? [{ role: "user", content: request.prompt }]
    : EffectAiPrompt.toPrompt(empty, Summarizer.messagesOf(request))
})

/**
 * The output tokens a reply's usage reports, when it reports them.
 *
 * @since 0.1.0
 * @category compat
 */
export const outputTokensOf = (usage: Response.Usage): number | undefined => usage.outputTokens
