/**
 * A checkpoint as its line of stages: repair → restore → count → plan →
 * summarise → fit → save, each a module of `core/checkpoint/`, with the
 * event loop given a turn between them; a view under the trigger goes from
 * count to fit. `Compactor.make` builds the engine's services and runs this
 * line for each checkpoint: the engine's face holds no stage.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Boundary from "../../../../core/checkpoint/Boundary.js"
import type * as CheckpointData from "../../../../core/checkpoint/CheckpointData.js"
import * as CheckpointFailures from "../../../../core/checkpoint/CheckpointFailures.js"
import * as CompactionPlan from "../../../../core/checkpoint/CompactionPlan.js"
import * as Count from "../../../../core/checkpoint/Count.js"
import * as Ladder from "../../../../core/checkpoint/Ladder.js"
import * as Restore from "../../../../core/checkpoint/Restore.js"
import * as RestoredView from "../../../../core/checkpoint/RestoredView.js"
import * as SameMessage from "../../../../core/checkpoint/SameMessage.js"
import * as ViewFit from "../../../../core/checkpoint/ViewFit.js"
import * as ViewRepair from "../../../../core/checkpoint/ViewRepair.js"
import type * as RuleData from "../../../../core/reduce/RuleData.js"
import * as SettingsValues from "../../../../core/services/SettingsValues.js"
import * as Transcript from "../../../../core/transcript/TranscriptData.js"
import * as TranscriptModel from "../../../models/Transcript.js"
import { CompactionState } from "../../../services/CompactionStore.js"
import * as Checkpoint from "../../Checkpoint.js"
import * as Session from "../../Session.js"
import * as WorkingStateModel from "../../WorkingState.js"
import * as Cooperative from "../Cooperative.js"
import * as Save from "./Save.js"
import * as SessionCache from "./SessionCache.js"
import type * as Summarise from "./Summarise.js"

/**
 * What the line of stages runs on: the classes of its values, the engine's
 * services (as their `Service`s are shaped) and options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Engine<Request extends SaveRequestShape> {
  readonly settings: { readonly current: Effect.Effect<SettingsValues.SettingsShape> }
  readonly store: Save.StoreShape & {
    /** Fails with the store's `StoreError`. */
    readonly load: (sessionId: string) => Effect.Effect<Option.Option<CompactionState>, { readonly reason: string }>
  }
  /** Optional: without an archive, the block says the session's transcript keeps the moved-out messages. */
  readonly archive: Save.ArchiveShape | undefined
  /** The tokenizer's count of a text. */
  readonly count: (text: string) => number
  readonly counter: Count.Counter
  /** The engine's digests of messages, once per message object (`SameMessage`). */
  readonly digests: SameMessage.Digests
  readonly sessions: SessionCache.Sessions
  /** The summarise stage, made with the engine's summary policy and request builders (`Summarise.make`). */
  readonly summarise: (
    plan: CompactionPlan.Plan,
    cuts: CompactionPlan.Cuts,
    boundary: number,
    asked: Summarise.Asked
  ) => Effect.Effect<Summarise.Summarised<Request>>
  readonly policies: ReadonlyArray<RuleData.Policy>
  readonly maxLostSaves: number
  readonly sliceMs: number
  readonly levers?: {
    readonly replyReserveIn?: "window" | "trigger"
    readonly blockLayout?: "reuse" | "summary"
  } | undefined
  /** Tells the engine's subscribers of a compaction saved. */
  readonly publish: (report: Checkpoint.Compacted) => Effect.Effect<unknown>
}

/**
 * What the saved report reads of a summariser request.
 *
 * @since 0.1.0
 * @category models
 */
export interface SaveRequestShape {
  readonly instructions?: string | undefined
  readonly prefix?: unknown
}

