/**
 * A summariser for OpenAI-compatible chat-completions servers (OpenAI,
 * llama.cpp, vLLM, Ollama): a small client over @effect/platform's
 * `HttpClient` that posts the request's instruction as the system message and
 * its prompt as the user message, with the summary budget as `max_tokens`, and
 * maps every way the call can go wrong onto a `SummarizerError` the engine's
 * failure policy acts on. It does not retry (the engine retries once) and
 * never writes the API key into an error or a span.
 *
 * The same client is offered as an @effect/ai `LanguageModel` provider
 * (`languageModel`), for local servers that no @effect/ai provider speaks to.
 * `@effect/ai` is an optional peer dependency, imported only by that
 * provider: without it, the provider fails with
 * `OptionalPackage.MissingPackageError`; the summariser needs it not.
 *
 * @since 0.1.0
 */
import type * as AiError from "@effect/ai/AiError"
import type * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import type * as Response from "@effect/ai/Response"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Summarizer from "../services/Summarizer.js"
import * as OptionalPackage from "../src/OptionalPackage.js"
import * as Overflow from "../src/Overflow.js"

/**
 * Where the client sends requests and how long it waits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The server's API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer …` when set; local servers need none. */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The model to ask, overriding the request's (the settings' pin, else the session's model). */
  readonly model?: string | undefined
  /** How long to wait for the whole answer (default 120 seconds). */
  readonly timeout?: Duration.DurationInput | undefined
  /**
   * The body field the summary budget is sent in: `max_tokens` (the default,
   * what every compatible server reads) or `max_completion_tokens` (what
   * OpenAI's reasoning models require instead).
   */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined
  /** The largest reply body read, in bytes (default {@link defaultMaxReplyBytes}); a larger one fails with `"malformed-reply"`. */
  readonly maxReplyBytes?: number | undefined
  /**
   * The longest wait a `Retry-After` (or `retry-after-ms`) header of a 429 is
   * honoured for before the next call (default {@link defaultMaxRetryAfter}); a
   * longer one is cut to it.
   */
  readonly maxRetryAfter?: Duration.DurationInput | undefined
}

/**
 * The largest reply body read by default: 8 MiB, some hundred times a 16,000-token summary.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxReplyBytes = 8 * 1_048_576

/**
 * The longest `Retry-After` honoured by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxRetryAfter: Duration.Duration = Duration.seconds(60)

/**
 * The API root used when none is configured.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBaseUrl = "https://api.openai.com/v1"

/**
 * How long a call may take before it fails with reason `"timeout"`: 60
 * seconds, so that the engine's two attempts fit its checkpoint deadline of
 * 120 seconds (`Compactor.defaultSummaryDeadline`).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(60)

// --- the wire format -------------------------------------------------------

/**
 * A chat message as the chat-completions endpoint takes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatMessage {
  readonly role: "system" | "user" | "assistant"
  readonly content: string
}

const NullableNumber = Schema.optional(Schema.NullOr(Schema.Number))

const ChatCompletion = Schema.Struct({
  choices: Schema.NonEmptyArray(
    Schema.Struct({
      message: Schema.Struct({ content: Schema.optional(Schema.NullOr(Schema.String)) }),
      finish_reason: Schema.optional(Schema.NullOr(Schema.String))
    })
  ),
  usage: Schema.optional(
    Schema.NullOr(Schema.Struct({ prompt_tokens: NullableNumber, completion_tokens: NullableNumber, total_tokens: NullableNumber }))
  )
})

const decodeCompletion = Schema.decodeUnknownEither(ChatCompletion)

/**
 * The first choice of a completion the server answered with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Completion {
  /** The reply's text; `""` when the server sent `null`. */
  readonly content: string
  /** `finish_reason` as the server wrote it (`"stop"`, `"length"`, …), `null` when absent. */
  readonly finishReason: string | null
  readonly usage: {
    readonly promptTokens: number | undefined
    readonly completionTokens: number | undefined
    readonly totalTokens: number | undefined
  }
}

