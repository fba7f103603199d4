/**
 * A summariser over an AI SDK language model (`LanguageModelV2` of ai@5, `V3`
 * of ai@6, `V4` of ai@7): the summary request (SPEC R2.4) is sent through
 * `generateText` of the `ai` package the application has installed, its
 * instruction as the system part (`instructions` on ai@7, `system` before)
 * and the delimited transcript as the prompt, with the summary budget as
 * `maxOutputTokens` and no retry of its own (the engine's failure policy
 * retries, asks or trims). A reply the model stopped for length fails with
 * `"cut-off"`, an empty one with `"empty-reply"`; an `APICallError` is read
 * by its status as the chat-completions summariser reads a reply (429
 * `"rate-limited"` with `retry-after`, an overlong prompt
 * `"context-overflow"`, 5xx `"server-error"`), any other failure is
 * `"unavailable"`.
 *
 * The model is the one given, not `request.model`; the summary cache key
 * names it (`identityOf`: the provider and model id), so a summary is only
 * found again for the model that wrote it.
 *
 * `ai` is not a dependency of this package: it is imported when the
 * summariser is made. Where it is not installed (an application that has a
 * provider's model but not `ai`), the model's own `doGenerate` is called with
 * the same request, in the prompt shape every specification version shares.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AiSdkMessages from "../adapters/AiSdkMessages.js"
import * as OptionalPackage from "../models/OptionalPackage.js"
import type * as Transcript from "../models/Transcript.js"
import * as Summarizer from "../services/Summarizer.js"
import * as SummarizerChatCompletions from "./SummarizerChatCompletions.js"

/**
 * An AI SDK language model, as far as the summariser needs to know it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Model {
  readonly specificationVersion: "v2" | "v3" | "v4"
  readonly provider: string
  readonly modelId: string
  readonly doGenerate: (...args: ReadonlyArray<never>) => PromiseLike<unknown>
}

/**
 * The part of `ai`'s `generateText` the summariser uses, in each version.
 *
 * @since 0.1.0
 * @category models
 */
export type GenerateText = (options: {
  readonly model: Model
  readonly system?: string
  readonly instructions?: string
  /** A delimited request's prompt. */
  readonly prompt?: string
  /** A shared-prefix request's messages (the view as sent, then the instruction as a user message), instead of `prompt`. */
  readonly messages?: ReadonlyArray<unknown>
  readonly maxOutputTokens: number
  readonly maxRetries: number
  readonly abortSignal: AbortSignal
}) => PromiseLike<{
  readonly text: string
  readonly finishReason: unknown
  readonly usage?: { readonly outputTokens?: number | undefined } | undefined
}>

/**
 * How the summariser is made.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly model: Model
  /** How long a call may take before it fails with reason `"timeout"` (default 120 seconds). */
  readonly timeout?: Compat.DurationInput | undefined
  /** `generateText` to call (default: the installed `ai`'s). */
  readonly generateText?: GenerateText | undefined
}

const firstLine = (text: string): string => text.split("\n")[0]!.trim()

/**
 * The finish reason of a result, as a string: ai@5 gives one; later versions
 * may give `{ unified, raw }`.
 *
 * @since 0.1.0
 * @category utils
 */
export const finishReasonOf = (finishReason: unknown): string =>
  typeof finishReason === "string"
    ? finishReason
    : typeof finishReason === "object" && finishReason !== null &&
        typeof (finishReason as { unified?: unknown }).unified === "string"
    ? (finishReason as { unified: string }).unified
    : String(finishReason)

/** What was thrown, in words, whatever it is (an object whose `toString` is not a function included). */
const describe = (error: unknown): string => {
  try {
    return error instanceof Error ? firstLine(String(error.message)) : firstLine(String(error))
  } catch {
    return Object.prototype.toString.call(error)
  }
}

/**
 * A failure of `generateText` as the summariser's error: an `APICallError`
 * (any version: it has `statusCode`) by its status, a `RetryError` by its
 * last error, anything else `"unavailable"`.
 *
 * @since 0.1.0
 * @category utils
 */
