/**
 * The Effect 4 side of the AI compat: the same names as `Ai3.ts`, each over Effect 4's own
 * `effect/ai` (`LanguageModel`, `AiError`, `Prompt`, `Response`). The Effect 4 build resolves the
 * `SummarizerLanguageModel` face's `#compat-ai` here (docs/effect4.md, "One source"). Only the
 * @effect/ai modules import it, so an application without AI never loads it.
 *
 * @since 0.1.0
 */
import type * as AiErrorModule from "effect/ai/AiError"
import * as LanguageModelModule from "effect/ai/LanguageModel"
import type * as Prompt from "effect/ai/Prompt"
import type * as Response from "effect/ai/Response"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as SummarizerChatCompletions from "../../../layers/SummarizerChatCompletions.js"
import * as Summarizer from "../../../services/Summarizer.js"
import * as MessageText from "../../internal/services/MessageText.js"
import type * as OptionalPackage from "../../OptionalPackage.js"

/**
 * The language model the summariser needs in context: Effect 4's `LanguageModel`.
 *
 * @since 0.1.0
 * @category compat
 */
export type LanguageModel = LanguageModelModule.LanguageModel

/**
 * The language model service the summariser calls: Effect 4's `LanguageModel` (its service
 * and its key are one type).
 *
 * @since 0.1.0
 * @category compat
 */
export type LanguageModelService = LanguageModelModule.LanguageModel

/**
 * A failure of the language model: Effect 4's `AiError`, its detail in `reason`.
 *
 * @since 0.1.0
 * @category compat
 */
export type AiError = AiErrorModule.AiError

/**
 * A prompt as `generateText` takes it: Effect 4's `Prompt.RawInput`.
 *
 * @since 0.1.0
 * @category compat
 */
export type RawPrompt = Prompt.RawInput

const firstLine = (text: string): string => text.split("\n")[0]!.trim()

/** What a reason carries of the provider's HTTP answer, its redacted headers left out. */
const httpOf = (reason: AiErrorModule.AiErrorReason): {
  readonly status: number | undefined
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string | undefined
} => {
  const http = "http" in reason ? reason.http : undefined
  const headers: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(http?.response?.headers ?? {})) {
    if (typeof value === "string") headers[name.toLowerCase()] = value
  }
  return { status: http?.response?.status, headers, body: http?.body }
}

/**
 * An `AiError` as the summariser's error, by its reason: a network failure,
 * a request the provider refuses (authentication, quota, content policy) and
 * an unknown failure are `"unavailable"`, a rate limit `"rate-limited"` with
 * its `retryAfter`, an invalid request whose body says the prompt is too long
 * `"context-overflow"`, a provider's internal error `"server-error"`, and a
 * reply that cannot be decoded `"malformed-reply"`. The provider's status and
 * body, when the reason has them, are read as the chat-completions summariser
 * reads them.
 *
 * @since 0.1.0
 * @category compat
 */
export const toSummarizerError = (error: AiError, nowMs: number): Summarizer.SummarizerError => {
  const reason = error.reason
  const at = `${error.module}.${error.method}`
  const fromStatus = (fallbackStatus: number, description: string | undefined) => {
    const http = httpOf(reason)
    const status = http.status ?? fallbackStatus
    const classified = SummarizerChatCompletions.classifyStatus(
      status,
      http.headers,
      http.body ?? description ?? "",
      nowMs
    )
    const given = reason._tag === "RateLimitError" && reason.retryAfter !== undefined
      ? Duration.toMillis(reason.retryAfter)
      : undefined
    const retryAfterMs = given ?? classified.retryAfterMs
    const wait = retryAfterMs === undefined ? "" : ` (retry after ${retryAfterMs} ms)`
    const answered = http.status === undefined ? "" : ` (status ${http.status})`
    const message = `${at}: ${reason._tag}${answered}: ${classified.detail || (description ?? "no description")}${wait}`
    return retryAfterMs === undefined
      ? new Summarizer.SummarizerError({ reason: classified.reason, message })
      : new Summarizer.SummarizerError({ reason: classified.reason, message, retryAfterMs })
  }
  switch (reason._tag) {
    case "NetworkError":
      return new Summarizer.SummarizerError({
        reason: "unavailable",
        message: `${at}: ${reason.method} ${reason.url} could not be reached (${reason.reason}): ${
          reason.description ?? "no description"
        }`
      })
    case "RateLimitError":
      return fromStatus(429, undefined)
    case "InvalidRequestError":
      return fromStatus(400, reason.description)
    case "InternalProviderError":
      return fromStatus(500, reason.description)
    case "InvalidResponseError":
    case "InvalidOutputError":
    case "StructuredOutputError":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message: `${at}: ${reason._tag}: ${firstLine(reason.message)}`
      })
    default:
      return new Summarizer.SummarizerError({
        reason: "unavailable",
        message: `${at}: ${reason._tag}: ${firstLine(reason.message)}`
      })
  }
}

/**
 * The `LanguageModel` in context (Effect 4's `effect/ai` is part of `effect`:
 * nothing to load, never `MissingPackageError`).
 *
 * @since 0.1.0
 * @category compat
 */
export const languageModel: Effect.Effect<LanguageModelService, OptionalPackage.MissingPackageError, LanguageModel> =
  Effect.gen(function*() {
    return yield* LanguageModelModule.LanguageModel
  })

const roleOf = (message: MessageText.MessageShape): "system" | "user" | "assistant" =>
  message._tag === "System" ? "system" : message._tag === "Assistant" ? "assistant" : "user"

/**
 * How a shared-prefix request is written as a prompt: the view as sent, each
 * message as plain text (Effect 4 has no `Prompt` adapter yet: tool calls and
 * results are written as text, so the provider's cached prefix may not be
 * hit), then the prompt as a user message.
 *
 * @since 0.1.0
 * @category compat
 */
export const prefixPromptWriter: Effect.Effect<
  (request: Summarizer.SummaryRequest) => RawPrompt,
  OptionalPackage.MissingPackageError
> = Effect.succeed((request) =>
  Summarizer.messagesOf(request).map((message) => ({ role: roleOf(message), content: MessageText.text(message) }))
)

/**
 * The output tokens a reply's usage reports, when it reports them.
 *
 * @since 0.1.0
 * @category compat
 */
export const outputTokensOf = (usage: Response.Usage): number | undefined => usage.outputTokens.total