/**
 * A call that did not give a completion, kept raw enough to become either a
 * `SummarizerError` or an @effect/ai `AiError`.
 *
 * @since 0.1.0
 * @category models
 */
export type CallFailure =
  | { readonly _tag: "Transport"; readonly url: string; readonly description: string }
  | { readonly _tag: "Timeout"; readonly url: string; readonly timeout: Duration.Duration }
  | {
    readonly _tag: "Status"
    readonly url: string
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
  }
  | { readonly _tag: "TooLarge"; readonly url: string; readonly status: number; readonly limitBytes: number }
  | {
    readonly _tag: "Decode"
    readonly url: string
    readonly status: number
    readonly headers: Readonly<Record<string, string>>
    readonly body: string
    readonly description: string
  }

/** The URL as shown in messages: any credentials in it left out. */
const displayUrl = (url: string): string => {
  try {
    const parsed = new URL(url)
    parsed.username = ""
    parsed.password = ""
    return parsed.toString()
  } catch {
    return url
  }
}

const oneLine = (text: string, max: number): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}

const describeCause = (cause: unknown): string => {
  if (cause instanceof AggregateError && cause.errors.length > 0) return cause.errors.map(describeCause).join("; ")
  if (cause instanceof Error) {
    const code = (cause as { code?: unknown }).code
    return typeof code === "string" && !cause.message.includes(code) ? `${code}: ${cause.message}` : cause.message
  }
  return String(cause)
}

/** Where the first problem of a decoding is, e.g. `choices.0 is missing`. */
const issueAt = (error: ParseResult.ParseError): string => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (first === undefined) return "unexpected shape"
  const where = first.path.length === 0 ? "the body" : first.path.map(String).join(".")
  return first._tag === "Missing" ? `${where} is missing` : `unexpected value at ${where}`
}

const transportDescription = (error: HttpClientError.HttpClientError): string => {
  const cause = error.cause === undefined ? undefined : describeCause(error.cause)
  return cause ?? error.description ?? error.reason
}

