/**
 * context-compressor in the Vercel AI SDK (ai@5, ai@6 and ai@7):
 * `compactionMiddleware` for `wrapLanguageModel`, whose `transformParams`
 * compacts `params.prompt` (a `LanguageModelV2Prompt`, `V3Prompt` or
 * `V4Prompt`) before every call of the wrapped model, other call options
 * untouched; and `compactionPrepareStep` for the `prepareStep` option of
 * `generateText` and `streamText`, which compacts the messages of each step
 * (with ai@7's `instructions` counted as the system part, and left as they
 * are). The history the agent keeps is never modified. `recallTool` is the
 * `context_recall` tool, reading compacted content back by handle.
 *
 * Like the AI SDK's own middlewares they are made from options alone:
 * `compactionMiddleware({ contextWindow: 128_000 })` makes and owns its
 * compactor (`context-compressor/promise`) on first use, in memory unless a
 * `directory` is given, with the offline summariser unless a `summarizer`
 * (an AI SDK model, say) is given; `close()` closes it. A `compactor` can be
 * passed instead, and is then the caller's to close. The options are checked
 * when the helper is made: a wrong or unknown one (a misspelt key, in the
 * summariser's or the settings' object too) throws an `OptionError` at once.
 *
 * Nothing of the AI SDK is imported, at run time or in the declarations: the
 * shapes it needs are described here, and fit every version.
 *
 * @since 0.1.0
 */
import {
  description as RecallDescription,
  parameters as RecallParameters,
  toolName as RecallToolName
} from "../../face/engine/Recall.js"
import { createCompactor, fallbackOf, warningOf } from "../promise/Compactor.js"
import { OptionError, RecallError } from "../promise/Errors.js"
import type {
  AiSdkModel,
  Compactor,
  CompactResult,
  CreateOptions,
  OnFallback,
  OnQuestion,
  Settings
} from "../promise/Models.js"
import { checkCreateOptions, checkKnownKeys, checkSummarizer, isAiSdkModel } from "../promise/Options.js"

/**
 * The provider options key a call may name its session under:
 * `providerOptions: { "context-compressor": { sessionId: "run-42" } }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const providerOptionsKey = "context-compressor"

/**
 * What both helpers take.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /**
   * A compactor to use (`createCompactor` of `context-compressor/promise`),
   * closing it the caller's. Without it, the helper makes its own on first
   * use, from `directory`, `databaseUrl`, `summarizer`, `settings` and `env`.
   */
  readonly compactor?: Compactor | undefined
  /** The folder of the helper's own compactor (default: none, state in memory). */
  readonly directory?: string | undefined
  /** A PostgreSQL URL for the helper's own compactor. */
  readonly databaseUrl?: string | undefined
  /** The summariser of the helper's own compactor: a name, an OpenAI-compatible server, or an AI SDK model. */
  readonly summarizer?: CreateOptions["summarizer"]
  /** An AI SDK model to write the summaries with (the same as `summarizer: model`). */
  readonly summarizerModel?: AiSdkModel | undefined
  /** The compaction settings of the helper's own compactor. */
  readonly settings?: Settings | undefined
  /** The environment the helper's own compactor reads settings from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** The session's model name (default: the model's `modelId`). */
  readonly model?: string | undefined
  /** Asks the attended user to retry or trim when the summariser has failed twice. */
  readonly onQuestion?: OnQuestion | undefined
  /**
   * Called on every compaction of the helper's calls that fell back to a
   * trim instead of a summary (also a warning on stderr and, through the
   * middleware, in the call's `warnings`).
   */
  readonly onFallback?: OnFallback | undefined
}

/**
 * The call options of a language model, in every specification version, as
 * far as the middleware reads them.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  readonly prompt: ReadonlyArray<unknown>
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>> | undefined>> | undefined
}

/**
 * Options of {@link compactionMiddleware}.
 *
 * @since 0.1.0
 * @category models
 */
