/**
 * The Effect 3 side of the AI compat: the names `Ai4.ts` exports, each over @effect/ai 0.37. The
 * modules of `context-compressor/effect-ai` import it as `#compat-ai`; the Effect 3 build resolves
 * that here, the Effect 4 build to `Ai4.ts` (docs/effect4.md, "One source"). What is the same in
 * both (`Prompt`, `Toolkit`, `Tool`, the `Response` types) is re-exported whole; what differs (the
 * `LanguageModel` service, the `AiError` constructors, a tool's parameters, a reply's usage) is
 * named here. Only the @effect/ai modules import it, so an application without AI never loads it
 * (nor @effect/ai, an optional peer, which it imports).
 *
 * @since 0.1.0
 */
import * as AiErrorModule from "@effect/ai/AiError"
import * as LanguageModelModule from "@effect/ai/LanguageModel"
import type * as Response from "@effect/ai/Response"
import * as Option from "effect/Option"
import type * as Schema from "effect/Schema"
import * as SummarizerChatCompletions from "../../../face/layers/SummarizerChatCompletions.js"
import * as Summarizer from "../../../face/services/Summarizer.js"

/** @effect/ai's `Prompt`: the prompt a `LanguageModel` is given, its messages and parts. */
export * as Prompt from "@effect/ai/Prompt"

/** @effect/ai's `Toolkit`: tools offered to a model together, and their handlers. */
export * as Toolkit from "@effect/ai/Toolkit"

/** @effect/ai's `Tool`: a tool a model may call (its parameters given through {@link toolParameters}). */
export * as Tool from "@effect/ai/Tool"

/** @effect/ai's `Response` types: the parts a provider answers, encoded and decoded. */
export type * as Response from "@effect/ai/Response"

// --- language model ---

/** The language model a runtime provides: @effect/ai's `LanguageModel` tag (its key as a type). */
export type LanguageModel = LanguageModelModule.LanguageModel

/** The tag of the language model: @effect/ai's `LanguageModel`. */
export const LanguageModel: typeof LanguageModelModule.LanguageModel = LanguageModelModule.LanguageModel

/** The language model service: @effect/ai's `LanguageModel.Service`. */
export type LanguageModelService = LanguageModelModule.Service

/** What a provider's hooks are given for one call: @effect/ai's `LanguageModel.ProviderOptions`. */
export type ProviderOptions = LanguageModelModule.ProviderOptions

/**
 * A language model service from a provider's `generateText` and `streamText`: @effect/ai's
 * `LanguageModel.make`.
 */
export const makeLanguageModel: typeof LanguageModelModule.make = LanguageModelModule.make

/** The methods of a language model a wrapper may replace. */
export type LanguageModelMethods = Pick<LanguageModelService, "generateText" | "generateObject" | "streamText">

/**
 * A language model that is `inner` with its methods replaced by `methods` (on Effect 3 the service
 * is its three methods alone).
 */
export const wrapLanguageModel = (_inner: LanguageModelService, methods: LanguageModelMethods): LanguageModelService =>
  LanguageModelModule.LanguageModel.of(methods)

// --- tools ---

/** A tool's parameters as `Tool.make` takes them, from their struct: its fields on Effect 3. */
export const toolParameters = <Fields extends Schema.Struct.Fields>(schema: Schema.Struct<Fields>): Fields =>
  schema.fields as Fields

// --- errors ---

/** A failure of the language model: @effect/ai's `AiError`. */
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

const requestDetails = (request: AiErrorRequest): typeof AiErrorModule.HttpRequestDetails.Type => ({
  method: request.method,
  url: request.url,
  urlParams: [],
  hash: Option.none(),
  headers: request.headers
})

/** A call whose input the model cannot take as it is (@effect/ai's `MalformedInput`). */
export const invalidUserInputError = (options: AiErrorSite & { readonly description: string }): AiError =>
  new AiErrorModule.MalformedInput(options)

/** A request that reached no server (@effect/ai's `HttpRequestError`, reason `"Transport"`). */
export const networkError = (
  options: AiErrorSite & { readonly request: AiErrorRequest; readonly description: string }
): AiError =>
  new AiErrorModule.HttpRequestError({
    module: options.module,
    method: options.method,
    reason: "Transport",
    request: requestDetails(options.request),
    description: options.description
  })

/** A provider's answer of an error status (@effect/ai's `HttpResponseError`, reason `"StatusCode"`). */
export const httpStatusError = (
  options: AiErrorSite & {
    readonly request: AiErrorRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
    readonly description: string
  }
): AiError =>
  new AiErrorModule.HttpResponseError({
    module: options.module,
    method: options.method,
    reason: "StatusCode",
    request: requestDetails(options.request),
    response: { status: options.status, headers: { ...options.headers } },
    body: options.body,
    description: options.description
  })

/** A provider's answer that cannot be read (@effect/ai's `HttpResponseError`, reason `"Decode"`). */
export const invalidResponseError = (
  options: AiErrorSite & {
    readonly request: AiErrorRequest
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body?: string | undefined
    readonly description: string
  }
): AiError =>
  new AiErrorModule.HttpResponseError({
    module: options.module,
    method: options.method,
    reason: "Decode",
    request: requestDetails(options.request),
    response: { status: options.status, headers: { ...options.headers } },
    ...(options.body === undefined ? {} : { body: options.body }),
    description: options.description
  })

const firstLine = (text: string): string => text.split("\n")[0]!.trim()

/**
 * An `AiError` as the summariser's error: transport failures and requests the
 * provider cannot take are `"unavailable"`, HTTP statuses are read as the
 * chat-completions summariser reads them (429 `"rate-limited"` with
 * `retry-after`, an overlong prompt `"context-overflow"`, 5xx
 * `"server-error"`), and replies that cannot be decoded `"malformed-reply"`.
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

// --- replies ---

/** The token counts of a reply's finish part, as a provider writes them (encoded). */
export const encodedUsage = (counts: {
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
  readonly totalTokens: number | undefined
}): Response.FinishPartEncoded["usage"] => ({
  inputTokens: counts.inputTokens,
  outputTokens: counts.outputTokens,
  totalTokens: counts.totalTokens
})

/** The output tokens a reply's usage reports, when it reports them. */
export const outputTokensOf = (usage: Response.Usage): number | undefined => usage.outputTokens