/**
 * Posts `body` to `{baseUrl}/chat/completions` and reads the first choice of
 * the answer. Statuses other than 2xx, bodies that are not a chat completion,
 * an unreachable server and a missing answer fail with a `CallFailure`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeClient = (
  options: Pick<Options, "baseUrl" | "apiKey" | "timeout" | "maxReplyBytes">
): Effect.Effect<(body: Readonly<Record<string, unknown>>) => Effect.Effect<Completion, CallFailure>, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const shownUrl = displayUrl(url)
    const timeout = Duration.decode(options.timeout ?? defaultTimeout)
    const maxReplyBytes = options.maxReplyBytes ?? defaultMaxReplyBytes
    class ReplyTooLarge {
      constructor(readonly status: number) {}
    }
    // The body read up to the limit: a reply past it is refused before it is all in memory.
    const boundedText = (response: { readonly status: number; readonly headers: unknown; readonly stream: Stream.Stream<Uint8Array, HttpClientError.ResponseError> }) => {
      const declared = Number((response.headers as Record<string, string | undefined>)["content-length"])
      if (Number.isFinite(declared) && declared > maxReplyBytes) return Effect.fail(new ReplyTooLarge(response.status))
      return Stream.runFoldEffect(response.stream, { chunks: [] as Array<Uint8Array>, bytes: 0 }, (read, chunk) => {
        const bytes = read.bytes + chunk.length
        if (bytes > maxReplyBytes) return Effect.fail(new ReplyTooLarge(response.status))
        read.chunks.push(chunk)
        return Effect.succeed({ chunks: read.chunks, bytes })
      }).pipe(Effect.map(({ chunks }) => new TextDecoder().decode(Buffer.concat(chunks))))
    }
    const base = HttpClientRequest.post(url).pipe(
      HttpClientRequest.acceptJson,
      options.apiKey === undefined ? (request) => request : HttpClientRequest.bearerToken(options.apiKey)
    )
    return (body: Readonly<Record<string, unknown>>): Effect.Effect<Completion, CallFailure> =>
      Effect.gen(function*() {
        const response = yield* client.execute(HttpClientRequest.bodyUnsafeJson(base, body))
        const text = yield* boundedText(response)
        return { status: response.status, headers: response.headers as Readonly<Record<string, string>>, text }
      }).pipe(
        Effect.scoped,
        Effect.mapError((error): CallFailure =>
          error instanceof ReplyTooLarge
            ? { _tag: "TooLarge", url: shownUrl, status: error.status, limitBytes: maxReplyBytes }
            : { _tag: "Transport", url: shownUrl, description: transportDescription(error) }
        ),
        Effect.timeoutFail({ duration: timeout, onTimeout: (): CallFailure => ({ _tag: "Timeout", url: shownUrl, timeout }) }),
        Effect.flatMap(({ headers, status, text }) => {
          if (status < 200 || status >= 300) return Effect.fail<CallFailure>({ _tag: "Status", url: shownUrl, status, headers, body: text })
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            return Effect.fail<CallFailure>({ _tag: "Decode", url: shownUrl, status, headers, body: text, description: "the body is not JSON" })
          }
          return Either.match(decodeCompletion(json), {
            onLeft: (issue) =>
              Effect.fail<CallFailure>({
                _tag: "Decode",
                url: shownUrl,
                status,
                headers,
                body: text,
                description: `the JSON is not a chat completion (${issueAt(issue)})`
              }),
            onRight: ({ choices, usage }) =>
              Effect.succeed<Completion>({
                content: choices[0].message.content ?? "",
                finishReason: choices[0].finish_reason ?? null,
                usage: {
                  promptTokens: usage?.prompt_tokens ?? undefined,
                  completionTokens: usage?.completion_tokens ?? undefined,
                  totalTokens: usage?.total_tokens ?? undefined
                }
              })
          })
        })
      )
  })

// --- reading errors ----------------------------------------------------------

/**
 * Whether an error body says the prompt was longer than the model's context:
 * `Overflow.classify` found an overflow in it (OpenAI's
 * `context_length_exceeded`, vLLM's "maximum context length", llama.cpp's
 * `exceed_context_size_error`, Anthropic's "prompt is too long", "too many
 * tokens", …).
 *
 * @since 0.1.0
 * @category utils
 */
export const isContextOverflow = (body: string): boolean => Overflow.isContextOverflow(body)

/**
 * The server's own message in an error body: `error.message`, `error` when it
 * is a string, `message` or `detail`, else the body itself, on one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const serverMessage = (body: string): string => {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return body.trim() === "" ? "(empty body)" : oneLine(body, 500)
  }
  const record = (value: unknown): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})
  const top = record(json)
  const error = top["error"]
  const found = [record(error)["message"], error, top["message"], top["detail"]].find((value): value is string => typeof value === "string" && value.trim() !== "")
  return oneLine(found ?? body, 500)
}

/**
 * How long a rate-limited caller is asked to wait, from `retry-after-ms`
 * (milliseconds) or `retry-after` (seconds, or an HTTP date compared with
 * `nowMs`); `undefined` when neither header says.
 *
 * @since 0.1.0
 * @category utils
 */
export const retryAfterMs = (headers: Readonly<Record<string, string | undefined>>, nowMs: number): number | undefined => {
  const header = (name: string): string | undefined => {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === name)
    return key === undefined ? undefined : headers[key]?.trim()
  }
  const ms = header("retry-after-ms")
  if (ms !== undefined && /^\d+(?:\.\d+)?$/.test(ms)) return Math.ceil(Number(ms))
  const after = header("retry-after")
  if (after === undefined || after === "") return undefined
  if (/^\d+(?:\.\d+)?$/.test(after)) return Math.ceil(Number(after) * 1000)
  const date = Date.parse(after)
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs)
}

/**
 * What an HTTP error status means for the summariser: 429 is `"rate-limited"`
 * (with the wait the server asked for), a body saying the prompt is too long
 * is `"context-overflow"`, other 5xx are `"server-error"` and anything else
 * `"unavailable"`.
 *
 * @since 0.1.0
 * @category utils
 */
