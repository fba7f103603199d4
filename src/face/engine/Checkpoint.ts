/**
 * What a checkpoint of the engine gives and reports: its input, the outbound
 * view with its tokens and trigger, the `Compacted` event of a compaction,
 * the rungs of the degradation ladder and the repairs a view took, the
 * engine's typed failure, and the report fields the command line and the
 * HTTP service print. `Compactor` is the engine that makes them; this module
 * only describes them, so the engine's stages and the programs share one
 * model.
 *
 * @example
 * ```ts
 * import { Checkpoint, Transcript } from "context-compressor"
 * import { Option } from "effect"
 *
 * // A checkpoint that only clipped a message: its report counts the view before the ladder.
 * const checkpoint: Checkpoint.Checkpoint = {
 *   view: [new Transcript.UserMessage({ id: "m1", content: "Fix the parser." })],
 *   tokens: 900,
 *   trigger: 25_600,
 *   compacted: Option.none(),
 *   ladder: [new Checkpoint.LadderStep({ step: "clip-messages", messageIds: ["m1"], tokensBefore: 1_500, tokensAfter: 900, detail: "clipped" })],
 *   repairs: []
 * }
 * assert.strictEqual(Checkpoint.reportFields(checkpoint).tokensBefore, 1_500)
 * ```
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import type * as CheckpointData from "../../core/checkpoint/CheckpointData.js"
import type * as CheckpointFailures from "../../core/checkpoint/CheckpointFailures.js"
import type * as SaveRecord from "../../core/checkpoint/SaveRecord.js"
import type * as Transcript from "../models/Transcript.js"
import type * as Overflow from "./Overflow.js"
import * as ViewCheck from "./ViewCheck.js"

/**
 * Why a checkpoint could not give a view.
 *
 * @since 0.1.0
 * @category errors
 */
export class CompactionError extends Schema.TaggedError<CompactionError>()("CompactionError", {
  reason: Compat.Literals(["no-progress", "cannot-fit", "invalid-view", "store"]),
  sessionId: Schema.String,
  message: Schema.String,
  violations: Compat.optionalKey(Schema.Array(ViewCheck.Violation)),
  /** For `cannot-fit`: the smallest context window whose view would fit (SPEC R2.13). */
  minimumWindow: Compat.optionalKey(Schema.Number)
}) {}

/**
 * One rung of the degradation ladder a view took (SPEC R2.13): the reply
 * reserve scaled to a small window, tool results reduced through the retention
 * policies at a smaller cap, messages clipped head and tail, the compacted
 * block clipped; with the messages changed and the view's tokens before and after.
 *
 * @since 0.1.0
 * @category models
 */
export class LadderStep extends Schema.Class<LadderStep>("LadderStep")({
  step: Compat.Literals(["reply-reserve", "reduce-tool-results", "clip-messages", "clip-block"]),
  /** The messages the step changed, oldest first (none for `reply-reserve`). */
  messageIds: Schema.Array(Schema.String),
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  detail: Schema.String
}) {}

/**
 * A repair made in the view (never in the transcript): a lost result answered
 * by a synthetic one, a late result moved next to its call, a second result
 * for one call id left out.
 *
 * @since 0.1.0
 * @category models
 */
export class Repair extends Schema.Class<Repair>("Repair")({
  kind: Compat.Literals(["lost-result", "late-result", "duplicate-result"]),
  toolCallId: Schema.String,
  /** The message repaired: the assistant message of a lost or late result's call, the duplicate result. */
  messageId: Schema.String,
  detail: Schema.String
}) {}

/**
 * What a compaction did, published as the `Compacted` event and returned by
 * the checkpoint that made it.
 *
 * @since 0.1.0
 * @category models
 */