export interface MiddlewareOptions extends Options {
  /**
   * The session of a call: a fixed id, or one read from the call's options.
   * Without it, a call's `providerOptions["context-compressor"].sessionId` is
   * used, else an id derived from the prompt's opening messages.
   */
  readonly sessionId?: string | ((params: CallOptions) => string | undefined) | undefined
}

/**
 * Options of {@link compactionPrepareStep}.
 *
 * @since 0.1.0
 * @category models
 */
export interface PrepareStepOptions extends Options {
  /** The session (default: derived from the opening messages). */
  readonly sessionId?: string | undefined
}

/**
 * The middleware: a `LanguageModelV2Middleware` (ai@5), `V3Middleware` (ai@6)
 * and `V4Middleware` (ai@7) at once. Its `transformParams` gives back the
 * call options of the version it is given.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionMiddleware {
  readonly middlewareVersion: "v2"
  /**
   * `"v4"` at run time. Typed `never`, the one literal type that fits both
   * the `"v3"` of ai@6's slot and the `"v4"` of ai@7's; the AI SDK does not
   * read it.
   */
  readonly specificationVersion: never
  readonly transformParams: <Params extends CallOptions>(options: {
    readonly type: "generate" | "stream"
    readonly params: Params
    readonly model: { readonly modelId: string }
  }) => PromiseLike<Params>
  /**
   * The model's answer with a warning (`{ type: "other", message }`) for each
   * compaction of the call that fell back to a trim, after the model's own:
   * `generateText`'s `warnings`.
   */
  readonly wrapGenerate: <Result extends { readonly warnings?: ReadonlyArray<unknown> }>(options: {
    readonly doGenerate: () => PromiseLike<Result>
    readonly params: CallOptions
  }) => Promise<Result>
  /** The same for a stream: the warnings in its `stream-start` part (one is sent first when the model sends none). */
  readonly wrapStream: <Result extends { readonly stream: ReadableStream<any> }>(options: {
    readonly doStream: () => PromiseLike<Result>
    readonly params: CallOptions
  }) => Promise<Result>
  /** Closes the compactor the middleware made (not one it was given). */
  readonly close: () => Promise<void>
}

/**
 * A step of `generateText`/`streamText`, as `prepareStep` is given it: the
 * messages, the model and, on ai@7, the instructions.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step<Messages extends ReadonlyArray<unknown>> {
  readonly messages: Messages
  readonly model?: unknown
  readonly instructions?: unknown
  readonly system?: unknown
}

/**
 * The `prepareStep` function, with `close()` for the compactor it made.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionPrepareStep {
  <Messages extends ReadonlyArray<unknown>>(step: Step<Messages>): Promise<{ messages: Messages }>
  /** Closes the compactor the helper made (not one it was given). */
  readonly close: () => Promise<void>
}

const sessionOfCall = (params: CallOptions): string | undefined => {
  const own = params.providerOptions?.[providerOptionsKey]?.["sessionId"]
  return typeof own === "string" ? own : undefined
}

const modelName = (model: unknown): string | undefined =>
  typeof model === "string"
    ? model
    : typeof model === "object" && model !== null && typeof (model as { modelId?: unknown }).modelId === "string"
    ? (model as { modelId: string }).modelId
    : undefined

const ownOptions = ["directory", "databaseUrl", "summarizer", "summarizerModel", "settings", "env"] as const

// A record, so that the compiler says when an option is added to the models and not here.
const helperOptionNames = Object.keys(
  {
    contextWindow: true,
    compactor: true,
    directory: true,
    databaseUrl: true,
    summarizer: true,
    summarizerModel: true,
    settings: true,
    env: true,
    model: true,
    onQuestion: true,
    onFallback: true,
    sessionId: true
  } satisfies Record<keyof MiddlewareOptions | keyof PrepareStepOptions, true>
)

/**
 * Checks a helper's options and gives the function that returns its
 * compactor (the one given, or its own, made on the first call) and the one
 * that closes its own.
 */
