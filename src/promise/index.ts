/**
 * context-compressor for code that has never seen Effect: `createCompactor`
 * starts the engine once (one `ManagedRuntime` over the production layers:
 * SQLite in a folder and the offline summariser by default, an
 * OpenAI-compatible summariser or a PostgreSQL database on request), and its
 * methods return promises. `compact` takes a history in any supported format
 * and gives it back in the same one; failures reject with the `Error`
 * subclasses below, whose `reason` says what to do. No Effect type appears in
 * this module's signatures.
 *
 * From CommonJS, `require("context-compressor/promise")` gives the same
 * functions through a small wrapper that loads this module with `import()`
 * (Node 20 cannot `require` an ES module).
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Production from "../../layers/Production.js"
import * as SummarizerChatCompletions from "../../layers/SummarizerChatCompletions.js"
import { builtInPolicies } from "../../rules/index.js"
import * as Attention from "../../services/Attention.js"
import type * as Adapter from "../adapters/Adapter.js"
import * as Installed from "../adapters/Installed.js"
import * as Formats from "../adapters/Formats.js"
import * as Engine from "../Compactor.js"
import * as Cooperative from "../internal/Cooperative.js"
import * as Reduce from "../Reduce.js"
import * as Session from "../Session.js"
import { CompressorError, TranscriptError, OptionError, CompactionError, StartError, StateError } from "./Errors.js"

// =============================================================================
// Models
// =============================================================================

/**
 * The history formats `compact` reads and writes: OpenAI chat completions,
 * Anthropic messages, an @effect/ai `Prompt`, AI SDK `ModelMessage`s.
 *
 * @since 0.1.0
 * @category models
 */
export type Format = "openai" | "anthropic" | "effect-ai" | "ai-sdk"

/**
 * An OpenAI-compatible chat-completions server to summarise with.
 *
 * @since 0.1.0
 * @category models
 */
export interface ChatCompletionsSummarizer {
  /** The API root, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer …` when set. */
  readonly apiKey?: string | undefined
  /** The model to ask (default: the settings' pin, else the session's model). */
  readonly model?: string | undefined
  /** How long one summary may take, in milliseconds (default 120,000). */
  readonly timeoutMs?: number | undefined
  /** `max_tokens` (default) or `max_completion_tokens` (OpenAI's reasoning models). */
  readonly maxTokensField?: "max_tokens" | "max_completion_tokens" | undefined
}

/**
 * What an attended session is asked when the summariser has failed twice
 * (SPEC R2.7): retry, or trim the oldest turns.
 *
 * @since 0.1.0
 * @category models
 */
export interface Question {
  readonly sessionId: string
  /** What failed, in one sentence. */
  readonly problem: string
  readonly choices: ReadonlyArray<Choice>
}

/**
 * The answer to a {@link Question}.
 *
 * @since 0.1.0
 * @category models
 */
export type Choice = "retry" | "trim"

/**
 * Answers a {@link Question}. A callback that throws, rejects or answers
 * anything but `"retry"` or `"trim"` counts as `"trim"`.
 *
 * @since 0.1.0
 * @category models
 */
export type OnQuestion = (question: Question) => Choice | PromiseLike<Choice>

/**
 * Options of {@link createCompactor}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateOptions {
  /** The folder of the databases, `config.toml` and the archive (default `.context-compressor`). */
  readonly directory?: string | undefined
  /**
   * `"offline"` (default): the extractive summariser, no model. `"chat-completions"`:
   * an OpenAI-compatible server configured from the environment. Or the server itself.
   */
  readonly summarizer?: "offline" | "chat-completions" | ChatCompletionsSummarizer | undefined
  /**
   * A PostgreSQL URL: the summary cache, the compaction states and the settings
   * overrides go to that database (shared by a fleet of workers) instead of SQLite files.
   */
  readonly databaseUrl?: string | undefined
  /** The environment settings are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** The model of a `compact` call that names none (default `"offline"`). */
  readonly model?: string | undefined
  /** Asked, for every `compact` call that brings no `onQuestion` of its own; without one, sessions are unattended. */
  readonly onQuestion?: OnQuestion | undefined
}

