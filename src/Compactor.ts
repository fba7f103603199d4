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
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { Attention } from "../services/Attention.js"
import { CompactionStore } from "../services/CompactionStore.js"
import * as Settings from "../services/Settings.js"
import { Summarizer } from "../services/Summarizer.js"
import * as SummaryCache from "../services/SummaryCache.js"
import { Tokenizer } from "../services/Tokenizer.js"
import { TranscriptArchive } from "../services/TranscriptArchive.js"
import { type Checkpoint, type CheckpointInput, type CompactionError, Compacted, type CompactNowInput, type OverflowInput, Repair } from "./Checkpoint.js"
import * as CheckpointErrors from "./internal/checkpoint/CheckpointErrors.js"
import * as CompactionPlan from "./internal/checkpoint/CompactionPlan.js"
import * as Cooperative from "./internal/Cooperative.js"
import * as Count from "./internal/checkpoint/Count.js"
import * as Ladder from "./internal/checkpoint/Ladder.js"
import * as Restore from "./internal/checkpoint/Restore.js"
import * as Save from "./internal/checkpoint/Save.js"
import * as SessionCache from "./internal/checkpoint/SessionCache.js"
import * as Summarise from "./internal/checkpoint/Summarise.js"
import * as SummaryOutcome from "./internal/checkpoint/SummaryOutcome.js"
import type * as ViewFit from "./internal/checkpoint/ViewFit.js"
import * as ViewRepair from "./internal/checkpoint/ViewRepair.js"
import type * as Policy from "./Policy.js"
import * as SummaryPrompt from "./SummaryPrompt.js"
import * as Transcript from "./Transcript.js"