export const classifyStatus = (
  status: number,
  headers: Readonly<Record<string, string | undefined>>,
  body: string,
  nowMs: number
): { readonly reason: Summarizer.SummarizerError["reason"]; readonly detail: string; readonly retryAfterMs?: number } => {
  const detail = serverMessage(body)
  if (status === 429) {
    const wait = retryAfterMs(headers, nowMs)
    return wait === undefined ? { reason: "rate-limited", detail } : { reason: "rate-limited", detail, retryAfterMs: wait }
  }
  // Some servers (older llama.cpp) report an overlong prompt as a 5xx: the body decides.
  if (status >= 400 && isContextOverflow(body)) return { reason: "context-overflow", detail }
  if (status >= 500) return { reason: "server-error", detail }
  return { reason: "unavailable", detail }
}

/**
 * A failed call as the summariser's error; the message names the status, the
 * URL and the server's own message.
 *
 * @since 0.1.0
 * @category utils
 */
export const toSummarizerError = (failure: CallFailure, nowMs: number): Summarizer.SummarizerError => {
  switch (failure._tag) {
    case "Transport":
      return new Summarizer.SummarizerError({ reason: "unavailable", message: `POST ${failure.url} could not be reached: ${failure.description}` })
    case "Timeout":
      return new Summarizer.SummarizerError({ reason: "timeout", message: `POST ${failure.url} gave no answer within ${Duration.format(failure.timeout)}` })
    case "TooLarge":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message: `POST ${failure.url} answered ${failure.status} with a body past the limit of ${failure.limitBytes} bytes: not read further`
      })
    case "Decode":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message: `POST ${failure.url} answered ${failure.status} with a malformed reply: ${failure.description}; body: ${serverMessage(failure.body)}`
      })
    case "Status": {
      const { detail, reason, retryAfterMs } = classifyStatus(failure.status, failure.headers, failure.body, nowMs)
      const wait = retryAfterMs === undefined ? "" : ` (retry after ${retryAfterMs} ms)`
      const message = `POST ${failure.url} answered ${failure.status} (${reason}): ${detail}${wait}`
      return retryAfterMs === undefined
        ? new Summarizer.SummarizerError({ reason, message })
        : new Summarizer.SummarizerError({ reason, message, retryAfterMs })
    }
  }
}

// --- the summariser ------------------------------------------------------------

/**
 * Makes the chat-completions summariser: one POST per request, no retry. A
 * reply cut off by the token limit (`finish_reason: "length"`) fails with
 * `"cut-off"`, an empty or blank one with `"empty-reply"`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Summarizer.Service, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const call = yield* makeClient(options)
    const maxTokensField = options.maxTokensField ?? "max_tokens"
    const url = displayUrl(`${options.baseUrl.replace(/\/+$/, "")}/chat/completions`)
    const maxRetryAfterMs = Duration.toMillis(options.maxRetryAfter ?? defaultMaxRetryAfter)
    // The time before which the server asked (Retry-After) not to be called again.
    let notBefore = 0
    const waitAsked = Effect.flatMap(Clock.currentTimeMillis, (now) => notBefore > now ? Effect.sleep(Duration.millis(notBefore - now)) : Effect.void)
    const summarize = (request: Summarizer.SummaryRequest): Effect.Effect<string, Summarizer.SummarizerError> => {
      const model = options.model ?? request.model
      const messages: ReadonlyArray<ChatMessage> = [{ role: "system", content: request.system }, { role: "user", content: request.prompt }]
      return Effect.zipRight(waitAsked, call({ model, messages, [maxTokensField]: request.maxTokens })).pipe(
        Effect.catchAll((failure) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const error = toSummarizerError(failure, now)
            if (error.retryAfterMs !== undefined) notBefore = now + Math.min(error.retryAfterMs, maxRetryAfterMs)
            return Effect.fail(error)
          })
        ),
        Effect.flatMap((completion) => {
          if (completion.finishReason === "length") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "cut-off",
                message: `POST ${url} answered a reply cut off by the token limit (finish_reason "length", ${maxTokensField} ${request.maxTokens}, ${
                  completion.usage.completionTokens ?? "?"
                } tokens written): a summary cut short is refused`
              })
            )
          }
          if (completion.content.trim() === "") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "empty-reply",
                message: `POST ${url} answered an empty reply (finish_reason ${JSON.stringify(completion.finishReason)})`
              })
            )
          }
          return Effect.succeed(completion.content)
        }),
        Effect.withSpan("SummarizerChatCompletions.summarize", { attributes: { model, maxTokens: request.maxTokens } })
      )
    }
    return Summarizer.make({ summarize })
  })

/**
 * Provides the chat-completions `Summarizer` over the `HttpClient` given.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Summarizer.Summarizer, never, HttpClient.HttpClient> =>
  Layer.effect(Summarizer.Summarizer, make(options))

// --- the key and where it goes ---------------------------------------------------

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

/**
 * Where the API key to call a server comes from: `apiKey`, or `undefined`
 * when none is sent; `withheld` names a key that was set but is for another
 * server, to be said as a warning.
 *
 * @since 0.1.0
 * @category models
 */