/**
 * Options of {@link Compactor.compact}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactOptions {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** The session the history belongs to (default: a digest of the messages up to the first user message; name sessions that open alike). */
  readonly sessionId?: string | undefined
  /** The session's model: the summariser's unless the settings pin another. */
  readonly model?: string | undefined
  /** The history's format (default `"auto"`: detected). */
  readonly format?: Format | "auto" | undefined
  /** The context tokens the provider reported for the last call, if it did: used instead of counting. */
  readonly reportedContextTokens?: number | undefined
  /** Asks the attended user to retry or trim; without it (and without a default), the session is unattended. */
  readonly onQuestion?: OnQuestion | undefined
  /** Abandons the call: it rejects with reason `"aborted"`, and nothing of it is saved. */
  readonly signal?: AbortSignal | undefined
  /**
   * Compact now, whatever the count, with this focus for the summary (as
   * `/compact <focus>` in an agent): the newest user message and what follows
   * stay verbatim, the rest is compacted, the instructions part of the request.
   */
  readonly instructions?: string | undefined
}

/**
 * What a compaction did (the engine's `Compacted` event, as plain data).
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionReport {
  readonly sessionId: string
  /** What entered compaction: the trigger, a context overflow of the main model, or a manual compaction (`instructions`). */
  readonly cause: "trigger" | "overflow" | "manual"
  /** The instructions of a manual compaction. */
  readonly instructions?: string
  /** The session's compactions so far, this one included. */
  readonly compactions: number
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly trigger: number
  /** The first message kept verbatim. */
  readonly boundary: { readonly index: number; readonly id: string }
  readonly replaced: { readonly firstId: string; readonly lastId: string; readonly count: number }
  readonly cacheHit: boolean
  readonly summarizerCalls: number
  /** The gate's verdicts, in order: "passed" or the refusal's reason. */
  readonly gate: ReadonlyArray<string>
  readonly fallback: "none" | "trim"
  readonly summaryChars: number
  readonly missingFromSummary: ReadonlyArray<string>
  readonly userMessagesOmitted: number
  readonly rules: { readonly [action: string]: number }
  /** Where the messages this compaction moved out were archived verbatim. */
  readonly archivePath?: string
  /** The tokens reserved for the reply: the setting, scaled down in a small window. */
  readonly replyReserve?: number
  /** The rungs of the degradation ladder the view took after the compaction, in order. */
  readonly ladder: ReadonlyArray<LadderStep>
  /** Tool results repaired in the view. */
  readonly repairs: ReadonlyArray<Repair>
}

/**
 * One rung of the degradation ladder a view took (the engine's `LadderStep`,
 * as plain data): the reply reserve scaled to a small window, tool results
 * reduced through the retention policies, messages clipped head and tail with
 * a marker, the compacted block clipped; the messages changed, and the view's
 * tokens before and after (for `reply-reserve`: the reserve's).
 *
 * @since 0.1.0
 * @category models
 */
export interface LadderStep {
  readonly step: "reply-reserve" | "reduce-tool-results" | "clip-messages" | "clip-block"
  readonly messageIds: ReadonlyArray<string>
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly detail: string
}

/**
 * A tool result repaired in the view, never in the history (the engine's
 * `Repair`, as plain data): a lost result answered by a synthetic one, a late
 * one moved next to its call, a second one for one call id left out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Repair {
  readonly kind: "lost-result" | "late-result" | "duplicate-result"
  readonly toolCallId: string
  /** The assistant message of a lost or late result's call; the duplicate result. */
  readonly messageId: string
  readonly detail: string
}

/**
 * The outcome of {@link Compactor.compact}: the history to send, in the format
 * and shape it came in (a JSON or JSON Lines text for a text), and what was done.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactResult<History> {
  readonly messages: History
  readonly format: Format
  readonly sessionId: string
  /** The view's tokens, as counted (or as reported, when nothing was compacted). */
  readonly tokens: number
  /** Where compaction starts, in tokens. */
  readonly trigger: number
  /** The compaction this call made, if it made one. */
  readonly report: CompactionReport | undefined
  /** The rungs of the degradation ladder the view took, compacted or not (none when it fit as it was). */
  readonly ladder: ReadonlyArray<LadderStep>
  /** Tool results repaired in the view, compacted or not. */
  readonly repairs: ReadonlyArray<Repair>
}

/**
 * Options of {@link Compactor.reduce}.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReduceOptions {
  /** The cap in characters (default 32,000, at least 1,000). */
  readonly cap?: number | undefined
}

