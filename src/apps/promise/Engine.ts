/**
 * The engine a compactor of the Promise API runs: the layers its options
 * choose (state in memory, in a folder's SQLite files or in PostgreSQL; the
 * offline summariser, an OpenAI-compatible server or an AI SDK model), the
 * attention of the call running (its `onQuestion`), and the engine's failures
 * as this API's `Error`s.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AttentionFiber from "../../face/layers/AttentionFiber.js"
import * as Production from "../../face/layers/Production.js"
import * as SummarizerAiSdk from "../../face/layers/SummarizerAiSdk.js"
import * as SummarizerChatCompletions from "../../face/layers/SummarizerChatCompletions.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as Attention from "../../face/services/Attention.js"
import type * as Settings from "../../face/services/Settings.js"
import { CompressorError, StartError, StateError } from "./Errors.js"
import type { ChatCompletionsSummarizer, Choice, CreateOptions, OnQuestion } from "./Models.js"
import { aiSdkSummarizerOf, serverOf } from "./Options.js"

const choices: ReadonlyArray<Choice> = ["retry", "trim"]

/**
 * The attention of a call that brings an `onQuestion`: attended, each choice
 * asked of the callback with the call's session (an answer other than
 * "retry", or a callback that fails: trim). The call puts it on its fiber
 * through `AttentionFiber.currentAttention`, which the engine's attention reads.
 *
 * @since 0.1.0
 * @category attention
 */
export const attentionOf = (sessionId: string, ask: OnQuestion): Attention.Service =>
  Attention.Attention.of({
    attended: Effect.succeed(true),
    choose: (problem) =>
      Effect.tryPromise(async () => await ask({ sessionId, problem, choices })).pipe(
        Effect.map((answer): Choice => (answer === "retry" ? "retry" : "trim")),
        Effect.orElseSucceed((): Choice => "trim")
      )
  })

const serverLayer = (summarizer: ChatCompletionsSummarizer) =>
  SummarizerChatCompletions.layer({
    baseUrl: summarizer.baseUrl,
    apiKey: summarizer.apiKey === undefined ? undefined : Redacted.make(summarizer.apiKey),
    model: summarizer.model,
    timeout: summarizer.timeoutMs === undefined ? undefined : `${summarizer.timeoutMs} millis`,
    maxTokensField: summarizer.maxTokensField
  }).pipe(Layer.provide(Production.nodeHttpClient))

/**
 * The engine over the layers `options` choose, with `values` (the checked
 * `settings`) over the file and the environment.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: CreateOptions, values: Settings.Values) => {
  const common = {
    ...(options.summarizer === "chat-completions" ? { summarizer: "chat-completions" as const } : {}),
    ...(options.env === undefined ? {} : { env: () => ({ ...options.env }) }),
    values
  }
  const production: Layer.Layer<Production.Services, Production.StartFailure> = options.databaseUrl !== undefined
    ? Production.layerPg({
      ...common,
      ...(options.directory === undefined ? {} : { directory: options.directory }),
      url: Redacted.make(options.databaseUrl)
    })
    : options.directory !== undefined
    ? Production.layerSqlite({ ...common, directory: options.directory })
    : Production.layerMemory(common)
  const server = serverOf(options)
  const model = aiSdkSummarizerOf(options.summarizer)
  return Production.layerEngine({
    engine: { policies: builtInPolicies },
    services: production,
    summarizer: server !== undefined
      ? serverLayer(server)
      : model !== undefined
      ? SummarizerAiSdk.layer({
        model: model.model,
        generateText: model.generateText as SummarizerAiSdk.GenerateText | undefined
      })
      : undefined,
    attention: AttentionFiber.layer
  })
}

/**
 * A layer that could not be built, as a `StartError`.
 *
 * @since 0.1.0
 * @category errors
 */
export const startError = (
  error: { readonly _tag: string; readonly message?: string; readonly path?: unknown; readonly reason?: unknown }
): StartError => {
  const detail = error._tag === "OpenError"
    ? `cannot open ${String(error.path)}: ${String(error.reason)}`
    : error.message || error._tag
  const message = `context-compressor could not start: ${detail}`
  switch (error._tag) {
    case "OpenError":
    case "ConnectError":
    case "SqlError":
    case "MissingPackageError":
      return new StartError("database", message, error)
    case "SettingsError":
      return new StartError("settings", message, error)
    case "MigrationError":
      return new StartError("migration", message, error)
    default:
      return new StartError("config", message, error)
  }
}

/**
 * A failure of the runtime as the `Error` of this API.
 *
 * @since 0.1.0
 * @category errors
 */
export const rejection = (cause: Cause.Cause<unknown>): CompressorError => {
  if (Cause.isInterruptedOnly(cause)) return new StateError("aborted", "the call was abandoned")
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof CompressorError) return failure.value
  const defect = Cause.squash(cause)
  return new StateError(
    "unexpected",
    `context-compressor met an unexpected failure: ${defect instanceof Error ? defect.message : String(defect)}`,
    defect
  )
}
