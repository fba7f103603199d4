/**
 * A checkpoint as its line of stages: repair → restore → count → plan →
 * summarise → fit → save, each a module of `internal/checkpoint/`, with the
 * event loop given a turn between them; a view under the trigger goes from
 * count to fit. `Compactor.make` builds the engine's services and runs this
 * line for each checkpoint: the engine's face holds no stage.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CompactionState, CompactionStore } from "../../../services/CompactionStore.js"
import * as Settings from "../../../services/Settings.js"
import type { TranscriptArchive } from "../../../services/TranscriptArchive.js"
import {
  type Checkpoint,
  type Compacted,
  type CompactionError,
  type CompactNowInput,
  LadderStep,
  type OverflowInput,
  Repair
} from "../../Checkpoint.js"
import type * as Policy from "../../Policy.js"
import * as Cooperative from "../Cooperative.js"
import * as Transcript from "../transcript/TranscriptData.js"
import type * as WorkingState from "../working-state/WorkingState.js"
import * as Boundary from "./Boundary.js"
import * as CheckpointErrors from "./CheckpointErrors.js"
import * as CompactionPlan from "./CompactionPlan.js"
import * as Count from "./Count.js"
import * as Ladder from "./Ladder.js"
import * as Restore from "./Restore.js"
import * as RestoredView from "./RestoredView.js"
import * as Save from "./Save.js"
import * as SessionCache from "./SessionCache.js"
import type * as Summarise from "./Summarise.js"
import * as ViewFit from "./ViewFit.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * What the line of stages runs on: the engine's services and options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Engine {
  readonly settings: Settings.Settings["Type"]
  readonly store: CompactionStore["Type"]
  /** Optional: without an archive, the block says the session's transcript keeps the moved-out messages. */
  readonly archive: Option.Option<TranscriptArchive["Type"]>
  /** The tokenizer's count of a text. */
  readonly count: (text: string) => number
  readonly counter: Count.Counter
  readonly sessions: SessionCache.Sessions
  /** The summarise stage, made with the engine's summary policy and request builders. */
  readonly summarise: ReturnType<typeof Summarise.make>
  readonly policies: ReadonlyArray<Policy.Policy>
  readonly maxLostSaves: number
  readonly sliceMs: number
  readonly levers?: {
    readonly replyReserveIn?: "window" | "trigger"
    readonly blockLayout?: "reuse" | "summary"
  } | undefined
  /** The face's working state of the core's plain data (`WorkingState.fromData`), which the state saved holds. */
  readonly workingStateOf: (state: WorkingState.WorkingState) => NonNullable<CompactionState["workingState"]>
  /** Tells the engine's subscribers of a compaction saved. */
  readonly publish: (report: Compacted) => Effect.Effect<unknown>
}

