/**
 * The summariser: a request in, summary text out, or a typed error the
 * failure policy acts on. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SummaryKey from "../../src/internal/services/SummaryKey.js"
import * as Transcript from "../src/Transcript.js"

/**
 * What the summariser is asked: delimited (`system` and `prompt`) or with a
 * shared prefix (`prefix`, then `prompt`); `span` the messages the summary stands for.
 *
 * @since 0.1.0
 * @category models
 */
export class SummaryRequest extends Schema.Class<SummaryRequest>("SummaryRequest")({
  model: Schema.String,
  system: Schema.String,
  prompt: Schema.String,
  maxTokens: Schema.Int,
  agentic: Schema.Boolean,
  namespace: Schema.String,
  span: Transcript.Transcript,
  instructions: Schema.optionalKey(Schema.String),
  prefix: Schema.optionalKey(Transcript.Transcript)
}) {}

/**
 * The messages a request is sent as: a delimited request's instruction as a
 * system message and its prompt as a user message; a shared-prefix
 * request's prefix, then its prompt as a user message.
 *
 * @since 0.1.0
 * @category getters
 */
export const messagesOf = (request: SummaryRequest): Transcript.Transcript => {
  const ask = new Transcript.UserMessage({ id: "summary-request", content: request.prompt })
  return request.prefix === undefined
    ? [new Transcript.SystemMessage({ id: "summary-instruction", content: request.system }), ask]
    : [...request.prefix, ask]
}

/**
 * What a provider said of a summariser call's input.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly inputTokens?: number | undefined
  readonly cachedInputTokens?: number | undefined
}

/**
 * A summariser's reply with the usage the provider reported.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reply {
  readonly text: string
  readonly usage?: Usage | undefined
}

/**
 * Why a summariser call failed.
 *
 * @since 0.1.0
 * @category models
 */
export const FailureReason = Schema.Literals([
  "context-overflow",
  "rate-limited",
  "server-error",
  "cut-off",
  "timeout",
  "malformed-reply",
  "empty-reply",
  "unavailable"
])

/**
 * A summariser call that failed, with what the caller needs to act.
 *
 * @since 0.1.0
 * @category errors
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>()("SummarizerError", {
  reason: FailureReason,
  message: Schema.String,
  retryAfterMs: Schema.optionalKey(Schema.Number)
}) {}

/**
 * Who a summariser is, as the summary cache key names it: its `kind`, the
 * `model` it asks when it chooses its own, its `endpoint` (a base URL, never
 * a key) and the `promptVersion` of what it adds to a request.
 *
 * @since 0.1.0
 * @category models
 */
export type Identity = SummaryKey.Identity

/**
 * The identity of a summariser that gives none: `{ kind: "custom" }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const anonymous: Identity = SummaryKey.anonymous

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly summarize: (request: SummaryRequest) => Effect.Effect<string, SummarizerError>
  /** {@link Service.summarize} with the provider's usage, when the summariser reads it. */
  readonly summarizeWithUsage?: ((request: SummaryRequest) => Effect.Effect<Reply, SummarizerError>) | undefined
  /**
   * Who this summariser is (its kind, model, endpoint and prompt version), as
   * the summary cache key names it: a summary cached by one summariser is never
   * given for another's request. Absent: {@link anonymous}; a summariser of
   * one's own that shares a cache with others gives one.
   */
  readonly identity?: Identity | undefined
}

/**
 * The summariser service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Summarizer extends Context.Service<Summarizer, Service>()("context-compressor/Summarizer") {}

/**
 * A summariser from its operation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => Summarizer.of(service)