/**
 * What a checkpoint is asked with: the three entries' inputs in one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input extends Count.Input {
  readonly sessionId: string
  readonly transcript: Transcript.Transcript
  readonly model: string
  readonly instructions?: string | undefined
  /** A manual compaction's summariser instruction, in place of the built-in one (`Checkpoint.CompactNowInput`). */
  readonly summaryPrompt?: string | undefined
  /** The id was derived from the transcript's opening: another history that opens alike goes to a branch (`Checkpoint.CheckpointInput`). */
  readonly sessionIdDerived?: boolean | undefined
}

/**
 * The checkpoint of an engine: given its input and what entered it, the view.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Request extends SaveRequestShape>(
  engine: Engine<Request>
): (input: Input, cause: Count.Cause) => Effect.Effect<Checkpoint.Checkpoint, Checkpoint.CompactionError> => {
  const {
    archive,
    counter,
    digests,
    maxLostSaves,
    sessions,
    settings: settingsService,
    sliceMs,
    store,
    summarise
  } = engine
  const options = engine
  const archiveClipped = Save.clippedArchiver(archive)
  // What the engine remembers across checkpoints so that the same view gives the same message objects (their
  // token counts cached with them): pinned assistant messages narrowed to their calls (in the restored view and
  // the blocks built), the rungs' copies.
  const narrowed = RestoredView.narrowedMemo()
  const rungs = ViewFit.memo()
  // Which tool results stage an approval, read once per message: the plan and the working state read them all.
  const staged = Boundary.stagedMemo()
  const fail = (failure: CheckpointFailures.Failure) => Effect.fail(Checkpoint.fromFailure(failure))

  // One attempt of a checkpoint: what its stages change in the session's memory is applied at its end, whatever
  // the end (a failed attempt's repair scan and counts are kept too).
  const attempt = (
    input: Input,
    cause: Count.Cause,
    lostSaves: number,
    clean: ViewRepair.Clean | undefined
  ): Effect.Effect<Attempt, Checkpoint.CompactionError> =>
    Effect.suspend(() => {
      const changes: SessionCache.Changes = {}
      return Effect.ensuring(
        checkpointOnce(input, cause, lostSaves, clean, changes),
        Effect.sync(() => sessions.commit(input.sessionId, changes))
      )
    })

  // A view found invalid after the repair scan trusted an earlier scan's prefix is made again from a whole scan (a
  // caller that changed messages in place costs a rescan, never a wrong view). A save another worker won is run
  // again over the winner's state. What the ladder cut is archived whole. A derived id's history that belongs
  // elsewhere ends with the branch it goes to.
  const compact = (
    input: Input,
    cause: Count.Cause,
    lostSaves = 0
  ): Effect.Effect<Compacted, Checkpoint.CompactionError> =>
    Effect.gen(function*() {
      const outcome = yield* attempt(input, cause, lostSaves, undefined).pipe(
        Compat.catch((error) =>
          error.reason === "invalid-view" && sessions.get(input.sessionId).clean.trusted
            ? attempt(input, cause, lostSaves, ViewRepair.empty)
            : Effect.fail(error)
        )
      )
      if (outcome._tag === "Elsewhere") {
        // Another history that opens alike holds the derived id: this one is kept under a branch of it, chosen
        // under the id's lock and claimed there (another new history then chooses another one).
        return { _tag: "Elsewhere", branch: yield* branchOf(input, outcome.seen) }
      }
      if (outcome._tag === "Lost") {
        // Another worker compacted the session first: its state stands. The view is rebuilt from it as a
        // reload would; the reported context tokens were of the view before, so they are not used.
        yield* Effect.logDebug(
          `context-compressor: session ${input.sessionId} was compacted by another worker first ` +
            `(compaction ${outcome.current}); its state is used`
        )
        return yield* compact({ ...input, reportedContextTokens: undefined }, "trigger", lostSaves + 1)
      }
      const { checkpoint } = outcome
      const compaction = checkpoint.compacted?.compactions ?? 0
      yield* archiveClipped({ ...input, compaction, ladder: checkpoint.ladder })
      yield* sessions.persist(input.sessionId)
      return { _tag: "Done", checkpoint: { ...checkpoint, sessionId: input.sessionId } }
    })

  // The branch of a derived id (Session.branchOf) a history goes to when the id's own compaction was not made from
  // it: the branch whose compaction was (restored by content, as a checkpoint restores), else the first without
  // one, else the one saved longest ago; claimed for the history (`seen`, as the attempt digested it).
  const branchOf = (input: Input, seen: SessionCache.Seen): Effect.Effect<string, Checkpoint.CompactionError> =>
    Effect.gen(function*() {
      const repaired = ViewRepair.repairView(input.transcript, ViewRepair.empty, TranscriptModel.kit, digests)
      const transcript = repaired._tag === "Malformed" ? input.transcript : repaired.transcript
      const branches = Session.branchesOf(input.sessionId).slice(1)
      let free: string | undefined
      let oldest: { readonly id: string; readonly at: number } | undefined
      for (const id of branches) {
        const state = Option.getOrUndefined(
          yield* Effect.mapError(store.load(id), (error) => Checkpoint.fromFailure(CheckpointFailures.store(id)(error)))
        )
        if (state === undefined) {
          // No compaction yet: the branch whose last transcript this one begins with, else one nothing is known of.
          const lastSeen = yield* sessions.seen(id)
          if (lastSeen === undefined) free ??= id
          else if (continues(SameMessage.digestsOfRun(input.transcript, lastSeen.length, digests), lastSeen)) return id
          continue
        }
        if (Restore.restoreState(transcript, state, noHints, digests).restored) return id
        if (oldest === undefined || state.updatedAt < oldest.at) oldest = { id, at: state.updatedAt }
      }
      const chosen = free ?? oldest?.id ?? branches[branches.length - 1]!
      sessions.claim(chosen, seen)
      return chosen
    })

  const checkpointOnce = (
    input: Input,
    cause: Count.Cause,
    lostSaves: number,
    rescan: ViewRepair.Clean | undefined,
    changes: SessionCache.Changes
  ): Effect.Effect<Attempt, Checkpoint.CompactionError> =>
    Effect.gen(function*() {
      const { sessionId } = input
      const settings = SettingsValues.clamp(yield* settingsService.current)
      // The session's memory as this checkpoint reads it; what the stages change goes to `changes`.
      const session = yield* sessions.load(sessionId)
      const counting = counter.of(session.counts)
      changes.counts = counting.fresh
      const { tokens } = counting
      // A long checkpoint gives the event loop a turn every slice of work (the stages pause; `breathe` between them).
      const clock = Cooperative.slice(sliceMs)
      const state = Option.getOrUndefined(
        yield* Effect.mapError(
          store.load(sessionId),
          (error) => Checkpoint.fromFailure(CheckpointFailures.store(sessionId)(error))
        )
      )

      // repair: lost and duplicated results are repaired in the view's copy of the transcript, never in the transcript.
      const repaired = ViewRepair.repairView(input.transcript, rescan ?? session.clean, TranscriptModel.kit, digests)
      if (repaired._tag === "Malformed") {
        changes.clean = repaired.clean
        return yield* fail(CheckpointFailures.malformed(sessionId, repaired.malformed))
      }
      const { renamed, repairs, transcript } = repaired
      yield* Cooperative.breathe(clock)

      // restore: the view the persisted state gives, with the head already sent as it went.
      const restored = Restore.restore(transcript, state, session, TranscriptModel.kit, narrowed, digests)
      // A derived id's compaction made from another history (one that opens alike), or with none saved, a last
      // transcript this one does not begin with: this history goes to a branch.
      const run = input.sessionIdDerived === undefined
        ? undefined
        : SameMessage.digestsOfRun(input.transcript, session.lastSeen?.length, digests)
      const seen = run === undefined ? undefined : { length: input.transcript.length, digest: run.all }
      if (
        input.sessionIdDerived === true &&
        (state !== undefined ? !restored.restored.restored : !continues(run!, session.lastSeen))
      ) return { _tag: "Elsewhere", seen: seen! }
      // The transcript's digest, by which an overflow knows the last view sent: the repair stage's scan took it of a
      // clean transcript, a derived id's run above of any.
      const transcriptDigest = run?.all ??
        (repaired.clean.checked === input.transcript.length && repaired.clean.digest !== undefined
          ? repaired.clean.digest
          : SameMessage.digestOfAll(input.transcript, digests))
      changes.clean = repaired.clean
      changes.hints = restored.restored.hints
      if (session.pendingView !== undefined) changes.restored = { lastView: restored.lastView }
      yield* Cooperative.breathe(clock)

      // count: the view's tokens and the budget they give. A report of another compaction's view than the one
      // restored (an answer lost after the session compacted) is not believed: the view is counted.
      const inForce = restored.restored.block === undefined ? 0 : state?.compactions ?? 0
      const reportOf = input.reportedCompactions === undefined || input.reportedCompactions === inForce
        ? input
        : { ...input, reportedContextTokens: undefined }
      const counted = Count.budget({
        settings,
        input: reportOf,
        cause,
        counted: yield* Cooperative.run(Count.countSteps(restored.view, tokens), clock),
        lastSent: session.lastSent,
        transcriptDigest,
        replyReserveIn: options.levers?.replyReserveIn
      })
      const { trigger, viewTokens } = counted
      const overhead = CheckpointFailures.overheadTooLarge(sessionId, counted)
      if (overhead !== undefined) return yield* fail(overhead)
      const recall = archive !== undefined && archive.lookup !== undefined ? { sessionId, transcript } : undefined
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
        checkpoint: Omit<CheckpointData.CheckpointData<Checkpoint.Compacted>, "repairs">,
        base: Transcript.Transcript = restored.restoredView
      ): Attempt => {
        const settled = SessionCache.settle(session, {
          checkpoint,
          base,
          lastView: restored.lastView,
          transcriptLength: input.transcript.length,
          transcriptDigest,
          renamed,
          repairs
        })
        changes.settled = settled.settled
        if (seen !== undefined) changes.seen = seen
        return { _tag: "Done", checkpoint: settled.checkpoint }
      }
      const uncompacted = (fitted: ViewFit.Fitted, viewTokens: number) =>
        settle({
          view: fitted.view,
          tokens: viewTokens,
          trigger,
          compacted: undefined,
          ladder: Ladder.ladderOf(fit, fitted.steps)
        })
      const failure = CheckpointFailures.ofLadder(sessionId, { settings, counted, cause })

      // fit, under the trigger: the view as it is, or with its new messages too big for any view cut.
      const statePath = state?.archivePath
      if (cause === "trigger") {
        if (viewTokens + counted.replyReserve <= trigger) {
          const steady = Ladder.underTrigger(fit, restored, {
            counted: counted.counted,
            viewTokens,
            targetAfter: counted.targetAfter,
            archivePath: statePath
          })
          if (steady.violations.length > 0) {
            return yield* fail(CheckpointFailures.invalidView(sessionId, steady.violations))
          }
          return uncompacted(steady.fitted, viewTokens - (counted.counted - steady.fitted.tokens))
        }
        const cutNew = Ladder.newMessagesCut(fit, restored, { settings, counted, archivePath: statePath })
        if (cutNew !== undefined) return uncompacted(cutNew.fitted, cutNew.tokens)
      }

      // plan: where the compaction may cut, and what each cut gives.
      const compactions = state === undefined ? 1 : state.compactions + 1
      const plan = CompactionPlan.planWithin({
        transcript,
        kit: TranscriptModel.kit,
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
      yield* Cooperative.breathe(clock)
      if (plan.boundary === undefined) {
        const nothing = CheckpointFailures.nothingOlder(
          transcript[restored.restored.from]?.id ?? restored.restored.from
        )
        // Asked to compact, a manual compaction with nothing to compact says so.
        if (cause === "manual") return yield* fail(CheckpointFailures.of(sessionId, "cannot-fit", nothing))
        const whole = Ladder.withoutCompaction(fit, restored, nothing)
        if (whole._tag !== "Fitted") return yield* fail(failure(whole))
        const stuck = CheckpointFailures.stuck(sessionId, counted, cause, whole.fitted.tokens, nothing)
        return stuck === undefined ? uncompacted(whole.fitted, whole.fitted.tokens) : yield* fail(stuck)
      }

      // summarise: the summary of the span the boundary moves out, or a trim.
      const instructions = cause === "manual" ? input.instructions : undefined
      const summarised = yield* summarise(plan, cuts, plan.boundary, {
        sessionId,
        settings,
        model: input.model,
        trigger,
        instructions,
        summaryPrompt: cause === "manual" ? input.summaryPrompt : undefined,
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
      if (fitted._tag !== "Fitted") return yield* fail(failure(fitted))
      const noGain = CheckpointFailures.noGain(sessionId, counted, cause, fitted.fitted.degraded.tokens)
      if (noGain !== undefined) return yield* fail(noGain)

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
        workingState: WorkingStateModel.fromData(CompactionPlan.workingStateAt(plan, cuts, settled.cut)),
        summarised,
        counted,
        repairs,
        digests
      })
      if (saved._tag === "Conflict") {
        if (lostSaves + 1 >= maxLostSaves) {
          return yield* fail(CheckpointFailures.lostSaves(sessionId, lostSaves + 1, saved.current.compactions))
        }
        return { _tag: "Lost", current: saved.current.compactions }
      }
      const { fitted: { built, cut, degraded }, report } = saved
      changes.hints = { boundaryHint: cut, pinnedHint: built.pinned }
      yield* engine.publish(report)
      return settle(
        {
          view: degraded.view,
          tokens: report.tokensAfter,
          trigger,
          compacted: report,
          ladder: report.ladder
        },
        saved.base
      )
    })

  const noHints: Restore.Hints = { boundaryHint: 0, pinnedHint: [] }
  // Whether a transcript (its digests, `SameMessage.digestsOfRun`) begins with the last one a session saw, if any.
  const continues = (run: { readonly at: string | undefined }, lastSeen: SessionCache.Seen | undefined): boolean =>
    lastSeen === undefined || run.at === lastSeen.digest

  // A derived id's history kept elsewhere runs under its branch's lock alone: the id's other history goes on meanwhile.
  return (input, cause) =>
    Effect.gen(function*() {
      const done = yield* sessions.serialized(input.sessionId, compact(input, cause))
      if (done._tag === "Done") return Checkpoint.fromData(done.checkpoint)
      yield* Effect.logDebug(
        `context-compressor: session ${input.sessionId}'s compaction was made from another history; ` +
          `this one is session ${done.branch}`
      )
      const branched = yield* sessions.serialized(
        done.branch,
        compact({ ...input, sessionId: done.branch, sessionIdDerived: false }, cause)
      )
      // A named id (the branch's) never ends elsewhere.
      if (branched._tag !== "Done") return yield* Effect.die(new Error(`session ${done.branch} ended elsewhere`))
      return Checkpoint.fromData(branched.checkpoint)
    })
}

/** How a checkpoint ended: its view, or (a derived id's history kept elsewhere) the branch it goes to. */
type Compacted =
  | { readonly _tag: "Done"; readonly checkpoint: CheckpointData.CheckpointData<Checkpoint.Compacted> }
  | { readonly _tag: "Elsewhere"; readonly branch: string }

/**
 * How one attempt of a checkpoint ended: its view, another worker's save first (the compaction it saved), or
 * a derived id's saved compaction made from another history.
 */
type Attempt =
  | { readonly _tag: "Done"; readonly checkpoint: CheckpointData.CheckpointData<Checkpoint.Compacted> }
  | { readonly _tag: "Lost"; readonly current: number }
  | { readonly _tag: "Elsewhere"; readonly seen: SessionCache.Seen }
