/**
 * The compaction engine (SPEC R2): at each checkpoint it rebuilds the
 * outbound view from the transcript and the persisted state, and when the view
 * nears the trigger it replaces the older span by one compacted block. The
 * transcript is never modified.
 *
 * Workers may share the store and the cache: a compaction is saved only over
 * the state it started from (`CompactionStore.saveIfCurrent`), so of two that
 * compact one session at once one wins and the other rebuilds its view from
 * the winner's state; and compactions of one engine that ask for the same
 * summary at once share one summariser call.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Count from "../../core/checkpoint/Count.js"
import * as QualityGate from "../../core/summarizer/QualityGate.js"
import type * as Policy from "../models/Policy.js"
import type * as Transcript from "../models/Transcript.js"
import { Attention } from "../services/Attention.js"
import { CompactionStore } from "../services/CompactionStore.js"
import * as Settings from "../services/Settings.js"
import { Summarizer } from "../services/Summarizer.js"
import * as SummaryCache from "../services/SummaryCache.js"
import { Tokenizer } from "../services/Tokenizer.js"
import { TranscriptArchive } from "../services/TranscriptArchive.js"
import type {
  Checkpoint,
  CheckpointInput,
  Compacted,
  CompactionError,
  CompactNowInput,
  OverflowInput
} from "./Checkpoint.js"
import * as Engine from "./internal/checkpoint/Engine.js"
import * as SessionMemory from "./internal/SessionMemory.js"
import * as SummaryPrompt from "./SummaryPrompt.js"

export {
  /**
   * The outbound view and what the checkpoint did: `Checkpoint.Checkpoint`.
   * @since 0.1.0
   * @category models
   */
  type Checkpoint,
  /**
   * What a checkpoint is told about the session: `Checkpoint.CheckpointInput`.
   * @since 0.1.0
   * @category models
   */
  type CheckpointInput,
  /**
   * What a compaction did, the `Compacted` event: `Checkpoint.Compacted`.
   * @since 0.1.0
   * @category models
   */
  Compacted,
  /**
   * Why a checkpoint could not give a view: `Checkpoint.CompactionError`.
   * @since 0.1.0
   * @category errors
   */
  CompactionError,
  /**
   * What a manual compaction is told: `Checkpoint.CompactNowInput`.
   * @since 0.1.0
   * @category models
   */
  type CompactNowInput,
  /**
   * One rung of the degradation ladder a view took: `Checkpoint.LadderStep`.
   * @since 0.1.0
   * @category models
   */
  LadderStep,
  /**
   * What `contextOverflow` is told: `Checkpoint.OverflowInput`.
   * @since 0.1.0
   * @category models
   */
  type OverflowInput,
  /**
   * A repair made in the view, never in the transcript: `Checkpoint.Repair`.
   * @since 0.1.0
   * @category models
   */
  Repair,
  /**
   * What a report of a checkpoint says of it: `Checkpoint.reportFields`.
   * @since 0.1.0
   * @category getters
   */
  reportFields,
  /**
   * The tokens of a checkpoint's view before the ladder: `Checkpoint.tokensBeforeLadder`.
   * @since 0.1.0
   * @category getters
   */
  tokensBeforeLadder
} from "./Checkpoint.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * A checkpoint: the view, compacted first when it nears the trigger. When
   * another worker saved a compaction of the session first, its state stands:
   * the view is rebuilt from it, as a reload would, and `compacted` is none
   * (unless that view does not fit this transcript, which is compacted then).
   */
  readonly checkpoint: (input: CheckpointInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * The main model refused the view as too long: compact whatever the count
   * says, and fail with `no-progress` instead of looping when that does not
   * shrink the view. The provider is believed over the tokenizer: the view
   * counts as at least the window (the error's limit when it names one, and
   * its prompt tokens when it names them), and the trigger and reply reserve
   * shrink by the ratio of the engine's count to that. The view returned is
   * the smallest the ladder reached, smaller than the one refused, even when
   * it is still over that scaled trigger.
   */
  readonly contextOverflow: (input: OverflowInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * Compacts now, whatever the trigger says (a manual compaction, as
   * `/compact <focus>`), with the summary asked to follow `instructions`. The
   * newest user message and what follows it stay verbatim (the newest turn,
   * when no user message comes after the last block) and everything before is
   * compacted; a view with nothing before it fails with `"cannot-fit"`.
   */
  readonly compactNow: (input: CompactNowInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * The engine's count of a message: its text's tokens and the per-message
   * overhead, as a checkpoint counts it. A message object a checkpoint has
   * counted is not counted again (what a caller reporting per-message tokens
   * after a checkpoint uses, instead of a tokenizer of its own).
   */
  readonly tokensOf: (message: Transcript.Message) => number
  /** Every compaction, as it happens, from when the stream is run. */
  readonly events: Stream.Stream<Compacted>
  /** A queue of every compaction from now on, for as long as the scope lasts. */
  readonly subscribe: Effect.Effect<Compat.Subscription<Compacted>, never, Scope.Scope>
}

/**
 * The compaction engine service.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Effect } from "effect"
 *
 * // An agent runtime asks for its outbound view at every turn; the engine
 * // compacts when the transcript no longer fits (given a layer of the services).
 * const turn = (transcript: Transcript.Transcript) =>
 *   Effect.gen(function*() {
 *     const compactor = yield* Compactor.Compactor
 *     const checkpoint = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 200_000 })
 *     return checkpoint.view
 *   })
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Compactor extends Compat.Service<Compactor, Service>()("context-compressor/Compactor") {}

/**
 * The default deadline of a checkpoint's automatic summariser attempts: 120
 * seconds, the two attempts of the chat-completions summariser's default
 * timeout (`SummarizerChatCompletions.defaultTimeout`, 60 s) included.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadline: Duration.Duration = Duration.seconds(Engine.defaultSummaryDeadlineSeconds)

/**
 * Options of the engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The retention policies tool results are rendered with in the summariser request. */
  readonly policies: ReadonlyArray<Policy.Policy>
  /** How many times an attended user may choose Retry before the engine trims (default 3). */
  readonly maxAskedRetries?: number
  /**
   * How long the summariser's two automatic attempts of one checkpoint may take
   * together, waits for `Retry-After` included (default 120 s, {@link defaultSummaryDeadline});
   * past it the checkpoint goes on as if both had failed.
   */
  readonly summaryDeadline?: Compat.DurationInput
  /**
   * How many times in a row a checkpoint may find that another worker saved
   * the session first before it fails with reason `"store"` (default 5).
   */
  readonly maxLostSaves?: number
  /**
   * A system message for the summariser instead of the built-in instruction;
   * the cache namespace is derived from it (`SummaryPrompt.namespaceFor`).
   */
  readonly summarizerSystemPrompt?: string
  /**
   * How many milliseconds of work a checkpoint does before it gives the event
   * loop a turn (default {@link defaultSliceMs}): other requests and fibers run
   * during a long checkpoint. `Infinity` never yields.
   */
  readonly sliceMs?: number
  /**
   * The most memory, in bytes (estimated), that the engine's per-session
   * caches may take (token counts, the last view given back, the repair
   * scan), default {@link defaultSessionCacheBytes}: past it, the sessions
   * used least recently are forgotten first. A forgotten session loses
   * nothing but time: its next checkpoint counts its messages again.
   */
  readonly sessionCacheBytes?: number
  /** Issue 31's levers, each on by default, off to measure it: `replyReserveIn` ("trigger": all of it under the trigger), `blockLayout` ("summary"). */
  readonly levers?: { readonly replyReserveIn?: "window" | "trigger"; readonly blockLayout?: "reuse" | "summary" }
}

/**
 * The default bound of the per-session caches: 128 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSessionCacheBytes: number = Engine.defaultSessionCacheBytes

/**
 * How long a checkpoint works before it yields, by default: 10 ms.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSliceMs: number = Engine.defaultSliceMs

/**
 * Makes the engine from its services. A checkpoint is a line of stages (the pure ones in `core/checkpoint/`,
 * summarise and save in `face/engine/internal/checkpoint/`): repair → restore → count → plan → summarise →
 * fit (the ladder) → save; a view under the trigger goes from count to fit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Compactor.make")(function*(options: Options) {
  const tokenizer = yield* Tokenizer
  const store = yield* CompactionStore
  const pubsub = yield* PubSub.unbounded<Compacted>()
  const summaryDeadline = Compat.durationFromInput(options.summaryDeadline ?? defaultSummaryDeadline)
  const { compact, counter } = Engine.make({
    count: tokenizer.count,
    settings: yield* Settings.Settings,
    store,
    // Optional: without an archive, the block says the session's transcript keeps the moved-out messages.
    archive: Option.getOrUndefined(yield* Effect.serviceOption(TranscriptArchive)),
    services: {
      summarizer: yield* Summarizer,
      cache: yield* SummaryCache.SummaryCache,
      attention: yield* Attention
    },
    prompt: {
      buildRequest: SummaryPrompt.buildWithTotals,
      buildSharedPrefix: SummaryPrompt.buildSharedPrefix,
      restoreOpening: SummaryPrompt.restoreOpening,
      gate: QualityGate.check,
      keyOf: SummaryCache.keyOf,
      digest: SummaryCache.digest
    },
    memoryCodec: SessionMemory.codec,
    summaryDeadline: { millis: Duration.toMillis(summaryDeadline), text: Duration.format(summaryDeadline) },
    publish: (report) => PubSub.publish(pubsub, report)
  }, options)
  const run = (
    input: CheckpointInput & CompactNowInput & OverflowInput,
    cause: Count.Cause
  ): Effect.Effect<Checkpoint, CompactionError> => compact(input, cause)

  return Compactor.of({
    checkpoint: (input) => run(input, "trigger"),
    contextOverflow: (input) => run(input, "overflow"),
    compactNow: (input) => run(input, "manual"),
    tokensOf: counter.plain,
    events: Stream.fromPubSub(pubsub),
    subscribe: PubSub.subscribe(pubsub)
  })
})

/**
 * The engine as a layer over its six services.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) => Layer.effect(Compactor, make(options))