export {
  /**
   * Why a checkpoint could not give a view: `Checkpoint.CompactionError`.
   * @since 0.1.0
   * @category errors
   */
  CompactionError,
  /**
   * One rung of the degradation ladder a view took: `Checkpoint.LadderStep`.
   * @since 0.1.0
   * @category models
   */
  LadderStep,
  /**
   * A repair made in the view, never in the transcript: `Checkpoint.Repair`.
   * @since 0.1.0
   * @category models
   */
  Repair,
  /**
   * What a compaction did, the `Compacted` event: `Checkpoint.Compacted`.
   * @since 0.1.0
   * @category models
   */
  Compacted,
  /**
   * What a checkpoint is told about the session: `Checkpoint.CheckpointInput`.
   * @since 0.1.0
   * @category models
   */
  type CheckpointInput,
  /**
   * What a manual compaction is told: `Checkpoint.CompactNowInput`.
   * @since 0.1.0
   * @category models
   */
  type CompactNowInput,
  /**
   * What `contextOverflow` is told: `Checkpoint.OverflowInput`.
   * @since 0.1.0
   * @category models
   */
  type OverflowInput,
  /**
   * The outbound view and what the checkpoint did: `Checkpoint.Checkpoint`.
   * @since 0.1.0
   * @category models
   */
  type Checkpoint,
  /**
   * The tokens of a checkpoint's view before the ladder: `Checkpoint.tokensBeforeLadder`.
   * @since 0.1.0
   * @category getters
   */
  tokensBeforeLadder,
  /**
   * What a report of a checkpoint says of it: `Checkpoint.reportFields`.
   * @since 0.1.0
   * @category getters
   */
  reportFields
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
  readonly subscribe: Effect.Effect<Queue.Dequeue<Compacted>, never, Scope.Scope>
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
export class Compactor extends Context.Tag("context-compressor/Compactor")<Compactor, Service>() {}

/**
 * The default deadline of a checkpoint's automatic summariser attempts: 120
 * seconds, the two attempts of the chat-completions summariser's default
 * timeout (`SummarizerChatCompletions.defaultTimeout`, 60 s) included.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadline: Duration.Duration = Duration.seconds(120)

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
  readonly summaryDeadline?: Duration.DurationInput
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
export const defaultSessionCacheBytes = 128 * 1024 * 1024

/**
 * How long a checkpoint works before it yields, by default: 10 ms.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSliceMs = 10

/**
 * Makes the engine from its services. A checkpoint is a line of stages, each in `internal/`: repair →
 * restore → count → plan → summarise → fit (the ladder) → save; a view under the trigger goes from count to fit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Compactor.make")(function*(options: Options) {
  const tokenizer = yield* Tokenizer
  const settingsService = yield* Settings.Settings
  const store = yield* CompactionStore
  // Optional: without an archive, the block says the session's transcript keeps the moved-out messages.
  const archive = yield* Effect.serviceOption(TranscriptArchive)
  const pubsub = yield* PubSub.unbounded<Compacted>()
  const sessions = SessionCache.make(options.sessionCacheBytes ?? defaultSessionCacheBytes, store.memory)
  const archiveClipped = Save.clippedArchiver(archive)
  const counter = Count.counter(tokenizer.count)
  const maxLostSaves = options.maxLostSaves ?? 5
  const sliceMs = options.sliceMs ?? defaultSliceMs
  const summarizeOnce = SummaryOutcome.make({
    summarizer: yield* Summarizer,
    cache: yield* SummaryCache.SummaryCache,
    attention: yield* Attention,
    maxAskedRetries: options.maxAskedRetries ?? 3,
    summaryDeadline: Duration.decode(options.summaryDeadline ?? defaultSummaryDeadline),
    restoreOpening: SummaryPrompt.restoreOpening
  })
  const summarise = Summarise.make({ summarizeOnce, buildRequest: SummaryPrompt.buildWithTotals, buildSharedPrefix: SummaryPrompt.buildSharedPrefix, policies: options.policies, systemPrompt: options.summarizerSystemPrompt })

  // A view found invalid after the repair scan trusted an earlier scan's prefix is made again from a whole scan (a
  // caller that changed messages in place costs a rescan, never a wrong view). What the ladder cut is archived whole.
  const compact = (input: CompactNowInput & OverflowInput, cause: Count.Cause, lostSaves = 0): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.suspend(() => {
      const session = sessions.get(input.sessionId)
      const rescan = () => ((session.clean = ViewRepair.empty), checkpointOnce(input, cause, lostSaves))
      return Effect.catchIf(checkpointOnce(input, cause, lostSaves), (error) => error.reason === "invalid-view" && session.clean.trusted, rescan).pipe(
        Effect.tap((checkpoint) => Effect.zipRight(archiveClipped({ ...input, compaction: Option.match(checkpoint.compacted, { onNone: () => 0, onSome: (c) => c.compactions }), ladder: checkpoint.ladder }), sessions.persist(input.sessionId)))
      )
    })

  const checkpointOnce = (input: CompactNowInput & OverflowInput, cause: Count.Cause, lostSaves: number): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.gen(function*() {
      const { sessionId } = input
      const settings = Settings.clamp(yield* settingsService.current)
      const session = yield* sessions.load(sessionId)
      const tokens = counter.of(session)
      // A long checkpoint gives the event loop a turn every slice of work (the stages pause; `breathe` between them).
      const clock = Cooperative.slice(sliceMs)
      const breathe = Effect.suspend(() => (clock.spent() ? clock.pause : Effect.void))
      const state = yield* Effect.mapError(store.load(sessionId), CheckpointErrors.store(sessionId))

      // repair: lost and duplicated results are repaired in the view's copy of the transcript, never in the transcript.
      const repaired = ViewRepair.repairView(input.transcript, session.clean)
      session.clean = repaired.clean
      if (repaired._tag === "Malformed") return yield* CheckpointErrors.malformed(sessionId, repaired.malformed)
      const { renamed, transcript } = repaired
      const repairs = repaired.repairs.map((repair) => new Repair(repair))
      yield* breathe

      // restore: the view the persisted state gives, with the head already sent as it went.
      const restored = Restore.restore(transcript, Option.getOrUndefined(state), session)
      yield* breathe

      // count: the view's tokens and the budget they give.
      const counted = Count.budget({ settings, input, cause, counted: yield* Count.count(restored.view, tokens, clock), lastSent: session.lastSent, replyReserveIn: options.levers?.replyReserveIn })
      const { trigger, viewTokens } = counted
      yield* Option.match(Option.fromNullable(CheckpointErrors.overheadTooLarge(sessionId, counted)), { onNone: () => Effect.void, onSome: Effect.fail })
      const recall = Option.isSome(archive) && archive.value.lookup !== undefined ? { sessionId, transcript } : undefined
      const fit = Ladder.fitOf({ settings, counted, policies: options.policies, firstUserMessage: Transcript.firstUserMessage(transcript), tokens, recall })
      const settle = (checkpoint: Omit<Checkpoint, "repairs">, base: Transcript.Transcript = restored.restoredView): Checkpoint =>
        sessions.settle(sessionId, session, { checkpoint, base, transcriptLength: input.transcript.length, renamed, repairs })
      const uncompacted = (fitted: ViewFit.Fitted, viewTokens: number) =>
        settle({ view: fitted.view, tokens: viewTokens, trigger, compacted: Option.none(), ladder: Ladder.ladderOf(fit, fitted.steps) })
      const failure = CheckpointErrors.ofLadder(sessionId, { settings, counted, cause })

      // fit, under the trigger: the view as it is, or with its new messages too big for any view cut.
      const statePath = Option.getOrUndefined(state)?.archivePath
      if (cause === "trigger") {
        if (viewTokens + counted.replyReserve <= trigger) {
          const steady = Ladder.underTrigger(fit, restored, { counted: counted.counted, viewTokens, targetAfter: counted.targetAfter, archivePath: statePath })
          if (steady.violations.length > 0) return yield* CheckpointErrors.invalidView(sessionId, steady.violations)
          return uncompacted(steady.fitted, viewTokens - (counted.counted - steady.fitted.tokens))
        }
        const cutNew = Ladder.newMessagesCut(fit, restored, { settings, counted, archivePath: statePath })
        if (cutNew !== undefined) return uncompacted(cutNew.fitted, cutNew.tokens)
      }

      // plan: where the compaction may cut, and what each cut gives.
      const compactions = Option.match(state, { onNone: () => 1, onSome: (s) => s.compactions + 1 })
      const plan = CompactionPlan.planWithin({
        transcript, restored: restored.restored, view: restored.view, compactions, settings, trigger: counted.messagesTrigger,
        targetAfter: counted.targetAfter, manual: cause === "manual", tokens, count: tokenizer.count, sessionId, blockLayout: options.levers?.blockLayout,
        archivePathOf: Save.locator(archive, { sessionId, compactions, renamed }) })
      yield* breathe
      if (plan.boundary === undefined) {
        const nothing = CheckpointErrors.nothingOlder(transcript[restored.restored.from]?.id ?? restored.restored.from)
        // Asked to compact, a manual compaction with nothing to compact says so.
        if (cause === "manual") return yield* CheckpointErrors.of(sessionId, "cannot-fit", nothing)
        const whole = Ladder.withoutCompaction(fit, restored, nothing)
        if (whole._tag !== "Fitted") return yield* failure(whole)
        const stuck = CheckpointErrors.stuck(sessionId, counted, cause, whole.fitted.tokens, nothing)
        return stuck === undefined ? uncompacted(whole.fitted, whole.fitted.tokens) : yield* stuck
      }

      // summarise: the summary of the span the boundary moves out, or a trim.
      const instructions = cause === "manual" ? input.instructions : undefined
      const summarised = yield* summarise(plan, plan.boundary, { sessionId, settings, model: input.model, trigger, instructions, clock, sent: { ...restored, transcriptLength: transcript.length, renamed } })

      // fit: the summary's view, else a trim at later cuts, and the ladder's rungs on the view chosen.
      const archived = Save.archiveOf(archive, { sessionId, compactions, plan, renamed })
      const trimReason = summarised.outcome._tag === "Trim" ? summarised.outcome.reason : undefined
      const compaction = { plan, boundary: plan.boundary, summary: summarised.summary, trimReason, counted: counted.counted, manual: cause === "manual" }
      const fitted = yield* Cooperative.run(Ladder.fitSteps(compaction, fit), clock)
      if (fitted._tag !== "Fitted") return yield* failure(fitted)
      const noGain = CheckpointErrors.noGain(sessionId, counted, cause, fitted.fitted.degraded.tokens)
      if (noGain !== undefined) return yield* noGain

      // save: the archive, then the state over the one the checkpoint started from, and the report.
      const saved = yield* Save.save(store, archived, {
        sessionId, cause, compactions, transcript, prefix: restored.restored.prefix, plan, fit, fitted: fitted.fitted, summarised, counted, repairs
      })
      if (saved._tag === "Conflict") {
        if (lostSaves + 1 >= maxLostSaves) return yield* CheckpointErrors.lostSaves(sessionId, lostSaves + 1, saved.current.compactions)
        // Another worker compacted the session first: its state stands. The view is rebuilt from it as a
        // reload would; the reported context tokens were of the view before, so they are not used.
        yield* Effect.logDebug(`context-compressor: session ${sessionId} was compacted by another worker first (compaction ${saved.current.compactions}); its state is used`)
        return yield* compact({ ...input, reportedContextTokens: undefined }, "trigger", lostSaves + 1)
      }
      const { fitted: { built, cut, degraded }, report } = saved
      session.boundaryHint = cut
      session.pinnedHint = built.pinned
      yield* PubSub.publish(pubsub, report)
      return settle({ view: degraded.view, tokens: report.tokensAfter, trigger, compacted: Option.some(report), ladder: report.ladder }, saved.base)
    })

  return Compactor.of({
    checkpoint: (input) => compact(input, "trigger"),
    contextOverflow: (input) => compact(input, "overflow"),
    compactNow: (input) => compact(input, "manual"),
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