export const toSummarizerError = (error: unknown, nowMs: number, depth = 0): Summarizer.SummarizerError => {
  const record = typeof error === "object" && error !== null ? error as Record<string, unknown> : {}
  // A chain of last errors is followed a few links deep: a cycle of them ends too.
  if (depth < 8 && record["lastError"] !== undefined && record["lastError"] !== error) {
    return toSummarizerError(record["lastError"], nowMs, depth + 1)
  }
  const message = describe(error)
  const status = record["statusCode"]
  if (typeof status === "number") {
    const headers = typeof record["responseHeaders"] === "object" && record["responseHeaders"] !== null
      ? record["responseHeaders"] as Record<string, string | undefined>
      : {}
    const body = typeof record["responseBody"] === "string" ? record["responseBody"] : message
    const { detail, reason, retryAfterMs } = SummarizerChatCompletions.classifyStatus(status, headers, body, nowMs)
    const url = typeof record["url"] === "string" ? `${record["url"]} ` : ""
    const text = `${url}answered ${status} (${reason}): ${detail}${
      retryAfterMs === undefined ? "" : ` (retry after ${retryAfterMs} ms)`
    }`
    return retryAfterMs === undefined
      ? new Summarizer.SummarizerError({ reason, message: text })
      : new Summarizer.SummarizerError({ reason, message: text, retryAfterMs })
  }
  return new Summarizer.SummarizerError({
    reason: "unavailable",
    message: `the language model could not be asked: ${message}`
  })
}

/**
 * `generateText` without `ai`: the model's `doGenerate`, given the request as
 * a system message and a user message (the prompt of every specification
 * version), the budget and the signal; its content's text parts joined.
 *
 * @since 0.1.0
 * @category constructors
 */
