/**
 * A summariser for OpenAI-compatible chat-completions servers (OpenAI,
 * llama.cpp, vLLM, Ollama): a small client over the platform's `HttpClient`
 * (@effect/platform's on Effect 3, `effect/http`'s on Effect 4) that posts the request's instruction as the system message and
 * its prompt as the user message, with the summary budget as `max_tokens`, and
 * maps every way the call can go wrong onto a `SummarizerError` the engine's
 * failure policy acts on. It does not retry (the engine retries once) and
 * never writes the API key into an error or a span.
 *
 * The client itself is in `internal/ChatCompletionsClient.ts`; the same client
 * as an @effect/ai `LanguageModel` provider is `ChatCompletionsLanguageModel`
 * of `context-compressor/effect-ai`, which needs `@effect/ai` (its former
 * names here, `languageModel`, `layerProvider` and the rest, were removed:
 * see docs/moved.md).
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Config from "effect/Config"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SummaryKey from "../../core/services/SummaryKey.js"
import * as OpenAiChat from "../adapters/OpenAiChat.js"
import type * as Transcript from "../models/Transcript.js"
import * as Summarizer from "../services/Summarizer.js"
import * as Client from "./internal/ChatCompletionsClient.js"
import { displayUrl } from "./internal/ChatCompletionsClient.js"

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
  readonly timeout?: Compat.DurationInput | undefined
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
  readonly maxRetryAfter?: Compat.DurationInput | undefined
}

/**
 * The largest reply body read by default: 8 MiB, some hundred times a 16,000-token summary.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxReplyBytes: number = Client.defaultMaxReplyBytes

/**
 * The longest `Retry-After` honoured by default.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxRetryAfter: Duration.Duration = Client.defaultMaxRetryAfter

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
export const defaultTimeout: Duration.Duration = Client.defaultTimeout

// --- the wire format -------------------------------------------------------

/**
 * A chat message as the chat-completions endpoint takes it.
 *
 * @since 0.1.0
 * @category models
 */
export type ChatMessage = Client.ChatMessage

/**
 * The first choice of a completion the server answered with.
 *
 * @since 0.1.0
 * @category models
 */
export type Completion = Client.Completion

/**
 * A call that did not give a completion, kept raw enough to become either a
 * `SummarizerError` or an @effect/ai `AiError`.
 *
 * @since 0.1.0
 * @category models
 */
export type CallFailure = Client.CallFailure

/**
 * Posts `body` to `{baseUrl}/chat/completions` and reads the first choice of
 * the answer. Statuses other than 2xx, bodies that are not a chat completion,
 * an unreachable server and a missing answer fail with a `CallFailure`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeClient: typeof Client.makeClient = Client.makeClient

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
export const isContextOverflow: (body: string) => boolean = Client.isContextOverflow

/**
 * The server's own message in an error body: `error.message`, `error` when it
 * is a string, `message` or `detail`, else the body itself, on one line.
 *
 * @since 0.1.0
 * @category utils
 */
export const serverMessage: (body: string) => string = Client.serverMessage

/**
 * How long a rate-limited caller is asked to wait, from `retry-after-ms`
 * (milliseconds) or `retry-after` (seconds, or an HTTP date compared with
 * `nowMs`); `undefined` when neither header says.
 *
 * @since 0.1.0
 * @category utils
 */
export const retryAfterMs: (
  headers: Readonly<Record<string, string | undefined>>,
  nowMs: number
) => number | undefined = Client.retryAfterMs

/**
 * What an HTTP error status means for the summariser: 429 is `"rate-limited"`
 * (with the wait the server asked for), a body saying the prompt is too long
 * is `"context-overflow"`, other 5xx are `"server-error"` and anything else
 * `"unavailable"`.
 *
 * @since 0.1.0
 * @category utils
 */
export const classifyStatus: typeof Client.classifyStatus = Client.classifyStatus

/**
 * A failed call as the summariser's error; the message names the status, the
 * URL and the server's own message.
 *
 * @since 0.1.0
 * @category utils
 */
export const toSummarizerError: (failure: CallFailure, nowMs: number) => Summarizer.SummarizerError =
  Client.toSummarizerError

// --- the summariser ------------------------------------------------------------

/**
 * Who the summariser of these options is, as the summary cache key names it:
 * kind `chat-completions`, the model it asks when `model` is set, the server
 * (`baseUrl` without a user, password, query or fragment; never the API key),
 * and the version of how it frames a request as chat messages.
 *
 * @since 0.1.0
 * @category constructors
 */
export const identityOf = (options: Pick<Options, "baseUrl" | "model">): Summarizer.Identity => ({
  kind: "chat-completions",
  model: options.model,
  endpoint: SummaryKey.endpointOf(options.baseUrl),
  promptVersion: "1"
})

