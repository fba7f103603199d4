/**
 * The compaction engine on Effect 4 (SPEC R2), the same engine as Effect 3's
 * `Compactor` under the same names: at each checkpoint it rebuilds the
 * outbound view from the transcript and the persisted state, and when the
 * view nears the trigger it replaces the older span by one compacted block.
 * The transcript is never modified. Its checkpoint is the shared core's
 * (`internal/checkpoint/Engine.ts`, the line of stages `Pipeline`), run on
 * Effect 4's effects (`internal/EffectFx.ts`); this module reads the Effect 4
 * services and declares the tag, the service and its events.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Count from "../../src/internal/checkpoint/Count.js"
import * as Engine from "../../src/internal/checkpoint/Engine.js"
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
import * as EffectFx from "./internal/EffectFx.js"
import * as EngineFace from "./internal/EngineFace.js"
import * as SessionMemory from "./internal/SessionMemory.js"
import type * as Policy from "./Policy.js"
import * as QualityGate from "./QualityGate.js"
import * as SummaryPrompt from "./SummaryPrompt.js"
import type * as Transcript from "./Transcript.js"

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
 * The engine's service: what Effect 3's `Compactor.Service` does, on Effect 4
 * (`subscribe` gives a `PubSub.Subscription`, Effect 4's queue of a pubsub).
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** A checkpoint: the view, compacted first when it nears the trigger. */
  readonly checkpoint: (input: CheckpointInput) => Effect.Effect<Checkpoint, CompactionError>
  /** The main model refused the view as too long: compact whatever the count says (never looping). */
  readonly contextOverflow: (input: OverflowInput) => Effect.Effect<Checkpoint, CompactionError>
  /** Compacts now, whatever the trigger says (a manual compaction), the summary asked to follow `instructions`. */
  readonly compactNow: (input: CompactNowInput) => Effect.Effect<Checkpoint, CompactionError>
  /** The engine's count of a message, as a checkpoint counts it. */
  readonly tokensOf: (message: Transcript.Message) => number
  /** Every compaction, as it happens, from when the stream is run. */
  readonly events: Stream.Stream<Compacted>
  /** A subscription to every compaction from now on, for as long as the scope lasts. */
  readonly subscribe: Effect.Effect<PubSub.Subscription<Compacted>, never, Scope.Scope>
}

/**
 * The compaction engine service.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor/effect4"
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
export class Compactor extends Context.Service<Compactor, Service>()("context-compressor/Compactor") {}

/**
 * The default deadline of a checkpoint's automatic summariser attempts: 120 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadline: Duration.Duration = Duration.seconds(Engine.defaultSummaryDeadlineSeconds)

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
 * Options of the engine: Effect 3's `Compactor.Options`, the deadline an Effect 4 `Duration.Input`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends Engine.Options<Policy.Policy> {
  /** How long the summariser's two automatic attempts of one checkpoint may take together (default 120 s). */
  readonly summaryDeadline?: Duration.Input
}

/**
 * Makes the engine from its services.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Compactor.make")(function*(options: Options) {
  const tokenizer = yield* Tokenizer
  const pubsub = yield* PubSub.unbounded<Compacted>()
  const summaryDeadline = Duration.fromInputUnsafe(options.summaryDeadline ?? defaultSummaryDeadline)
  const { compact, counter } = Engine.make({
    face: EngineFace.face,
    count: tokenizer.count,
    settings: yield* Settings.Settings,
    store: yield* CompactionStore,
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
      gate: (summary, options) => EffectFx.resultOf(QualityGate.check(summary, options)),
      keyOf: SummaryCache.keyOf,
      digest: SummaryCache.digest
    },
    memoryCodec: SessionMemory.codec,
    summaryDeadline: { millis: Duration.toMillis(summaryDeadline), text: Duration.format(summaryDeadline) },
    publish: (report) => PubSub.publish(pubsub, report)
  }, options)
  const run = (input: CheckpointInput & CompactNowInput & OverflowInput, cause: Count.Cause) =>
    EffectFx.run<Checkpoint, CompactionError>(function*() {
      return yield* compact(input, cause)
    })

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
 * The engine as a layer over its six services (and the optional archive).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) => Layer.effect(Compactor, make(options))
