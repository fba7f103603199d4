/**
 * The Effect 4 side of the AI compat: the same names as `Ai3.ts`, each over Effect 4's own
 * `effect/ai` (`LanguageModel`, `AiError`, `Prompt`, `Response`, `Tool`, `Toolkit`). The Effect 4
 * build resolves the `#compat-ai` of the modules of `context-compressor/effect-ai` here
 * (docs/effect4.md, "One source"). Only the @effect/ai modules import it, so an application
 * without AI never loads it.
 *
 * @since 0.1.0
 */
import * as AiErrorModule from "effect/ai/AiError"
import * as LanguageModelModule from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import * as Duration from "effect/Duration"
import type * as Schema from "effect/Schema"
import * as SummarizerChatCompletions from "../../../face/layers/SummarizerChatCompletions.js"
import * as Summarizer from "../../../face/services/Summarizer.js"

/** Effect 4's `Prompt`: the prompt a `LanguageModel` is given, its messages and parts. */
export * as Prompt from "effect/ai/Prompt"

/** Effect 4's `Toolkit`: tools offered to a model together, and their handlers. */
export * as Toolkit from "effect/ai/Toolkit"

/** Effect 4's `Tool`: a tool a model may call (its parameters given through {@link toolParameters}). */
export * as Tool from "effect/ai/Tool"

/** Effect 4's `Response` types: the parts a provider answers, encoded and decoded. */
export type * as Response from "effect/ai/Response"

// --- language model ---

/**
 * The language model a runtime provides: Effect 4's `LanguageModel` (its service and its key are
 * one type).
 */
export type LanguageModel = LanguageModelModule.LanguageModel

/** The tag of the language model: Effect 4's `LanguageModel`. */
export const LanguageModel: typeof LanguageModelModule.LanguageModel = LanguageModelModule.LanguageModel

/** The language model service: Effect 4's `LanguageModel`. */
export type LanguageModelService = LanguageModelModule.LanguageModel

/** What a provider's hooks are given for one call: Effect 4's `LanguageModel.ProviderOptions`. */
export type ProviderOptions = LanguageModelModule.ProviderOptions

/**
 * A language model service from a provider's `generateText` and `streamText`: Effect 4's
 * `LanguageModel.make`.
 */
export const makeLanguageModel: typeof LanguageModelModule.make = LanguageModelModule.make

/** The methods of a language model a wrapper may replace. */
export type LanguageModelMethods = Pick<LanguageModelService, "generateText" | "generateObject" | "streamText">

/**
 * A language model that is `inner` with its methods replaced by `methods`: what else `inner` says
 * of itself (whether it takes system messages in its history) stays.
 */
export const wrapLanguageModel = (inner: LanguageModelService, methods: LanguageModelMethods): LanguageModelService =>
  LanguageModelModule.LanguageModel.of({ ...inner, ...methods })

// --- tools ---

/** A tool's parameters as `Tool.make` takes them, from their struct: the struct itself on Effect 4. */
export const toolParameters = <Fields extends Schema.Struct.Fields>(schema: Schema.Struct<Fields>): Schema.Struct<
  Fields
> => schema

// --- errors ---

/** A failure of the language model: Effect 4's `AiError`, its detail in `reason`. */
export type AiError = AiErrorModule.AiError

/** Where an `AiError` arose: the module and the method that failed. */
export interface AiErrorSite {
  readonly module: string
  readonly method: string
}

/** An HTTP request as an `AiError` names it. */
export interface AiErrorRequest {
  readonly method: "POST"
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
}

/** A call whose input the model cannot take as it is (reason `InvalidUserInputError`). */
export const invalidUserInputError = (options: AiErrorSite & { readonly description: string }): AiError =>
  AiErrorModule.make({
    module: options.module,
    method: options.method,
    reason: new AiErrorModule.InvalidUserInputError({ description: options.description })
  })

/** A request that reached no server (reason `NetworkError`, `"TransportError"`). */
export const networkError = (
  options: AiErrorSite & { readonly request: AiErrorRequest; readonly description: string }
): AiError =>
  AiErrorModule.make({
    module: options.module,
    method: options.method,
    reason: new AiErrorModule.NetworkError({
      reason: "TransportError",
      method: options.request.method,
      url: options.request.url,
      description: options.description
    })
  })

/**
 * A provider's answer of an error status: the reason Effect 4 reads the status as
 * (`AiError.reasonFromHttpStatus`: 400 `InvalidRequestError`, 401 and 403 `AuthenticationError`,
 * 429 `RateLimitError`, 5xx `InternalProviderError`, another `UnknownError`), with the answer's
 * status, headers and body.
 */
export const httpStatusError = (
  options: AiErrorSite & {
    readonly request: AiErrorRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
    readonly description: string
  }
): AiError =>
  AiErrorModule.make({
    module: options.module,
    method: options.method,
    reason: AiErrorModule.reasonFromHttpStatus({
      status: options.status,
      http: { response: { status: options.status, headers: { ...options.headers } }, body: options.body },
      description: options.description
    })
  })

/** A provider's answer that cannot be read (reason `InvalidResponseError`). */
export const invalidResponseError = (
  options: AiErrorSite & {
    readonly request: AiErrorRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body?: string | undefined
    readonly description: string
  }
): AiError =>
  AiErrorModule.make({
    module: options.module,
    method: options.method,
    reason: new AiErrorModule.InvalidResponseError({
      description: options.description,
      http: {
        response: { status: options.status, headers: { ...options.headers } },
        ...(options.body === undefined ? {} : { body: options.body })
      }
    })
  })

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

// --- replies ---

/**
 * The token counts of a reply's finish part, as a provider writes them (encoded): Effect 4 counts
 * input and output tokens, not their total.
 */
export const encodedUsage = (counts: {
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
  readonly totalTokens: number | undefined
}): Response.FinishPartEncoded["usage"] => ({
  inputTokens: { total: counts.inputTokens },
  outputTokens: { total: counts.outputTokens }
})

/** The output tokens a reply's usage reports, when it reports them. */
export const outputTokensOf = (usage: Response.Usage): number | undefined => usage.outputTokens.total
