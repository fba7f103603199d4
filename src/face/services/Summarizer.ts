/**
 * The summariser: a request in (instruction, delimited transcript, budget),
 * summary text out, or a typed error the failure policy acts on.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as SummaryKey from "../../core/services/SummaryKey.js"
import * as Transcript from "../models/Transcript.js"

/**
 * What the summariser is asked, in one of two shapes (the `summary_request`
 * setting). Delimited: `system` is the instruction, `prompt` the delimited
 * transcript followed by the instruction restated, ending on the first heading
 * to write (SPEC R2.4). Shared prefix: `prefix` is the view exactly as last
 * sent to the provider, and `prompt` the one user message after it that states
 * the instruction and ends on the first heading (`system` is not sent: the
 * request's head is the provider's cached prefix). In both, `span` is the
 * messages the summary stands for.
 *
 * @since 0.1.0
 * @category models
 */
export class SummaryRequest extends Schema.Class<SummaryRequest>("SummaryRequest")({
  /** The model to summarise with: the settings' pin, else the session's model. */
  model: Schema.String,
  system: Schema.String,
  prompt: Schema.String,
  /** The summary budget, sent as the request's max tokens. */
  maxTokens: Schema.Int,
  /** Whether the span holds agentic-workspace/v1 results (the agentic prompt variant). */
  agentic: Schema.Boolean,
  /** The namespace of the prompts that built this request (part of the cache key). */
  namespace: Schema.String,
  /**
   * The span itself, for summarisers that work from structure (the offline
   * extractive one); model-backed summarisers read `system` and `prompt` only.
   */
  span: Transcript.Transcript,
  /**
   * A manual compaction's instructions (what the user asked the summary to
   * focus on), also stated in `system` and `prompt`; absent for a compaction
   * the trigger started.
   */
  instructions: Compat.optionalKey(Schema.String),
  /**
   * A shared-prefix request's head: the view as last sent to the provider,
   * to be sent as those messages, before `prompt` as a user message and
   * with no system message of the summariser's; absent in a delimited request.
   */
  prefix: Compat.optionalKey(Transcript.Transcript)
}) {}

/**
 * The messages a request is sent as, in the neutral model: a delimited
 * request's instruction as a system message and its prompt as a user message;
 * a shared-prefix request's prefix, then its prompt as a user message.
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
 * What a provider said of a summariser call's input: its tokens, and of them
 * those its prompt cache served (OpenAI's `usage.prompt_tokens_details.cached_tokens`).
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
export const FailureReason = Compat.Literals([
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
 * @example
 * ```ts
 * import { Summarizer } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A provider's 429, as a summariser layer reports it: the reason, and how long to wait.
 * const rateLimited = new Summarizer.SummarizerError({
 *   reason: "rate-limited",
 *   message: "429 Too Many Requests",
 *   retryAfterMs: 2_000
 * })
 * const wait = await Effect.runPromise(
 *   Effect.fail(rateLimited).pipe(
 *     Effect.catchTag("SummarizerError", (error) => Effect.succeed(error.reason === "rate-limited" ? error.retryAfterMs : 0))
 *   )
 * )
 * assert.strictEqual(wait, 2_000)
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class SummarizerError extends Schema.TaggedError<SummarizerError>()("SummarizerError", {
  reason: FailureReason,
  message: Schema.String,
  retryAfterMs: Compat.optionalKey(Schema.Number)
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
  /**
   * {@link Service.summarize} with the provider's usage, for a summariser
   * that reads it (the chat-completions one); the engine uses it when present.
   */
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
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, SummarizerOffline, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Summarizer } from "context-compressor/services"
 * import { Effect, Layer } from "effect"
 *
 * // A summariser of one's own: here the offline one's summary, with a line of the team's added.
 * const teamSummarizer = Layer.succeed(
 *   Summarizer.Summarizer,
 *   Summarizer.Summarizer.of({
 *     summarize: (request) => Effect.succeed(`${SummarizerOffline.summarize(request.span)}\n\nReviewed by: the team.`)
 *   })
 * )
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   assert.ok(view[0]?._tag === "Compacted" && view[0].content.includes("Reviewed by: the team."))
 * })
 *
 * const services = Testing.layer({ summarizer: teamSummarizer })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Summarizer extends Compat.Service<Summarizer, Service>()("context-compressor/Summarizer") {}
