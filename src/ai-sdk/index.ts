/**
 * context-compressor in the Vercel AI SDK (v5): `compactionMiddleware` for
 * `wrapLanguageModel`, whose `transformParams` compacts `params.prompt`
 * before every call of the wrapped model (other call options untouched), and
 * `compactionPrepareStep` for the `prepareStep` option of `generateText` and
 * `streamText`, which compacts the messages of each step. Both run over a
 * compactor of `context-compressor/promise`; the history the agent keeps is
 * never modified.
 *
 * The types of `@ai-sdk/provider` (a dependency of `ai`) are used for the
 * middleware; nothing of the AI SDK is loaded at run time.
 *
 * @since 0.1.0
 */
import type { LanguageModelV2, LanguageModelV2CallOptions, LanguageModelV2Middleware } from "@ai-sdk/provider"
import type { Compactor, OnQuestion } from "../promise/index.js"

/**
 * The provider options key a call may name its session under:
 * `providerOptions: { "context-compressor": { sessionId: "run-42" } }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const providerOptionsKey = "context-compressor"

/**
 * What both helpers need.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The compactor to use (`createCompactor` of `context-compressor/promise`); closing it is the caller's. */
  readonly compactor: Compactor
  /** The model's context window, in tokens. */
  readonly contextWindow: number
  /** The session's model name (default: the model's `modelId`). */
  readonly model?: string | undefined
  /** Asks the attended user to retry or trim when the summariser has failed twice. */
  readonly onQuestion?: OnQuestion | undefined
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
  readonly sessionId?: string | ((params: LanguageModelV2CallOptions) => string | undefined) | undefined
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

const sessionOfCall = (params: LanguageModelV2CallOptions): string | undefined => {
  const own = params.providerOptions?.[providerOptionsKey]?.["sessionId"]
  return typeof own === "string" ? own : undefined
}

const modelName = (model: unknown): string | undefined =>
  typeof model === "string"
    ? model
    : typeof model === "object" && model !== null && typeof (model as { modelId?: unknown }).modelId === "string"
    ? (model as { modelId: string }).modelId
    : undefined

/**
 * A `LanguageModelV2Middleware` that compacts the prompt of every call:
 * `wrapLanguageModel({ model, middleware: compactionMiddleware({ compactor, contextWindow }) })`.
 * A compaction that fails rejects the call with the compactor's error.
 *
 * @since 0.1.0
 * @category middleware
 */
export const compactionMiddleware = (options: MiddlewareOptions): LanguageModelV2Middleware => ({
  middlewareVersion: "v2",
  transformParams: async ({ model, params }: { readonly params: LanguageModelV2CallOptions; readonly model: LanguageModelV2 }) => {
    const sessionId = typeof options.sessionId === "function"
      ? options.sessionId(params)
      : options.sessionId ?? sessionOfCall(params)
    const { messages } = await options.compactor.compact(params.prompt, {
      format: "ai-sdk",
      contextWindow: options.contextWindow,
      model: options.model ?? model.modelId,
      sessionId,
      onQuestion: options.onQuestion
    })
    return { ...params, prompt: messages }
  }
})

/**
 * A `prepareStep` for `generateText` and `streamText`: each step is sent the
 * compacted messages. `prepareStep: compactionPrepareStep({ compactor, contextWindow })`.
 *
 * @since 0.1.0
 * @category prepareStep
 */
export const compactionPrepareStep = (options: PrepareStepOptions) =>
async <Messages extends ReadonlyArray<unknown>>(step: { readonly messages: Messages; readonly model?: unknown }): Promise<{ messages: Messages }> => {
  const { messages } = await options.compactor.compact(step.messages, {
    format: "ai-sdk",
    contextWindow: options.contextWindow,
    model: options.model ?? modelName(step.model),
    sessionId: options.sessionId,
    onQuestion: options.onQuestion
  })
  return { messages }
}