const compactorOf = (options: Options, sessionIdOk: (value: unknown) => boolean) => {
  if (typeof options !== "object" || options === null) {
    throw new OptionError(
      "options",
      `expected an object with a contextWindow, not ${options === null ? "null" : typeof options}`
    )
  }
  checkKnownKeys(options as unknown as Record<string, unknown>, helperOptionNames)
  const window = options.contextWindow
  if (typeof window !== "number" || !Number.isFinite(window) || window <= 0) {
    throw new OptionError(
      "contextWindow",
      `expected a positive number of tokens, not ${
        window === undefined ? "undefined (it is required)" : JSON.stringify(window) ?? String(window)
      }`
    )
  }
  if (options.model !== undefined && (typeof options.model !== "string" || options.model.trim() === "")) {
    throw new OptionError("model", "expected a model name")
  }
  if (options.onQuestion !== undefined && typeof options.onQuestion !== "function") {
    throw new OptionError("onQuestion", "expected a function")
  }
  if (options.onFallback !== undefined && typeof options.onFallback !== "function") {
    throw new OptionError("onFallback", "expected a function")
  }
  if (!sessionIdOk((options as { readonly sessionId?: unknown }).sessionId)) {
    throw new OptionError("sessionId", "expected a session id (a string)")
  }
  if (options.summarizerModel !== undefined && !isAiSdkModel(options.summarizerModel)) {
    checkSummarizer(options.summarizerModel, "summarizerModel")
    throw new OptionError("summarizerModel", "expected an AI SDK language model")
  }
  if (options.summarizerModel !== undefined && options.summarizer !== undefined) {
    throw new OptionError("summarizerModel", "give either summarizer or summarizerModel, not both")
  }
  const given = options.compactor
  if (given !== undefined) {
    if (typeof given !== "object" || given === null || typeof given.compact !== "function") {
      throw new OptionError("compactor", "expected a compactor of createCompactor (context-compressor/promise)")
    }
    const own = ownOptions.find((name) => options[name] !== undefined)
    if (own !== undefined) {
      throw new OptionError(
        own,
        "is an option of the helper's own compactor: give it to createCompactor, or leave out compactor"
      )
    }
    return { get: () => Promise.resolve(given), close: () => Promise.resolve() }
  }
  const create: CreateOptions = {
    directory: options.directory,
    databaseUrl: options.databaseUrl,
    summarizer: options.summarizerModel ?? options.summarizer,
    settings: options.settings,
    env: options.env
  }
  checkCreateOptions(create)
  let made: Promise<Compactor> | undefined
  return {
    get: (): Promise<Compactor> => {
      if (made === undefined) {
        // A compactor that could not start is tried again on the next call.
        made = createCompactor(create).catch((error: unknown) => {
          made = undefined
          throw error
        })
      }
      return made
    },
    close: async () => {
      const compactor = made
      made = undefined
      if (compactor !== undefined) await (await compactor.catch(() => undefined))?.close()
    }
  }
}

/** Tells the helper's `onFallback` of a call's fallback to a trim, and gives the call's warnings. */
const toldOf = (options: Options, result: CompactResult<unknown>): ReadonlyArray<string> => {
  const fallback = result.report === undefined ? undefined : fallbackOf(result.report)
  if (fallback !== undefined && options.onFallback !== undefined) {
    try {
      options.onFallback(fallback)
    } catch (error) {
      process.stderr.write(
        `context-compressor: the onFallback callback threw: ${error instanceof Error ? error.message : String(error)}\n`
      )
    }
  }
  return result.warnings ?? (fallback === undefined ? [] : [warningOf(fallback)])
}

const asWarnings = (warnings: ReadonlyArray<string>) =>
  warnings.map((message) => ({ type: "other" as const, message: `context-compressor: ${message}` }))

/**
 * A middleware for `wrapLanguageModel` that compacts the prompt of every
 * call: `wrapLanguageModel({ model, middleware: compactionMiddleware({ contextWindow: 128_000 }) })`.
 * A compaction that fails rejects the call with the compactor's error.
 * Throws an `OptionError` at once for a wrong, missing or unknown option.
 *
 * @since 0.1.0
 * @category middleware
 */