/**
 * What the retention rules did to a tool result.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReductionReport {
  readonly route: "envelope" | "overflow" | "generic"
  readonly policy: string | null
  readonly cap: number
  readonly inputChars: number
  readonly outputChars: number
  readonly carriedChars: number
  /** Each rule that decided something: what, where, and why. */
  readonly rules: ReadonlyArray<{
    readonly rule: string
    readonly reason: string
    readonly counts: { readonly [action: string]: number }
    readonly entries: ReadonlyArray<{
      readonly action: string
      readonly path: string
      readonly before?: number | undefined
      readonly after?: number | undefined
      readonly detail?: string | undefined
    }>
    readonly entriesOmitted: number
  }>
  readonly notes: ReadonlyArray<string>
}

/**
 * A reduced tool result: the text to send on, its JSON value (absent for text
 * outputs), and the report.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reduction {
  readonly text: string
  readonly value: unknown
  readonly report: ReductionReport
}

/**
 * The engine, started.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compactor {
  /**
   * The view of a history to send: compacted first when it nears the trigger.
   * The history is never modified; the compaction state is kept per session.
   */
  readonly compact: <History>(history: History, options: CompactOptions) => Promise<CompactResult<History>>
  /**
   * The main model refused the history as too long: compact whatever the count
   * says; rejects with reason `"no-progress"` instead of looping when that does not shrink it.
   */
  readonly contextOverflow: <History>(history: History, options: CompactOptions) => Promise<CompactResult<History>>
  /** A tool result reduced by the built-in retention rules (never rejects). */
  readonly reduce: (toolResult: unknown, options?: ReduceOptions) => Promise<Reduction>
  /** Every compaction from now on, until the iterator is returned from or the compactor closed. */
  readonly events: () => AsyncIterableIterator<CompactionReport>
  /** Calls `listener` on every compaction; returns the function that stops it. */
  readonly onCompacted: (listener: (report: CompactionReport) => void) => () => void
  /** Closes the databases and ends the event iterators; later calls reject with reason `"closed"`. */
  readonly close: () => Promise<void>
}

/**
 * The `Error` subclasses every rejection of this module is one of
 * (`CompressorError` and its kinds), from `./Errors.js`.
 *
 * @since 0.1.0
 */
export * from "./Errors.js"

// =============================================================================
// The engine
// =============================================================================

/** The question callback of the call running on a fiber, with its session. */
const currentQuestion = FiberRef.unsafeMake<Option.Option<{ readonly sessionId: string; readonly ask: OnQuestion }>>(Option.none())

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

const summarizerLayer = (summarizer: ChatCompletionsSummarizer) =>
  SummarizerChatCompletions.layer({
    baseUrl: summarizer.baseUrl,
    apiKey: summarizer.apiKey === undefined ? undefined : Redacted.make(summarizer.apiKey),
    model: summarizer.model,
    timeout: summarizer.timeoutMs === undefined ? undefined : `${summarizer.timeoutMs} millis`,
    maxTokensField: summarizer.maxTokensField
  }).pipe(Layer.provide(NodeHttpClient.layer))

type ProductionServices = Layer.Layer.Success<ReturnType<typeof Production.layerSqlite>>
type ProductionError = Layer.Layer.Error<ReturnType<typeof Production.layerSqlite>> | Layer.Layer.Error<ReturnType<typeof Production.layerPg>>

const engineLayer = (options: CreateOptions) => {
  const common = {
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    ...(options.summarizer === "chat-completions" ? { summarizer: "chat-completions" as const } : {}),
    ...(options.env === undefined ? {} : { env: () => ({ ...options.env }) })
  }
  const production: Layer.Layer<ProductionServices, ProductionError> = options.databaseUrl === undefined
    ? Production.layerSqlite(common)
    : Production.layerPg({ ...common, url: Redacted.make(options.databaseUrl) })
  const engine = Engine.layer({ policies: builtInPolicies }).pipe(
    Layer.provide(Layer.succeed(Attention.Attention, attention))
  )
  const withSummarizer = typeof options.summarizer === "object"
    ? engine.pipe(Layer.provide(summarizerLayer(options.summarizer)))
    : engine
  return withSummarizer.pipe(Layer.provide(production))
}

const startError = (error: { readonly _tag: string; readonly message?: string }): StartError => {
  const message = `context-compressor could not start: ${error.message ?? error._tag}`
  switch (error._tag) {
    case "OpenError":
    case "ConnectError":
    case "SqlError":
      return new StartError("database", message, error)
    case "SettingsError":
      return new StartError("settings", message, error)
    case "MigrationError":
      return new StartError("migration", message, error)
    default:
      return new StartError("config", message, error)
  }
}