export interface ApiKeyChoice {
  readonly apiKey: Redacted.Redacted<string> | undefined
  readonly withheld: string | undefined
}

/** The key variables in the order they are tried, each with the variable of the server it is for. */
const keyVariables = [
  { variable: "CONTEXT_COMPRESSOR_OPENAI_API_KEY", homeVariable: "CONTEXT_COMPRESSOR_OPENAI_BASE_URL" },
  { variable: "OPENAI_API_KEY", homeVariable: "OPENAI_BASE_URL" }
] as const

/**
 * The variables {@link apiKeyFor} reads: the two keys and the server each is for.
 *
 * @since 0.1.0
 * @category constants
 */
export const keyEnvironment: ReadonlyArray<string> = keyVariables.flatMap(({ homeVariable, variable }) => [variable, homeVariable])

const textOf = (value: string | Redacted.Redacted<string> | undefined): string | undefined =>
  value === undefined ? undefined : typeof value === "string" ? value : Redacted.value(value)

/**
 * The API key to send to `baseUrl`: a key goes only to the server it was
 * configured for. `CONTEXT_COMPRESSOR_OPENAI_API_KEY` goes to
 * `CONTEXT_COMPRESSOR_OPENAI_BASE_URL`, `OPENAI_API_KEY` to `OPENAI_BASE_URL`,
 * each to api.openai.com when its server is not set; servers are compared by
 * origin (scheme, host, port). The first key whose server is `baseUrl`'s is
 * sent; a key set for another server is named in `withheld`. Pure: `env` holds
 * the variables (plain or redacted), as the CLI reads them from `process.env`
 * and {@link config} from the `ConfigProvider`.
 *
 * @since 0.1.0
 * @category config
 */
export const apiKeyFor = (
  baseUrl: string,
  env: Readonly<Record<string, string | Redacted.Redacted<string> | undefined>>
): ApiKeyChoice => {
  const target = originOf(baseUrl)
  let withheld: string | undefined
  for (const { homeVariable, variable } of keyVariables) {
    const key = textOf(env[variable])
    if (key === undefined || key.trim() === "") continue
    const configured = textOf(env[homeVariable])
    const home = configured === undefined || configured.trim() === "" ? defaultBaseUrl : configured
    if (target !== undefined && originOf(home) === target) return { apiKey: Redacted.make(key), withheld: undefined }
    withheld ??= `${variable} is for ${originOf(home) ?? home}, not ${target ?? baseUrl}: the summariser is called without a key ` +
      `(set ${homeVariable} to ${baseUrl} to send it there)`
  }
  return { apiKey: undefined, withheld }
}

/**
 * The options read from the environment with what the key rule decided:
 * `options` as {@link config} gives them, and `withheld`, the warning to say
 * when a key was set for another server than the one called.
 *
 * @since 0.1.0
 * @category config
 */