export const compactionMiddleware = (options: MiddlewareOptions): CompactionMiddleware => {
  const compactor = compactorOf(
    options,
    (value) => value === undefined || typeof value === "string" || typeof value === "function"
  )
  // The warnings of a call, by the call options transformParams gave (the AI SDK hands the same object to wrapGenerate and wrapStream).
  const pending = new WeakMap<object, ReadonlyArray<string>>()
  return {
    middlewareVersion: "v2",
    specificationVersion: "v4" as never,
    transformParams: async <Params extends CallOptions>(
      { model, params }: { readonly params: Params; readonly model: { readonly modelId: string } }
    ) => {
      const sessionId = typeof options.sessionId === "function"
        ? options.sessionId(params)
        : options.sessionId ?? sessionOfCall(params)
      const result = await (await compactor.get()).compact(params.prompt, {
        format: "ai-sdk",
        contextWindow: options.contextWindow,
        model: options.model ?? model.modelId,
        sessionId,
        onQuestion: options.onQuestion
      })
      const transformed = { ...params, prompt: result.messages }
      const warnings = toldOf(options, result)
      if (warnings.length > 0) pending.set(transformed, warnings)
      return transformed
    },
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate()
      const warnings = pending.get(params)
      return warnings === undefined
        ? result
        : { ...result, warnings: [...(result.warnings ?? []), ...asWarnings(warnings)] }
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream()
      const warnings = pending.get(params)
      if (warnings === undefined) return result
      let told = false
      const stream = result.stream.pipeThrough(
        new TransformStream<any, any>({
          transform(part, controller) {
            if (!told) {
              told = true
              if (typeof part === "object" && part !== null && part.type === "stream-start") {
                controller.enqueue({ ...part, warnings: [...(part.warnings ?? []), ...asWarnings(warnings)] })
                return
              }
              controller.enqueue({ type: "stream-start", warnings: asWarnings(warnings) })
            }
            controller.enqueue(part)
          },
          flush(controller) {
            if (!told) controller.enqueue({ type: "stream-start", warnings: asWarnings(warnings) })
          }
        })
      )
      return { ...result, stream }
    },
    close: compactor.close
  }
}

/** ai@7's `instructions` (ai@6's and ai@5's `system`), as the system messages they stand for. */
const instructionMessages = (instructions: unknown): ReadonlyArray<unknown> =>
  instructions === undefined || instructions === null
    ? []
    : typeof instructions === "string"
    ? [{ role: "system", content: instructions }]
    : Array.isArray(instructions)
    ? instructions
    : [instructions]

const isSystem = (message: unknown): boolean =>
  typeof message === "object" && message !== null && (message as { readonly role?: unknown }).role === "system"

/**
 * A `prepareStep` for `generateText` and `streamText`: each step is sent the
 * compacted messages. `prepareStep: compactionPrepareStep({ contextWindow: 128_000 })`.
 * The step's instructions (ai@7) are counted as the system part of the
 * history and left as they are. Throws an `OptionError` at once for a wrong,
 * missing or unknown option.
 *
 * @since 0.1.0
 * @category prepareStep
 */
export const compactionPrepareStep = (options: PrepareStepOptions): CompactionPrepareStep => {
  const compactor = compactorOf(options, (value) => value === undefined || typeof value === "string")
  const prepare = async <Messages extends ReadonlyArray<unknown>>(
    step: Step<Messages>
  ): Promise<{ messages: Messages }> => {
    const instructions = instructionMessages(step.instructions ?? step.system)
    const history = [...instructions, ...step.messages]
    const result = await (await compactor.get()).compact(history, {
      format: "ai-sdk",
      contextWindow: options.contextWindow,
      model: options.model ?? modelName(step.model),
      sessionId: options.sessionId,
      onQuestion: options.onQuestion
    })
    toldOf(options, result)
    const { messages } = result
    // The instructions are sent as the step has them: the messages are what follows them.
    let leading = 0
    while (leading < instructions.length && isSystem(messages[leading])) leading++
    return { messages: messages.slice(leading) as unknown as Messages }
  }
  return Object.assign(prepare, { close: compactor.close })
}

