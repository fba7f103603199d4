/**
 * The chat-completions HTTP client behind `SummarizerChatCompletions` and
 * `ChatCompletionsLanguageModel`: one POST per call with a timeout and a
 * bounded reply, the wire format, and how an error reads (a context overflow,
 * the server's message, `Retry-After`, the status's meaning). Never writes the
 * API key into an error or a span. `SummarizerChatCompletions` is its face.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import * as Overflow from "../../engine/Overflow.js"
import * as Summarizer from "../../services/Summarizer.js"
import type { Options } from "../SummarizerChatCompletions.js"

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
 * How long a call may take before it fails with reason `"timeout"`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(60)

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
    Schema.NullOr(Schema.Struct({
      prompt_tokens: NullableNumber,
      completion_tokens: NullableNumber,
      total_tokens: NullableNumber,
      prompt_tokens_details: Schema.optional(Schema.NullOr(Schema.Struct({ cached_tokens: NullableNumber })))
    }))
  )
})

const decodeCompletion = Compat.decodeUnknownSchemaResult(ChatCompletion)

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
    /** Of the prompt tokens, those the server's prompt cache served (`usage.prompt_tokens_details.cached_tokens`). */
    readonly cachedPromptTokens?: number | undefined
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
export const displayUrl = (url: string): string => {
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
const issueAt = (error: Compat.SchemaError): string => {
  const first = Compat.firstIssue(error)
  if (first === undefined) return "unexpected shape"
  const where = first.path.length === 0 ? "the body" : first.path.map(String).join(".")
  return first.missing ? `${where} is missing` : `unexpected value at ${where}`
}

const transportDescription = (error: Compat.HttpClientError): string => {
  const { cause, description, kind } = Compat.httpErrorReason(error)
  return (cause === undefined ? undefined : describeCause(cause)) ?? description ?? kind
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
): Effect.Effect<
  (body: Readonly<Record<string, unknown>>) => Effect.Effect<Completion, CallFailure>,
  never,
  Compat.HttpClient
> =>
  Effect.gen(function*() {
    const client = yield* Compat.HttpClient
    const requests = yield* Compat.loadHttpRequests
    const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
    const shownUrl = displayUrl(url)
    const timeout = Compat.durationFromInput(options.timeout ?? defaultTimeout)
    const maxReplyBytes = options.maxReplyBytes ?? defaultMaxReplyBytes
    class ReplyTooLarge {
      constructor(readonly status: number) {}
    }
    // The body read up to the limit: a reply past it is refused before it is all in memory.
    const boundedText = <E>(
      response: {
        readonly status: number
        readonly headers: unknown
        readonly stream: Stream.Stream<Uint8Array, E>
      }
    ) => {
      const declared = Number((response.headers as Record<string, string | undefined>)["content-length"])
      if (Number.isFinite(declared) && declared > maxReplyBytes) return Effect.fail(new ReplyTooLarge(response.status))
      const chunks: Array<Uint8Array> = []
      let bytes = 0
      return Stream.runForEach(response.stream, (chunk) => {
        bytes += chunk.length
        if (bytes > maxReplyBytes) return Effect.fail(new ReplyTooLarge(response.status))
        chunks.push(chunk)
        return Effect.void
      }).pipe(Effect.map(() => new TextDecoder().decode(Buffer.concat(chunks))))
    }
    const accepting = requests.acceptJson(requests.post(url))
    const base = options.apiKey === undefined ? accepting : requests.bearerToken(options.apiKey)(accepting)
    return (body: Readonly<Record<string, unknown>>): Effect.Effect<Completion, CallFailure> =>
      Effect.gen(function*() {
        const response = yield* client.execute(requests.bodyJsonUnsafe(base, body))
        const text = yield* boundedText(response)
        return { status: response.status, headers: response.headers as Readonly<Record<string, string>>, text }
      }).pipe(
        Effect.scoped,
        Effect.mapError((error): CallFailure =>
          error instanceof ReplyTooLarge
            ? { _tag: "TooLarge", url: shownUrl, status: error.status, limitBytes: maxReplyBytes }
            : { _tag: "Transport", url: shownUrl, description: transportDescription(error) }
        ),
        Compat.timeoutOrElse({
          duration: timeout,
          orElse: () => Effect.fail<CallFailure>({ _tag: "Timeout", url: shownUrl, timeout })
        }),
        Effect.flatMap(({ headers, status, text }) => {
          if (status < 200 || status >= 300) {
            return Effect.fail<CallFailure>({ _tag: "Status", url: shownUrl, status, headers, body: text })
          }
          let json: unknown
          try {
            json = JSON.parse(text)
          } catch {
            return Effect.fail<CallFailure>({
              _tag: "Decode",
              url: shownUrl,
              status,
              headers,
              body: text,
              description: "the body is not JSON"
            })
          }
          return Compat.matchResult(decodeCompletion(json), {
            onFailure: (issue): Effect.Effect<Completion, CallFailure> =>
              Effect.fail<CallFailure>({
                _tag: "Decode",
                url: shownUrl,
                status,
                headers,
                body: text,
                description: `the JSON is not a chat completion (${issueAt(issue)})`
              }),
            onSuccess: ({ choices, usage }) =>
              Effect.succeed<Completion>({
                content: choices[0].message.content ?? "",
                finishReason: choices[0].finish_reason ?? null,
                usage: {
                  promptTokens: usage?.prompt_tokens ?? undefined,
                  completionTokens: usage?.completion_tokens ?? undefined,
                  totalTokens: usage?.total_tokens ?? undefined,
                  cachedPromptTokens: usage?.prompt_tokens_details?.cached_tokens ?? undefined
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
  const record = (
    value: unknown
  ): Record<string, unknown> => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {})
  const top = record(json)
  const error = top["error"]
  const found = [record(error)["message"], error, top["message"], top["detail"]].find((value): value is string =>
    typeof value === "string" && value.trim() !== ""
  )
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
export const retryAfterMs = (
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number
): number | undefined => {
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
): {
  readonly reason: Summarizer.SummarizerError["reason"]
  readonly detail: string
  readonly retryAfterMs?: number
} => {
  const detail = serverMessage(body)
  if (status === 429) {
    const wait = retryAfterMs(headers, nowMs)
    return wait === undefined
      ? { reason: "rate-limited", detail }
      : { reason: "rate-limited", detail, retryAfterMs: wait }
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
      return new Summarizer.SummarizerError({
        reason: "unavailable",
        message: `POST ${failure.url} could not be reached: ${failure.description}`
      })
    case "Timeout":
      return new Summarizer.SummarizerError({
        reason: "timeout",
        message: `POST ${failure.url} gave no answer within ${Duration.format(failure.timeout)}`
      })
    case "TooLarge":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message:
          `POST ${failure.url} answered ${failure.status} with a body past the limit of ${failure.limitBytes} bytes: not read further`
      })
    case "Decode":
      return new Summarizer.SummarizerError({
        reason: "malformed-reply",
        message:
          `POST ${failure.url} answered ${failure.status} with a malformed reply: ${failure.description}; body: ${
            serverMessage(failure.body)
          }`
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