/**
 * The checkpoint of an engine: given its input and what entered it, the view.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (engine: Engine) => {
  const { archive, counter, maxLostSaves, sessions, settings: settingsService, sliceMs, store, summarise } = engine
  const options = engine
  const archiveClipped = Save.clippedArchiver(archive)
  // What the engine remembers across checkpoints so that the same view gives the same message objects (their
  // token counts cached with them): pinned assistant messages narrowed to their calls (in the restored view and
  // the blocks built), the rungs' copies.
  const narrowed = RestoredView.narrowedMemo()
  const rungs = ViewFit.memo()
  // Which tool results stage an approval, read once per message: the plan and the working state read them all.
  const staged = Boundary.stagedMemo()

  // One attempt of a checkpoint: what its stages change in the session's memory is applied at its end, whatever
  // the end (a failed attempt's repair scan and counts are kept too).
  const attempt = (
    input: CompactNowInput & OverflowInput,
    cause: Count.Cause,
    lostSaves: number,
    clean: ViewRepair.Clean | undefined
  ): Effect.Effect<Attempt, CompactionError> =>
    Effect.suspend(() => {
      const changes: SessionCache.Changes = {}
      return Effect.ensuring(
        checkpointOnce(input, cause, lostSaves, clean, changes),
        Effect.sync(() => sessions.commit(input.sessionId, changes))
      )
    })

  // A view found invalid after the repair scan trusted an earlier scan's prefix is made again from a whole scan (a
  // caller that changed messages in place costs a rescan, never a wrong view). A save another worker won is run
  // again over the winner's state. What the ladder cut is archived whole.
  const compact = (
    input: CompactNowInput & OverflowInput,
    cause: Count.Cause,
    lostSaves = 0
  ): Effect.Effect<Checkpoint, CompactionError> =>
    attempt(input, cause, lostSaves, undefined).pipe(
      Effect.catchIf(
        (error) => error.reason === "invalid-view" && sessions.get(input.sessionId).clean.trusted,
        () => attempt(input, cause, lostSaves, ViewRepair.empty)
      ),
      Effect.flatMap((outcome): Effect.Effect<Checkpoint, CompactionError> => {
        if (outcome._tag === "Lost") {
          // Another worker compacted the session first: its state stands. The view is rebuilt from it as a
          // reload would; the reported context tokens were of the view before, so they are not used.
          return Effect.zipRight(
            Effect.logDebug(
              `context-compressor: session ${input.sessionId} was compacted by another worker first ` +
                `(compaction ${outcome.current}); its state is used`
            ),
            compact({ ...input, reportedContextTokens: undefined }, "trigger", lostSaves + 1)
          )
        }
        const { checkpoint } = outcome
        const compaction = Option.match(checkpoint.compacted, { onNone: () => 0, onSome: (c) => c.compactions })
        return Effect.as(
          Effect.zipRight(
            archiveClipped({ ...input, compaction, ladder: checkpoint.ladder }),
            sessions.persist(input.sessionId)
          ),
          checkpoint
        )
      })
    )

  const checkpointOnce = (
    input: CompactNowInput & OverflowInput,
    cause: Count.Cause,
    lostSaves: number,
    rescan: ViewRepair.Clean | undefined,
    changes: SessionCache.Changes
  ): Effect.Effect<Attempt, CompactionError> =>
    Effect.gen(function*() {
      const { sessionId } = input
      const settings = Settings.clamp(yield* settingsService.current)
      // The session's memory as this checkpoint reads it; what the stages change goes to `changes`.
      const session = yield* sessions.load(sessionId)
      const counting = counter.of(session.counts)
      changes.counts = counting.fresh
      const { tokens } = counting
      // A long checkpoint gives the event loop a turn every slice of work (the stages pause; `breathe` between them).
      const clock = Cooperative.slice(sliceMs)
      const breathe = Effect.suspend(() => (clock.spent() ? clock.pause : Effect.void))
      const state = yield* Effect.mapError(store.load(sessionId), CheckpointErrors.store(sessionId))

      // repair: lost and duplicated results are repaired in the view's copy of the transcript, never in the transcript.
      const repaired = ViewRepair.repairView(input.transcript, rescan ?? session.clean)
      changes.clean = repaired.clean
      if (repaired._tag === "Malformed") return yield* CheckpointErrors.malformed(sessionId, repaired.malformed)
      const { renamed, transcript } = repaired
      const repairs = repaired.repairs.map((repair) => new Repair(repair))
      yield* breathe

      // restore: the view the persisted state gives, with the head already sent as it went.
      const restored = Restore.restore(transcript, Option.getOrUndefined(state), session, narrowed)
      changes.hints = restored.restored.hints
      if (session.pendingView !== undefined) changes.restored = { lastView: restored.lastView }
      yield* breathe

      // count: the view's tokens and the budget they give.
      const counted = Count.budget({
        settings,
        input,
        cause,
        counted: yield* Cooperative.run(Count.countSteps(restored.view, tokens), clock),
        lastSent: session.lastSent,
        replyReserveIn: options.levers?.replyReserveIn
      })
      const { trigger, viewTokens } = counted
      const overhead = CheckpointErrors.overheadTooLarge(sessionId, counted)
      if (overhead !== undefined) return yield* overhead
      const recall = Option.isSome(archive) && archive.value.lookup !== undefined
        ? { sessionId, transcript }
        : undefined
      const fit = Ladder.fitOf({
        settings,
        counted,
        policies: options.policies,
        firstUserMessage: Transcript.firstUserMessage(transcript),
        tokens,
        recall,
        memo: rungs
      })
      const settle = (
        checkpoint: Omit<Checkpoint, "repairs">,
        base: Transcript.Transcript = restored.restoredView
      ): Attempt => {
        const settled = SessionCache.settle(session, {
          checkpoint,
          base,
          lastView: restored.lastView,
          transcriptLength: input.transcript.length,
          renamed,
          repairs
        })
        changes.settled = settled.settled
        return { _tag: "Done", checkpoint: settled.checkpoint }
      }
      const uncompacted = (fitted: ViewFit.Fitted, viewTokens: number) =>
        settle({
          view: fitted.view,
          tokens: viewTokens,
          trigger,
          compacted: Option.none(),
          ladder: Ladder.ladderOf(fit, fitted.steps).map((step) => new LadderStep(step))
        })
      const failure = CheckpointErrors.ofLadder(sessionId, { settings, counted, cause })

      // fit, under the trigger: the view as it is, or with its new messages too big for any view cut.
      const statePath = Option.getOrUndefined(state)?.archivePath
      if (cause === "trigger") {
        if (viewTokens + counted.replyReserve <= trigger) {
          const steady = Ladder.underTrigger(fit, restored, {
            counted: counted.counted,
            viewTokens,
            targetAfter: counted.targetAfter,
            archivePath: statePath
          })
          if (steady.violations.length > 0) return yield* CheckpointErrors.invalidView(sessionId, steady.violations)
          return uncompacted(steady.fitted, viewTokens - (counted.counted - steady.fitted.tokens))
        }
        const cutNew = Ladder.newMessagesCut(fit, restored, { settings, counted, archivePath: statePath })
        if (cutNew !== undefined) return uncompacted(cutNew.fitted, cutNew.tokens)
      }

      // plan: where the compaction may cut, and what each cut gives.
      const compactions = Option.match(state, { onNone: () => 1, onSome: (s) => s.compactions + 1 })
      const plan = CompactionPlan.planWithin({
        transcript,
        restored: restored.restored,
        view: restored.view,
        compactions,
        settings,
        trigger: counted.messagesTrigger,
        targetAfter: counted.targetAfter,
        manual: cause === "manual",
        tokens,
        sessionId,
        blockLayout: options.levers?.blockLayout,
        staged
      })
      // What the stages after the plan compute per cut (its working state, its archive path), kept for this checkpoint.
      const cuts = CompactionPlan.cutsOf({
        count: engine.count,
        archivePathOf: Save.locator(archive, { sessionId, compactions, renamed }),
        narrowed,
        staged
      })
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
      const summarised = yield* summarise(plan, cuts, plan.boundary, {
        sessionId,
        settings,
        model: input.model,
        trigger,
        instructions,
        clock,
        sent: { ...restored, transcriptLength: transcript.length, renamed }
      })

      // fit: the summary's view, else a trim at later cuts, and the ladder's rungs on the view chosen.
      const archived = Save.archiveOf(archive, { sessionId, compactions, plan, renamed })
      const trimReason = summarised.outcome._tag === "Trim" ? summarised.outcome.reason : undefined
      const compaction = {
        plan,
        cuts,
        boundary: plan.boundary,
        summary: summarised.summary,
        trimReason,
        counted: counted.counted,
        manual: cause === "manual"
      }
      const fitted = yield* Cooperative.run(Ladder.fitSteps(compaction, fit), clock)
      if (fitted._tag !== "Fitted") return yield* failure(fitted)
      const noGain = CheckpointErrors.noGain(sessionId, counted, cause, fitted.fitted.degraded.tokens)
      if (noGain !== undefined) return yield* noGain

      // save: the archive, the view fitted to what it holds (Ladder.afterArchive), then the state over the one the
      // checkpoint started from, and the report.
      const written = yield* archived.write(fitted.fitted.cut)
      const settled = Ladder.afterArchive(compaction, fit, fitted.fitted, {
        archived: written !== "failed",
        targetAfter: counted.targetAfter
      })
      const saved = yield* Save.save(store, {
        sessionId,
        cause,
        compactions,
        transcript,
        prefix: restored.restored.prefix,
        fit,
        fitted: settled,
        workingState: engine.workingStateOf(CompactionPlan.workingStateAt(plan, cuts, settled.cut)),
        summarised,
        counted,
        repairs
      })
      if (saved._tag === "Conflict") {
        if (lostSaves + 1 >= maxLostSaves) {
          return yield* CheckpointErrors.lostSaves(sessionId, lostSaves + 1, saved.current.compactions)
        }
        return { _tag: "Lost", current: saved.current.compactions } as const
      }
      const { fitted: { built, cut, degraded }, report } = saved
      changes.hints = { boundaryHint: cut, pinnedHint: built.pinned }
      yield* engine.publish(report)
      return settle({
        view: degraded.view,
        tokens: report.tokensAfter,
        trigger,
        compacted: Option.some(report),
        ladder: report.ladder
      }, saved.base)
    })

  return (input: CompactNowInput & OverflowInput, cause: Count.Cause): Effect.Effect<Checkpoint, CompactionError> =>
    sessions.serialized(input.sessionId, compact(input, cause))
}

/** How one attempt of a checkpoint ended: its view, or another worker's save first (the compaction it saved). */
type Attempt =
  | { readonly _tag: "Done"; readonly checkpoint: Checkpoint }
  | { readonly _tag: "Lost"; readonly current: number }