export const configWithKeyChoice: Config.Config<{ readonly options: Options; readonly withheld: string | undefined }> = Config.all({
  baseUrl: Config.string("CONTEXT_COMPRESSOR_OPENAI_BASE_URL").pipe(Config.withDefault(defaultBaseUrl)),
  env: Config.all(Object.fromEntries(keyEnvironment.map((name) => [name, Config.option(Config.redacted(name))]))),
  timeout: Config.duration("CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT").pipe(Config.withDefault(defaultTimeout))
}).pipe(
  Config.map(({ baseUrl, env, timeout }) => {
    const { apiKey, withheld } = apiKeyFor(baseUrl, Object.fromEntries(Object.entries(env).map(([name, value]) => [name, Option.getOrUndefined(value)])))
    return { options: { baseUrl, apiKey, timeout }, withheld }
  })
)

/**
 * The options read from the environment: `CONTEXT_COMPRESSOR_OPENAI_BASE_URL`
 * (default `https://api.openai.com/v1`), the API key by {@link apiKeyFor}
 * (`CONTEXT_COMPRESSOR_OPENAI_API_KEY`, else `OPENAI_API_KEY`, each only to the
 * server it is for), and `CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT` as a duration
 * such as `90 seconds` (default 120 seconds).
 *
 * @since 0.1.0
 * @category config
 */
export const config: Config.Config<Options> = Config.map(configWithKeyChoice, ({ options }) => options)

/**
 * Provides the chat-completions `Summarizer` configured from the environment
 * (see {@link config}); a key withheld from the server is said with
 * `Effect.logWarning` when the layer is built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<Summarizer.Summarizer, ConfigError.ConfigError, HttpClient.HttpClient> =
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const { options, withheld } = yield* configWithKeyChoice
      if (withheld !== undefined) yield* Effect.logWarning(withheld)
      return layer(options)
    })
  )

// --- as an @effect/ai provider -------------------------------------------------

/**
 * Per-call settings of the `languageModel` provider.
 *
 * @since 0.1.0
 * @category models
 */
export interface ProviderOverrides {
  readonly model?: string | undefined
  readonly maxTokens?: number | undefined
}

/**
 * The per-call settings of the `languageModel` provider, set around a call
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
    Effect.flatMap(Effect.serviceOption(ProviderConfig), (current) =>
      Effect.provideService(self, ProviderConfig, { ...Option.getOrElse(current, () => ({})), ...overrides }))
)

/**
 * Runs an effect with the provider's max tokens set: the `withMaxTokens` to
 * give `SummarizerLanguageModel.layerLanguageModel` over this provider.
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
      return Either.left(new AiError.MalformedInput({ module: providerModule, method, description: "tool results are not supported by this provider" }))
    }
    const texts: Array<string> = []
    for (const part of message.content) {
      if (part.type === "text") texts.push(part.text)
      else if (part.type !== "reasoning") {
        return Either.left(new AiError.MalformedInput({ module: providerModule, method, description: `${part.type} parts are not supported by this provider` }))
      }
    }
    messages.push({ role: message.role, content: texts.join("") })
  }
  return Either.right(messages)
}

const toAiError = (AiError: AiErrors, failure: CallFailure, method: string): AiError.AiError => {
  const request = { method: "POST" as const, url: failure.url, urlParams: [], hash: Option.none(), headers: { "content-type": "application/json" } }
  switch (failure._tag) {
    case "Transport":
      return new AiError.HttpRequestError({ module: providerModule, method, reason: "Transport", request, description: failure.description })
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
export const languageModel = (
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
          return yield* new AiError.MalformedInput({ module: providerModule, method, description: "tools are not supported by this provider" })
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
 * @since 0.1.0
 * @category layers
 */
export const layerProvider = (
  options: Options & { readonly model: string }
): Layer.Layer<LanguageModel.LanguageModel, OptionalPackage.MissingPackageError, HttpClient.HttpClient> =>
  Layer.unwrapEffect(Effect.map(loadEffectAi, ({ LanguageModel }) => Layer.effect(LanguageModel.LanguageModel, languageModel(options))))