export const generateTextDirect: GenerateText = async (options) => {
  const doGenerate = options.model.doGenerate as unknown as (call: unknown) => PromiseLike<{
    readonly content?: ReadonlyArray<{ readonly type: string; readonly text?: string }>
    readonly finishReason: unknown
    readonly usage?: { readonly outputTokens?: unknown }
  }>
  const result = await doGenerate.call(options.model, {
    prompt: options.messages === undefined
      ? [
        { role: "system", content: options.instructions ?? options.system ?? "" },
        { role: "user", content: [{ type: "text", text: options.prompt ?? "" }] }
      ]
      : [
        ...(options.instructions ?? options.system) === undefined
          ? []
          : [{ role: "system", content: options.instructions ?? options.system }],
        ...options.messages
      ],
    maxOutputTokens: options.maxOutputTokens,
    abortSignal: options.abortSignal
  })
  const outputTokens = result.usage?.outputTokens
  const total = typeof outputTokens === "number"
    ? outputTokens
    : typeof outputTokens === "object" && outputTokens !== null &&
        typeof (outputTokens as { total?: unknown }).total === "number"
    ? (outputTokens as { total: number }).total
    : undefined
  return {
    text: (result.content ?? []).flatMap((
      part
    ) => (part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join(""),
    finishReason: result.finishReason,
    usage: { outputTokens: total }
  }
}

/**
 * Neutral messages as AI SDK messages, as the AI SDK adapter writes a message
 * anew (valid as an `ai` `ModelMessage` and as a `LanguageModelV2Message`): a
 * shared-prefix request's head.
 *
 * @since 0.1.0
 * @category utils
 */
export const modelMessagesOf = (messages: Transcript.Transcript): ReadonlyArray<unknown> =>
  Compat.matchResult(AiSdkMessages.fromMessages([]), {
    onFailure: () => [],
    onSuccess: (empty): ReadonlyArray<unknown> => AiSdkMessages.toMessages(empty, messages)
  })

/** The system messages of a view, joined, as the system part of a call (none when it has none). */
const systemPartOf = (
  view: Transcript.Transcript,
  key: "instructions" | "system"
): { readonly instructions?: string; readonly system?: string } => {
  const system = view.flatMap((message) => (message._tag === "System" ? [message.content] : []))
  return system.length === 0 ? {} : { [key]: system.join("\n\n") }
}

// The installed `ai`'s generateText; the model's own doGenerate where `ai` is not installed.
const loadGenerateText = Effect.map(
  Compat.result(OptionalPackage.load("ai", "an AI SDK model as the summariser", () => import("ai"))),
  (loaded): GenerateText =>
    Compat.matchResult(loaded, {
      onSuccess: (ai) => ai.generateText as unknown as GenerateText,
      onFailure: () => generateTextDirect
    })
)

/** The major version of the installed `ai`, read from its package.json; 0 when unknown. */
const installedMajor = Effect.promise(async () => {
  try {
    const { createRequire } = await import("node:module")
    const require = createRequire(import.meta.url)
    const manifest = require("ai/package.json") as { readonly version?: unknown }
    return typeof manifest.version === "string" ? Number.parseInt(manifest.version, 10) : 0
  } catch {
    return 0
  }
})

/**
 * Who the summariser over `model` is, as the summary cache key names it:
 * kind `ai-sdk`, the model as `provider/modelId`, and the version of how it
 * sends a request to the model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const identityOf = (model: Pick<Model, "provider" | "modelId">): Summarizer.Identity => ({
  kind: "ai-sdk",
  model: `${model.provider}/${model.modelId}`,
  promptVersion: "1"
})

/**
 * Makes the summariser over the model.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Effect.Effect<Summarizer.Service> =>
  Effect.gen(function*() {
    const generateText = options.generateText ?? (yield* loadGenerateText)
    // ai@7 takes the instruction as `instructions` (its `system` is deprecated); ai@5 and 6 as `system`.
    const instructionsKey = options.model.specificationVersion === "v4" || (yield* installedMajor) >= 7
      ? "instructions"
      : "system"
    const timeout = Compat.durationFromInput(options.timeout ?? SummarizerChatCompletions.defaultTimeout)
    const summarize = (request: Summarizer.SummaryRequest): Effect.Effect<string, Summarizer.SummarizerError> =>
      Effect.tryPromise({
        try: (abortSignal) =>
          generateText({
            model: options.model,
            // Shared prefix: the view as sent, then the instruction as a user message; no system part of ours.
            // ai@7 takes no system message among the messages: the view's own go as the system part, as a provider renders them.
            ...(request.prefix === undefined
              ? { [instructionsKey]: request.system, prompt: request.prompt }
              : {
                ...systemPartOf(request.prefix, instructionsKey),
                messages: [...modelMessagesOf(request.prefix.filter((message) => message._tag !== "System")), {
                  role: "user",
                  content: [{ type: "text", text: request.prompt }]
                }]
              }),
            maxOutputTokens: request.maxTokens,
            maxRetries: 0,
            abortSignal
          }),
        catch: (error) => error
      }).pipe(
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
        Effect.flatMap((result) => {
          const finishReason = finishReasonOf(result.finishReason)
          if (finishReason === "length") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "cut-off",
                message: `the language model stopped at its token limit (finish reason "length", ${
                  result.usage?.outputTokens ?? "?"
                } tokens written, budget ${request.maxTokens}): a summary cut short is refused`
              })
            )
          }
          if (finishReason === "error") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "server-error",
                message: "the language model finished with an error"
              })
            )
          }
          if (result.text.trim() === "") {
            return Effect.fail(
              new Summarizer.SummarizerError({
                reason: "empty-reply",
                message: `the language model answered an empty reply (finish reason "${finishReason}")`
              })
            )
          }
          return Effect.succeed(result.text)
        }),
        Effect.withSpan("SummarizerAiSdk.summarize", {
          attributes: { maxTokens: request.maxTokens, model: options.model.modelId }
        })
      )
    return Summarizer.Summarizer.of({ identity: identityOf(options.model), summarize })
  })

/**
 * Provides the `Summarizer` over an AI SDK model.
 *
 * @example
 * ```ts
 * import { SummarizerAiSdk } from "context-compressor/layers"
 * import { Summarizer } from "context-compressor/services"
 * import { MockLanguageModelV2 } from "ai/test"
 * import { Effect } from "effect"
 *
 * // Any AI SDK model writes the summaries (`openai("gpt-5")`, `anthropic(…)`); here the SDK's mock model.
 * const model = new MockLanguageModelV2({
 *   doGenerate: async () => ({
 *     content: [{ type: "text", text: "## Goal\nFix the parser." }],
 *     finishReason: "stop",
 *     usage: { inputTokens: 100, outputTokens: 10, totalTokens: 110 },
 *     warnings: []
 *   })
 * })
 * const request = new Summarizer.SummaryRequest({
 *   model: "gpt-5", system: "Summarise.", prompt: "…", maxTokens: 1_000, agentic: false, namespace: "default", span: []
 * })
 * const summary = Effect.flatMap(Summarizer.Summarizer, (summarizer) => summarizer.summarize(request))
 * const written = await Effect.runPromise(Effect.provide(summary, SummarizerAiSdk.layer({ model })))
 * assert.strictEqual(written, "## Goal\nFix the parser.")
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Summarizer.Summarizer> =>
  Layer.effect(Summarizer.Summarizer, make(options))