/** A failure of the runtime as the `Error` of this module. */
const rejection = (cause: Cause.Cause<unknown>): CompressorError => {
  if (Cause.isInterruptedOnly(cause)) return new StateError("aborted", "the call was abandoned")
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof CompressorError) return failure.value
  const defect = Cause.squash(cause)
  return new StateError("unexpected", `context-compressor met an unexpected failure: ${defect instanceof Error ? defect.message : String(defect)}`, defect)
}

/**
 * The session a transcript stands for when the call names none: a digest of
 * its messages up to the first user message, which a growing history keeps
 * from its first call on. Two sessions that open alike share it: name them.
 */
const formats: ReadonlyArray<string> = ["auto", "openai", "anthropic", "effect-ai", "ai-sdk"]

const encodeCompacted = Schema.encodeSync(Engine.Compacted)
const encodeLadderStep = Schema.encodeSync(Engine.LadderStep)
const encodeRepair = Schema.encodeSync(Engine.Repair)
const ladderOf = (ladder: ReadonlyArray<Engine.LadderStep>): ReadonlyArray<LadderStep> => ladder.map((step) => encodeLadderStep(step))
const repairsOf = (repairs: ReadonlyArray<Engine.Repair>): ReadonlyArray<Repair> => repairs.map((repair) => encodeRepair(repair))
const reportOf = (compacted: Engine.Compacted): CompactionReport => ({
  ...encodeCompacted(compacted),
  ladder: ladderOf(compacted.ladder),
  repairs: repairsOf(compacted.repairs)
})

/** A small queue an async iterator reads, fed by a listener. */
const iteratorOver = (subscribe: (push: (report: CompactionReport) => void, end: () => void) => () => void): AsyncIterableIterator<CompactionReport> => {
  const buffered: Array<CompactionReport> = []
  const waiting: Array<(result: IteratorResult<CompactionReport>) => void> = []
  let done = false
  const finish = () => {
    if (done) return
    done = true
    unsubscribe()
    for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined })
  }
  const unsubscribe = subscribe((report) => {
    const resolve = waiting.shift()
    if (resolve !== undefined) resolve({ done: false, value: report })
    else buffered.push(report)
  }, finish)
  const iterator: AsyncIterableIterator<CompactionReport> = {
    next: () => {
      const report = buffered.shift()
      if (report !== undefined) return Promise.resolve({ done: false, value: report })
      if (done) return Promise.resolve({ done: true, value: undefined })
      return new Promise((resolve) => waiting.push(resolve))
    },
    return: () => {
      finish()
      buffered.length = 0
      return Promise.resolve({ done: true, value: undefined })
    },
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}