export class Compacted extends Schema.Class<Compacted>("Compacted")({
  sessionId: Schema.String,
  /** What entered compaction: the trigger, a context-overflow error of the main model, or a request to compact now. */
  cause: Compat.Literals(["trigger", "overflow", "manual"]),
  /** The instructions a manual compaction was asked with, as the summariser request carried them. */
  instructions: Compat.optionalKey(Schema.String),
  /** The session's compactions so far, this one included. */
  compactions: Schema.Int,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  trigger: Schema.Number,
  /** The first message kept verbatim. */
  boundary: Schema.Struct({ index: Schema.Int, id: Schema.String }),
  replaced: Schema.Struct({ firstId: Schema.String, lastId: Schema.String, count: Schema.Int }),
  /**
   * The summary was not made for this compaction: it was found in the cache,
   * or made by a concurrent compaction of the same engine that asked for it.
   */
  cacheHit: Schema.Boolean,
  /** Summariser calls made (cache hits and shared summaries excluded). */
  summarizerCalls: Schema.Int,
  /** The gate's verdicts, in order: "passed" or the refusal's reason. */
  gate: Schema.Array(Schema.String),
  fallback: Compat.Literals(["none", "trim"]),
  /** Why the summary was not used, when the compaction fell back to a trim: the summariser's failure, the gate's refusal, or a view that did not fit. */
  fallbackReason: Compat.optionalKey(Schema.String),
  summaryChars: Schema.Int,
  missingFromSummary: Schema.Array(Schema.String),
  userMessagesOmitted: Schema.Int,
  /** What the retention rules did to the tool results of the span, by action. */
  rules: Compat.Record(Schema.String, Schema.Number),
  /** Where the messages this compaction moved out were archived verbatim, when they were. */
  archivePath: Compat.optionalKey(Schema.String),
  /** The tokens kept free for the reply under the trigger: the setting (at most a quarter of the trigger) less the room the window leaves above the trigger. */
  replyReserve: Compat.optionalKey(Schema.Number),
  /** The rungs of the degradation ladder the view took after the compaction, in order (none when it fit). */
  ladder: Compat.optionalKeyWithDefault(Schema.Array(LadderStep), () => []),
  /** Lost or duplicated tool results repaired in the view. */
  repairs: Compat.optionalKeyWithDefault(Schema.Array(Repair), () => []),
  /** The most the view may take after this compaction (`targetAfterPct` of the trigger), in tokens. */
  targetAfter: Compat.optionalKey(Schema.Number),
  /** The shape of the summariser request (`summary_request`): a shared-prefix setting falls back to delimited when the engine sent no view since the last compaction. */
  summaryRequest: Compat.optionalKey(Compat.Literals(["delimited", "shared-prefix"])),
  /** The input tokens the summariser's provider reported over this compaction's calls, and of them those its prompt cache served (absent when it reported none). */
  summarizerUsage: Compat.optionalKey(Schema.Struct({ inputTokens: Schema.Number, cachedInputTokens: Schema.Number })),
  /** Facts the summary missed that the bounded block left out (the oldest first), and tokens of the summary it clipped. */
  dropped: Compat.optionalKeyWithDefault(
    Schema.Struct({ facts: Schema.Int, summaryTokens: Schema.Int }),
    () => ({ facts: 0, summaryTokens: 0 })
  )
}) {}

/**
 * What a checkpoint is told about the session.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckpointInput {
  readonly sessionId: string
  /** The persisted transcript, oldest first. Never modified. */
  readonly transcript: Transcript.Transcript
  /** The session's model: the summariser's unless the settings pin another. */
  readonly model: string
  readonly contextWindow: number
  /** The context tokens the provider reported for the last call, if it did (SPEC R2.1). */
  readonly reportedContextTokens?: number | undefined
  /**
   * Which compaction was in force (its number, 0 for none) in the view the reported count is of. A report of
   * another compaction's view (an answer lost after the session compacted, another worker's compaction) is not
   * used: the engine counts the view itself. Without it, the report is taken as of the view the session gives now.
   */
  readonly reportedCompactions?: number | undefined
  /**
   * The id was derived from the transcript's opening (`Session.idOf`), not named by the caller. A transcript
   * that the id's saved compaction was not made from (another history that opens alike) is then kept under a
   * branch of the id (`Session.branchOf`), the one whose compaction was made from it or the first free one,
   * rather than compacted over the other history's state.
   */
  readonly sessionIdDerived?: boolean | undefined
}

/**
 * What a manual compaction is told: the checkpoint's input, and what the
 * summary should focus on (as `/compact <focus>`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactNowInput extends CheckpointInput {
  /** What the summary should focus on; part of the summariser request and so of its cache key. */
  readonly instructions?: string | undefined
  /**
   * The summariser's instruction for this compaction, in place of the built-in one (Anthropic's
   * `compact_20260112` `instructions`, which replace the summarisation prompt); the quality gate
   * still checks the summary. Part of the request, and so of its cache key.
   */
  readonly summaryPrompt?: string | undefined
}

