/**
 * The shapes of the Promise API: the options of `createCompactor` and of its
 * calls, what they give back, and the compactor itself. Plain data and
 * functions; no Effect type.
 *
 * @since 0.1.0
 */

/**
 * The history formats `compact` reads and writes: OpenAI chat completions,
 * Anthropic messages, an @effect/ai `Prompt`, AI SDK `ModelMessage`s, an
 * OpenAI Responses `input`.
 *
 * @since 0.1.0
 * @category models
 */
export type Format = "openai" | "anthropic" | "effect-ai" | "ai-sdk" | "openai-responses"

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
 * A compaction that fell back to a trim instead of a summary: the session,
 * why (the summariser's failure, the gate's refusal, or a view the summary
 * did not fit), the gate's verdicts in order, and the compaction's report.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fallback {
  readonly sessionId: string
  readonly reason: string
  /** The gate's verdicts, in order: `"passed"`, a refusal's reason (`"too-short"`, …) or `"summarizer: <reason>"` (`"summarizer: unavailable"`, …). */
  readonly gate: ReadonlyArray<string>
  readonly report: CompactionReport
}

/**
 * Called on every compaction that fell back to a trim (see {@link Fallback}).
 * A callback that throws is reported on stderr and otherwise ignored.
 *
 * @since 0.1.0
 * @category models
 */
export type OnFallback = (fallback: Fallback) => void

/**
 * An AI SDK language model (`LanguageModelV2` of ai@5, `V3` of ai@6, `V4` of
 * ai@7: `openai("gpt-4.1-mini")`, a `wrapLanguageModel(…)`, a mock), as far as
 * this package needs to know it. The summary is asked of it through
 * `generateText` of the `ai` package the application has installed.
 *
 * @since 0.1.0
 * @category models
 */
export interface AiSdkModel {
  readonly specificationVersion: "v2" | "v3" | "v4"
  readonly provider: string
  readonly modelId: string
  readonly doGenerate: (...args: ReadonlyArray<never>) => PromiseLike<unknown>
}

/**
 * An AI SDK model as the summariser, with the `generateText` to ask it
 * through: the one of the `ai` the model belongs to, when the `ai` this
 * package would import is another (or none).
 *
 * @since 0.1.0
 * @category models
 */
export interface AiSdkSummarizer {
  readonly model: AiSdkModel
  /** `generateText` of `ai` (default: the installed `ai`'s). */
  readonly generateText?:
    | ((options: never) => PromiseLike<{ readonly text: string; readonly finishReason: unknown }>)
    | undefined
}

/**
 * The compaction settings (SPEC R2), as typed options: over `config.toml` and
 * the environment, under overrides persisted with `context-compressor
 * settings set`. A value out of its range is refused when the compactor is
 * made, with an `OptionError` naming the setting and its range.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  /** The trigger as a percentage of the context window: 10–95 (default 80). */
  readonly triggerPct?: number | undefined
  /** The absolute trigger cap in tokens: 10,000–2,000,000 (default 250,000). */
  readonly capTokens?: number | undefined
  /** The summary budget in tokens: 1,000–200,000 (default 16,000). */
  readonly summaryMaxTokens?: number | undefined
  /** The model the summary is asked of (default: the session's own). */
  readonly summarizerModel?: string | undefined
  /** The fraction of the trigger kept verbatim after the boundary: 0.05–0.8 (default 0.3). */
  readonly keepFraction?: number | undefined
  /** The cap, in characters, of one tool result in the summariser request: 1,000–1,000,000 (default 4,000). */
  readonly envelopeCapChars?: number | undefined
  /** Tokens left free for the model's reply under the trigger: 0–200,000 (default 4,096). */
  readonly replyReserveTokens?: number | undefined
  /** The most the view may take right after a compaction, as a percentage of the trigger: 20–70 (default 50). */
  readonly targetAfterPct?: number | undefined
  /**
   * How the summariser is asked: `"delimited"` (the default), the span as a
   * delimited transcript; or `"shared-prefix"`, the view as last sent followed
   * by the instruction, so the provider's prompt cache serves its head.
   */
  readonly summaryRequest?: "delimited" | "shared-prefix" | undefined
}

/**
 * Options of {@link createCompactor}.
 *
 * @since 0.1.0
 * @category models
 */