/**
 * Makes the chat-completions summariser: one POST per request, no retry. A
 * reply cut off by the token limit (`finish_reason: "length"`) fails with
 * `"cut-off"`, an empty or blank one with `"empty-reply"`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Summarizer.Service, never, Compat.HttpClient> =>
  Effect.gen(function*() {
    const call = yield* makeClient(options)
    const maxTokensField = options.maxTokensField ?? "max_tokens"
    const url = displayUrl(`${options.baseUrl.replace(/\/+$/, "")}/chat/completions`)
    const maxRetryAfterMs = Duration.toMillis(options.maxRetryAfter ?? defaultMaxRetryAfter)
    // The time before which the server asked (Retry-After) not to be called again.
    let notBefore = 0
    const waitAsked = Effect.flatMap(
      Clock.currentTimeMillis,
      (now) => notBefore > now ? Effect.sleep(Duration.millis(notBefore - now)) : Effect.void
    )
    const summarizeWithUsage = (
      request: Summarizer.SummaryRequest
    ): Effect.Effect<Summarizer.Reply, Summarizer.SummarizerError> => {
      const model = options.model ?? request.model
      const messages: ReadonlyArray<unknown> = request.prefix === undefined
        ? [{ role: "system", content: request.system }, {
          role: "user",
          content: request.prompt
        }] satisfies ReadonlyArray<ChatMessage>
        : [...chatMessagesOf(request.prefix), { role: "user", content: request.prompt }]
      return Effect.andThen(waitAsked, call({ model, messages, [maxTokensField]: request.maxTokens })).pipe(
        Compat.catch((failure) =>
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
                message:
                  `POST ${url} answered a reply cut off by the token limit (finish_reason "length", ${maxTokensField} ${request.maxTokens}, ${
                    completion.usage.completionTokens ?? "?"
                  } tokens written): a summary cut short is refused`
              })
            )
          }
          if (completion.content.trim() === "") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "empty-reply",
                message: `POST ${url} answered an empty reply (finish_reason ${
                  JSON.stringify(completion.finishReason)
                })`
              })
            )
          }
          return Effect.succeed<Summarizer.Reply>({
            text: completion.content,
            usage: {
              inputTokens: completion.usage.promptTokens,
              cachedInputTokens: completion.usage.cachedPromptTokens
            }
          })
        }),
        Effect.withSpan("SummarizerChatCompletions.summarize", {
          attributes: {
            model,
            maxTokens: request.maxTokens,
            shape: request.prefix === undefined ? "delimited" : "shared-prefix"
          }
        })
      )
    }
    return Summarizer.Summarizer.of({
      identity: identityOf(options),
      summarize: (request) => Effect.map(summarizeWithUsage(request), (reply) => reply.text),
      summarizeWithUsage
    })
  })

/**
 * Neutral messages as chat-completions messages, as the OpenAI adapter writes
 * a message anew: tool calls as `tool_calls`, results as `tool` messages, a
 * compacted block as a user message (a shared-prefix request's head).
 *
 * @since 0.1.0
 * @category utils
 */
export const chatMessagesOf = (messages: Transcript.Transcript): ReadonlyArray<unknown> =>
  Compat.matchResult(OpenAiChat.decodeResult([]), {
    onFailure: () => [],
    onSuccess: (empty) => empty.encode(messages) as ReadonlyArray<unknown>
  })

/**
 * Provides the chat-completions `Summarizer` over the `HttpClient` given.
 *
 * @example
 * ```ts
 * import { Production, SummarizerChatCompletions, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Layer, Redacted } from "effect"
 *
 * // The summaries written by a model behind an OpenAI-compatible server, over Node's HTTP client
 * // (any platform HttpClient layer will do, e.g. the fetch one).
 * const summarizer = SummarizerChatCompletions.layer({
 *   baseUrl: "https://api.openai.com/v1",
 *   apiKey: Redacted.make(process.env["OPENAI_API_KEY"] ?? ""),
 *   model: "gpt-5-mini"
 * }).pipe(Layer.provide(Production.nodeHttpClient))
 * const services = Testing.layer()
 * export const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services, summarizer })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Summarizer.Summarizer, never, Compat.HttpClient> =>
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
export const keyEnvironment: ReadonlyArray<string> = keyVariables.flatMap((
  { homeVariable, variable }
) => [variable, homeVariable])

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
    withheld ??=
      `${variable} is for ${originOf(home) ?? home}, not ${
        target ?? baseUrl
      }: the summariser is called without a key ` +
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
export const configWithKeyChoice: Config.Config<{ readonly options: Options; readonly withheld: string | undefined }> =
  Config.all({
    baseUrl: Compat.configString("CONTEXT_COMPRESSOR_OPENAI_BASE_URL").pipe(Config.withDefault(defaultBaseUrl)),
    env: Config.all(
      Object.fromEntries(keyEnvironment.map((name) => [name, Config.option(Compat.configRedacted(name))]))
    ),
    timeout: Compat.configDuration("CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT").pipe(Config.withDefault(defaultTimeout))
  }).pipe(
    Config.map(({ baseUrl, env, timeout }) => {
      const { apiKey, withheld } = apiKeyFor(
        baseUrl,
        Object.fromEntries(Object.entries(env).map(([name, value]) => [name, Option.getOrUndefined(value)]))
      )
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
 * @example
 * ```ts
 * import { Production, SummarizerChatCompletions } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Layer } from "effect"
 *
 * // The server, key and model from CONTEXT_COMPRESSOR_OPENAI_BASE_URL, _API_KEY and _MODEL.
 * const summarizer = SummarizerChatCompletions.layerConfig.pipe(Layer.provide(Production.nodeHttpClient))
 * export const engine = Production.layerEngine({
 *   engine: { policies: builtInPolicies },
 *   services: Production.layerMemory(),
 *   summarizer
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig: Layer.Layer<Summarizer.Summarizer, Compat.ConfigError, Compat.HttpClient> = Layer.effect(
  Summarizer.Summarizer,
  Effect.gen(function*() {
    const { options, withheld } = yield* configWithKeyChoice
    if (withheld !== undefined) yield* Effect.logWarning(withheld)
    return yield* make(options)
  })
)