/**
 * What `contextOverflow` is told: the checkpoint's input and, when the main
 * model's error was classified (`Overflow.classify`), what it named.
 *
 * @since 0.1.0
 * @category models
 */
export interface OverflowInput extends CheckpointInput {
  /**
   * The main model's overflow error (as `Overflow.classify` gives it), or only what the checkpoint
   * reads of it: the window and the prompt tokens it names, if it names them.
   */
  readonly overflow?:
    | Overflow.ContextOverflow
    | { readonly limit?: number | undefined; readonly promptTokens?: number | undefined }
    | undefined
}

/**
 * The outbound view and what the checkpoint did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Checkpoint {
  readonly view: Transcript.Transcript
  readonly tokens: number
  readonly trigger: number
  readonly compacted: Option.Option<Compacted>
  /** The rungs of the degradation ladder this view took (also without a compaction, when nothing older was left to compact). */
  readonly ladder: ReadonlyArray<LadderStep>
  /** Lost or duplicated tool results repaired in this view. */
  readonly repairs: ReadonlyArray<Repair>
  /**
   * Every message of the view this engine gave back last for the session is
   * unchanged at the head of this one, so a provider's prompt cache serves
   * them (false after a compaction, and when the session is new to the engine).
   */
  readonly prefixStable?: boolean | undefined
  /** Messages of the transcript added since the session's last compaction by this engine (all of them before the first). */
  readonly sinceCompaction?: number | undefined
  /**
   * The session the view was made in: the input's id, or for a derived id (`sessionIdDerived`) the branch
   * the history was found in (`Session.branchOf`), the id to name it by from then on.
   */
  readonly sessionId?: string | undefined
}

/**
 * The tokens of a checkpoint's view before the ladder: its tokens, plus what
 * the ladder's steps on the view took off (the reply reserve's step is not of
 * the view). For a compaction, `Compacted.tokensBefore` is the view before it.
 *
 * @since 0.1.0
 * @category getters
 */
export const tokensBeforeLadder = (checkpoint: Pick<Checkpoint, "tokens" | "ladder">): number => {
  const steps = checkpoint.ladder.filter((step) => step.step !== "reply-reserve")
  return steps.length === 0
    ? checkpoint.tokens
    : checkpoint.tokens + steps[0]!.tokensBefore - steps[steps.length - 1]!.tokensAfter
}

/**
 * What a report of a checkpoint says of it (the command line's `--report`,
 * the HTTP service's report): the view's length, its tokens before (the
 * compaction's `tokensBefore`, else {@link tokensBeforeLadder}) and after, the
 * trigger, the compaction or `null`, the ladder's steps and the repairs.
 *
 * @since 0.1.0
 * @category getters
 */
export const reportFields = (checkpoint: Checkpoint) => {
  const compacted = Option.getOrNull(checkpoint.compacted)
  return {
    viewMessages: checkpoint.view.length,
    tokensBefore: compacted?.tokensBefore ?? tokensBeforeLadder(checkpoint),
    tokensAfter: checkpoint.tokens,
    trigger: checkpoint.trigger,
    compacted,
    ladder: [...checkpoint.ladder],
    repairs: [...checkpoint.repairs]
  }
}

/**
 * A failure the shared core worded as this face's error, its violations `ViewCheck.Violation`s.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFailure = (failure: CheckpointFailures.Failure): CompactionError =>
  new CompactionError(
    failure.violations === undefined
      ? failure as Omit<CheckpointFailures.Failure, "violations">
      : { ...failure, violations: failure.violations.map((violation) => new ViewCheck.Violation(violation)) }
  )

/**
 * The report of a compaction the shared core saved, its rungs and repairs this face's classes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compactedOf = (
  fields: ReturnType<typeof SaveRecord.reportFields<CheckpointData.Repair>>
): Compacted =>
  new Compacted({
    ...fields,
    ladder: fields.ladder.map((step) => new LadderStep(step)),
    repairs: fields.repairs.map((repair) => new Repair(repair))
  })

/**
 * The checkpoint the shared core gave, as this face's: its report an `Option`, its rungs and repairs this face's classes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromData = (checkpoint: CheckpointData.CheckpointData<Compacted>): Checkpoint => ({
  ...checkpoint,
  compacted: Compat.fromNullishOr(checkpoint.compacted),
  ladder: checkpoint.ladder.map((step) => new LadderStep(step)),
  repairs: checkpoint.repairs.map((repair) => new Repair(repair))
})