export interface CreateOptions {
  /**
   * A folder to keep the compaction states, the summary cache, `config.toml`
   * and the transcript archive in, in SQLite files (needs `better-sqlite3`).
   * Without it (and without `databaseUrl`), everything is kept in memory for
   * the life of the compactor: no file is written, no native module loaded.
   */
  readonly directory?: string | undefined
  /**
   * `"offline"` (default): the extractive summariser, no model. `"chat-completions"`:
   * an OpenAI-compatible server configured from the environment. Or the server
   * itself, or an AI SDK language model (asked through the installed `ai`'s
   * `generateText`, or `{ model, generateText }` to name the `ai` to use).
   */
  readonly summarizer?:
    | "offline"
    | "chat-completions"
    | ChatCompletionsSummarizer
    | AiSdkModel
    | AiSdkSummarizer
    | undefined
  /**
   * A PostgreSQL URL: the summary cache, the compaction states and the settings
   * overrides go to that database (shared by a fleet of workers) instead of SQLite files.
   */
  readonly databaseUrl?: string | undefined
  /** The compaction settings; see {@link Settings}. */
  readonly settings?: Settings | undefined
  /** The environment settings are read from (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined
  /** The model of a `compact` call that names none (default `"offline"`). */
  readonly model?: string | undefined
  /** Asked, for every `compact` call that brings no `onQuestion` of its own; without one, sessions are unattended. */
  readonly onQuestion?: OnQuestion | undefined
  /**
   * Called on every compaction that fell back to a trim instead of a summary
   * (it is also a warning on stderr, and in the call's `warnings`).
   */
  readonly onFallback?: OnFallback | undefined
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
  /**
   * The session the history belongs to (default: a digest of the messages up to the first user message, and
   * histories that open alike but differ later kept apart under branches of it, `Session.branchOf`).
   */
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
  /** Why the summary was not used, when `fallback` is `"trim"`. */
  readonly fallbackReason?: string
  readonly summaryChars: number
  readonly missingFromSummary: ReadonlyArray<string>
  readonly userMessagesOmitted: number
  readonly rules: { readonly [action: string]: number }
  /** Where the messages this compaction moved out were archived verbatim. */
  readonly archivePath?: string
  /** The tokens kept free for the reply under the trigger: the setting (at most a quarter of the trigger) less the room the window leaves above the trigger. */
  readonly replyReserve?: number
  /** The rungs of the degradation ladder the view took after the compaction, in order. */
  readonly ladder: ReadonlyArray<LadderStep>
  /** Tool results repaired in the view. */
  readonly repairs: ReadonlyArray<Repair>
}

/**
 * One rung of the degradation ladder a view took (the engine's `LadderStep`,
 * as plain data): the reply's room in a small window below the reserve setting, tool results
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
  /** The session the history was kept under: the one named, else the derived one or its branch (`Session.branchOf`). */
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
  /**
   * What went wrong but did not fail the call, one sentence each: a
   * compaction that fell back to a trim instead of a summary, with the reason
   * (empty when nothing did).
   */
  readonly warnings: ReadonlyArray<string>
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
  /**
   * A compacted message read back by the handle its block lists (`ctx_…`),
   * within `sessionId` only; a page of it when it is long. Rejects with a
   * `RecallError` (a handle of another session is `other-session`, never its content).
   */
  readonly recall: (options: RecallOptions) => Promise<RecallPage>
  /** Closes the databases and ends the event iterators; later calls reject with reason `"closed"`. */
  readonly close: () => Promise<void>
}

/**
 * What {@link Compactor.recall} reads: the session asking, a handle its block lists, and optionally a page.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecallOptions {
  readonly sessionId: string
  readonly handle: string
  /** The first character to give (default 0). */
  readonly offset?: number
  /** How many characters to give at most (default and cap: 16,000). */
  readonly length?: number
  readonly signal?: AbortSignal
}

/**
 * One page of a recalled message: characters `offset` to `offset + text.length` of `total`.
 *
 * @since 0.1.0
 * @category models
 */
export interface RecallPage {
  readonly handle: string
  /** The id of the message in the session's transcript. */
  readonly messageId: string
  readonly offset: number
  readonly total: number
  readonly text: string
  /** Where the next page starts, when there is one. */
  readonly nextOffset?: number
}