/**
 * Starts the engine: one runtime over the production layers (see
 * {@link CreateOptions}), built before the promise resolves, so that a folder
 * that cannot be opened or an invalid setting rejects here with a
 * {@link StartError}. Call `close()` when done.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createCompactor = async (options: CreateOptions = {}): Promise<Compactor> => {
  const listeners = new Set<(report: CompactionReport) => void>()
  const endings = new Set<() => void>()
  const dispatch = (report: CompactionReport) => {
    for (const listener of listeners) {
      try {
        listener(report)
      } catch (error) {
        process.stderr.write(`context-compressor: a compaction listener threw: ${error instanceof Error ? error.message : String(error)}\n`)
      }
    }
  }
  // The engine's events are forwarded to the listeners by one fiber, subscribed before the first call.
  const forwarding = Layer.scopedDiscard(
    Effect.gen(function*() {
      const engine = yield* Engine.Compactor
      const queue = yield* engine.subscribe
      yield* Effect.forkScoped(Effect.forever(Effect.map(Queue.take(queue), (event) => dispatch(reportOf(event)))))
    })
  )
  // The engine's warnings (an unusable cache, say) go to stderr: stdout is the program's.
  const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
  const runtime = ManagedRuntime.make(Layer.provideMerge(forwarding, engineLayer(options)).pipe(Layer.provide(stderrLogger)))
  const started = await runtime.runtimeEffect.pipe(Effect.either, Effect.runPromiseExit)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw rejection(started.cause)
  }
  if (Either.isLeft(started.value)) {
    await runtime.dispose()
    throw startError(started.value.left)
  }
  let closed = false
  const defaultModel = options.model ?? "offline"

  const run = <A>(effect: Effect.Effect<A, CompressorError, Engine.Compactor>, signal: AbortSignal | undefined): Promise<A> => {
    if (closed) return Promise.reject(new StateError("closed", "the compactor is closed"))
    if (signal?.aborted === true) return Promise.reject(new StateError("aborted", "the call was abandoned before it started"))
    return runtime.runPromiseExit(effect, signal === undefined ? undefined : { signal }).then((exit) =>
      Exit.isSuccess(exit) ? exit.value : Promise.reject(rejection(exit.cause))
    )
  }

  const checkpoint = <History>(history: History, call: CompactOptions, cause: "trigger" | "overflow") =>
    Effect.gen(function*() {
      if (typeof call !== "object" || call === null) return yield* Effect.fail(new OptionError("options", "expected an object with a contextWindow"))
      if (typeof call.contextWindow !== "number" || !Number.isFinite(call.contextWindow) || call.contextWindow <= 0) {
        return yield* Effect.fail(new OptionError("contextWindow", `expected a positive number of tokens, not ${String(call.contextWindow)}`))
      }
      if (call.reportedContextTokens !== undefined && (typeof call.reportedContextTokens !== "number" || !(call.reportedContextTokens >= 0))) {
        return yield* Effect.fail(new OptionError("reportedContextTokens", `expected a number of tokens, not ${String(call.reportedContextTokens)}`))
      }
      const format = call.format ?? "auto"
      if (!formats.includes(format)) return yield* Effect.fail(new OptionError("format", `expected one of ${formats.join(", ")}, not ${String(format)}`))
      // Decoded in slices, as the engine works, so that a long history does not hold up the caller's event loop.
      const decoded = yield* Cooperative.run(
        Formats.decodeTranscriptSteps(yield* Installed.adapters, history, format as Adapter.Format | "auto"),
        Cooperative.slice(Engine.defaultSliceMs)
      )
      if (Either.isLeft(decoded)) return yield* Effect.fail(new TranscriptError(decoded.left.format, decoded.left.index, decoded.left.reason))
      const { decoded: { encode, format: found, transcript }, document } = decoded.right
      const sessionId = call.sessionId ?? Session.idOf(transcript)
      const engine = yield* Engine.Compactor
      const input: Engine.CheckpointInput = {
        sessionId,
        transcript,
        model: call.model ?? defaultModel,
        contextWindow: call.contextWindow,
        ...(call.reportedContextTokens === undefined ? {} : { reportedContextTokens: call.reportedContextTokens })
      }
      if (call.instructions !== undefined && typeof call.instructions !== "string") {
        return yield* Effect.fail(new OptionError("instructions", `expected text, not ${typeof call.instructions}`))
      }
      const ask = call.onQuestion ?? options.onQuestion
      const run = cause === "overflow"
        ? engine.contextOverflow(input)
        : call.instructions !== undefined
        ? engine.compactNow({ ...input, instructions: call.instructions })
        : engine.checkpoint(input)
      const result = yield* run.pipe(
        Effect.locally(currentQuestion, ask === undefined ? Option.none() : Option.some({ sessionId, ask })),
        Effect.mapError((error) => new CompactionError(error.reason, error.sessionId, error.message, error.violations ?? []))
      )
      const encoded = encode(result.view)
      const messages = (typeof history === "string" ? Formats.renderText({ container: document.container, value: encoded }) : encoded) as History
      return {
        messages,
        format: found,
        sessionId,
        tokens: result.tokens,
        trigger: result.trigger,
        report: Option.getOrUndefined(Option.map(result.compacted, reportOf)),
        ladder: ladderOf(result.ladder),
        repairs: repairsOf(result.repairs)
      } satisfies CompactResult<History>
    })

  const subscribe = (push: (report: CompactionReport) => void, end: () => void) => {
    listeners.add(push)
    endings.add(end)
    return () => {
      listeners.delete(push)
      endings.delete(end)
    }
  }

  return {
    compact: (history, call) => run(checkpoint(history, call, "trigger"), call?.signal),
    contextOverflow: (history, call) => run(checkpoint(history, call, "overflow"), call?.signal),
    reduce: (toolResult, reduceOptions = {}) => {
      const reduction = Reduce.reduce(toolResult, {
        policies: builtInPolicies,
        ...(typeof reduceOptions.cap === "number" ? { cap: reduceOptions.cap } : {})
      })
      return Promise.resolve({ text: reduction.text, value: reduction.value, report: reduction.report })
    },
    events: () => iteratorOver(subscribe),
    onCompacted: (listener) => {
      const wrapped = (report: CompactionReport) => listener(report)
      listeners.add(wrapped)
      return () => {
        listeners.delete(wrapped)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      for (const end of Array.from(endings)) end()
      listeners.clear()
      await runtime.dispose()
    }
  }
}