/**
 * Options of {@link recallTool}.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecallToolOptions {
  /**
   * The session whose compacted content the tool reads: the id the
   * middleware or `prepareStep` compacts under. Give the same one to both;
   * a handle of any other session is refused.
   */
  readonly sessionId:
    | string
    | ((call: { readonly toolCallId?: string; readonly messages?: ReadonlyArray<unknown> }) => string)
}

/**
 * The tool's input, as the model gives it.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecallInput {
  readonly handle: string
  readonly offset?: number | undefined
  readonly length?: number | undefined
}

/**
 * What the tool gives the model: a page of the recalled message, or why none came back.
 *
 * @since 0.1.0
 * @category models
 */
export type RecallOutput =
  | {
    readonly handle: string
    readonly messageId: string
    readonly offset: number
    readonly total: number
    readonly text: string
    readonly nextOffset?: number
  }
  | { readonly error: string; readonly message: string }

/**
 * The `context_recall` tool as the AI SDK's `tools` take it (`tool()`'s
 * shape: `description`, `inputSchema` as the SDK's JSON-schema value,
 * `execute`), reading through `compactor.recall`:
 * `tools: { context_recall: recallTool(compactor, { sessionId: "run-42" }) }`.
 * A handle that gives nothing back is answered with the reason
 * (`{ error, message }`), so the model can go on.
 *
 * @since 0.1.0
 * @category tools
 */
export const recallTool = (compactor: Compactor, options: RecallToolOptions) => {
  if (typeof compactor !== "object" || compactor === null || typeof compactor.recall !== "function") {
    throw new OptionError("compactor", "expected a compactor of createCompactor (context-compressor/promise)")
  }
  if (
    typeof options !== "object" || options === null ||
    (typeof options.sessionId !== "string" && typeof options.sessionId !== "function")
  ) {
    throw new OptionError("sessionId", "expected the session id the middleware compacts under")
  }
  checkKnownKeys(options as unknown as Record<string, unknown>, ["sessionId"])
  const validate = (value: unknown): { success: true; value: RecallInput } | { success: false; error: Error } => {
    const input = value as Partial<Record<keyof RecallInput, unknown>> | null
    const whole = (n: unknown, min: number) =>
      n === undefined || (typeof n === "number" && Number.isSafeInteger(n) && n >= min)
    return typeof input === "object" && input !== null && typeof input.handle === "string" && whole(input.offset, 0) &&
        whole(input.length, 1)
      ? { success: true, value: input as RecallInput }
      : {
        success: false,
        error: new TypeError(
          `${RecallToolName}: expected { handle: string, offset?: integer ≥ 0, length?: integer ≥ 1 }`
        )
      }
  }
  return {
    description: RecallDescription,
    // The AI SDK's `jsonSchema()` value, made without importing the SDK: its markers are registered symbols.
    // Typed `never`, as `specificationVersion` above: the SDK's type names symbols of its own that no declaration here can.
    inputSchema: {
      [Symbol.for("vercel.ai.schema")]: true,
      [Symbol.for("vercel.ai.validator")]: true,
      _type: undefined,
      jsonSchema: RecallParameters,
      validate
    } as never,
    execute: async (
      input: RecallInput,
      call?: {
        readonly toolCallId?: string
        readonly messages?: ReadonlyArray<unknown>
        readonly abortSignal?: AbortSignal
      }
    ): Promise<RecallOutput> => {
      const sessionId = typeof options.sessionId === "function" ? options.sessionId(call ?? {}) : options.sessionId
      try {
        const page = await compactor.recall({
          sessionId,
          handle: input.handle,
          ...(input.offset === undefined ? {} : { offset: input.offset }),
          ...(input.length === undefined ? {} : { length: input.length }),
          ...(call?.abortSignal === undefined ? {} : { signal: call.abortSignal })
        })
        return { ...page }
      } catch (error) {
        if (error instanceof RecallError) return { error: error.reason, message: error.message }
        throw error
      }
    }
  }
}
