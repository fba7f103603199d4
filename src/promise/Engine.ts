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
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Production from "../../layers/Production.js"
import * as SummarizerAiSdk from "../../layers/SummarizerAiSdk.js"
import * as SummarizerChatCompletions from "../../layers/SummarizerChatCompletions.js"
import { builtInPolicies } from "../../rules/index.js"
import * as Attention from "../../services/Attention.js"
import type * as Settings from "../../services/Settings.js"
import * as EngineCompactor from "../Compactor.js"
import { CompressorError, StartError, StateError } from "./Errors.js"
import type { ChatCompletionsSummarizer, Choice, CreateOptions, OnQuestion } from "./Models.js"
import { aiSdkSummarizerOf, serverOf } from "./Options.js"

/**
 * The question callback of the call running on a fiber, with its session.
 *
 * @since 0.1.0
 * @category attention
 */
export const currentQuestion = FiberRef.unsafeMake<Option.Option<{ readonly sessionId: string; readonly ask: OnQuestion }>>(Option.none())

const choices: ReadonlyArray<Choice> = ["retry", "trim"]

/** Attention as the calls see it: attended while a call brings a callback. */
const attention: Attention.Service = {
  attended: Effect.map(FiberRef.get(currentQuestion), Option.isSome),
  choose: (problem) =>
    Effect.flatMap(FiberRef.get(currentQuestion), (current) =>
      Option.match(current, {
        onNone: () => Effect.succeed<Choice>("trim"),
        onSome: ({ ask, sessionId }) =>
          Effect.tryPromise(async () => await ask({ sessionId, problem, choices })).pipe(
            Effect.map((answer): Choice => (answer === "retry" ? "retry" : "trim")),
            Effect.orElseSucceed((): Choice => "trim")
          )
      }))
}

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
    ? Production.layerPg({ ...common, ...(options.directory === undefined ? {} : { directory: options.directory }), url: Redacted.make(options.databaseUrl) })
    : options.directory !== undefined
    ? Production.layerSqlite({ ...common, directory: options.directory })
    : Production.layerMemory(common)
  const engine = EngineCompactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provide(Layer.succeed(Attention.Attention, attention))
  )
  const server = serverOf(options)
  const model = aiSdkSummarizerOf(options.summarizer)
  const withSummarizer = server !== undefined
    ? engine.pipe(Layer.provide(serverLayer(server)))
    : model !== undefined
    ? engine.pipe(Layer.provide(SummarizerAiSdk.layer({ model: model.model, generateText: model.generateText as SummarizerAiSdk.GenerateText | undefined })))
    : engine
  // The production services stay in the runtime's context: `recall` reads the archive the engine writes.
  return withSummarizer.pipe(Layer.provideMerge(production))
}

/**
 * A layer that could not be built, as a `StartError`.
 *
 * @since 0.1.0
 * @category errors
 */
export const startError = (error: { readonly _tag: string; readonly message?: string; readonly path?: unknown; readonly reason?: unknown }): StartError => {
  const detail = error._tag === "OpenError" ? `cannot open ${String(error.path)}: ${String(error.reason)}` : error.message || error._tag
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
  return new StateError("unexpected", `context-compressor met an unexpected failure: ${defect instanceof Error ? defect.message : String(defect)}`, defect)
}
