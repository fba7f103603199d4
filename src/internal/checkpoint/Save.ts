/**
 * The save stage of a checkpoint: the messages a compaction moves out
 * archived verbatim (when the engine has an archive), then the compaction's
 * state saved over the state it started from (`saveIfCurrent`), so that of two
 * workers compacting one session at once one wins and the other learns the
 * winner's state; and the `Compacted` report of the compaction saved. It only
 * saves: what a failed archive write changes in the view is fitted by
 * `Ladder.afterArchive`, between the archive's write and the save.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { CompactionState, type SaveOutcome } from "../../../services/CompactionStore.js"
import type * as CompactionStore from "../../../services/CompactionStore.js"
import type * as TranscriptArchive from "../../../services/TranscriptArchive.js"
import { Compacted, type CompactionError, LadderStep, type Repair } from "../../Checkpoint.js"
import * as Handles from "../block/Handles.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as CheckpointErrors from "./CheckpointErrors.js"
import * as CompactionPlan from "./CompactionPlan.js"
import type * as Count from "./Count.js"
import * as Ladder from "./Ladder.js"
import type * as Summarise from "./Summarise.js"
import * as TailCuts from "./TailCuts.js"
import * as ViewFit from "./ViewFit.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * The compaction whose moved-out messages an archive names and writes.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArchivedCompaction {
  readonly sessionId: string
  readonly compactions: number
  readonly renamed: ViewRepair.Renamed | undefined
}

/** The archive's entry of what a cut moves out: the messages as sent (ids restored), synthetic results left out. */
const entryOf = (compaction: ArchivedCompaction, movedOut: Transcript.Transcript): TranscriptArchive.Entry => ({
  sessionId: compaction.sessionId,
  compaction: compaction.compactions,
  messages: ViewRepair.restoreIds(movedOut.filter((message) => !ViewFit.isDerived(message)), compaction.renamed)
})

/**
 * Where the archive puts what a cut moves out, before it is written: named by
 * what the messages are, so that a worker that loses the race to save never
 * overwrites the winner's archive with a different span. None without an
 * archive. Asked once per cut (`CompactionPlan.Cuts.archivePathOf`).
 *
 * @since 0.1.0
 * @category archive
 */
export const locator = (
  archive: Option.Option<TranscriptArchive.Service>,
  compaction: ArchivedCompaction
): ((movedOut: Transcript.Transcript) => string) | undefined =>
  Option.isNone(archive) ? undefined : (movedOut) => archive.value.locate(entryOf(compaction, movedOut))

/**
 * Where a compaction's moved-out messages go: written under the path the
 * plan's block names (`locator`). Synthetic results are not archived.
 *
 * @since 0.1.0
 * @category models
 */
export interface Archive {
  /** Writes what a cut moves out: `failed` (with a warning) when it could not; `none` without an archive. */
  readonly write: (cut: number) => Effect.Effect<"written" | "failed" | "none">
}

/**
 * The archive of one compaction.
 *
 * @since 0.1.0
 * @category constructors
 */
export const archiveOf = (
  archive: Option.Option<TranscriptArchive.Service>,
  compaction: ArchivedCompaction & { readonly plan: CompactionPlan.Plan }
): Archive => {
  const { plan, sessionId } = compaction
  return {
    write: (cut) =>
      Option.isNone(archive) ? Effect.succeed("none" as const) : Effect.gen(function*() {
        const written = yield* Effect.either(
          archive.value.write(entryOf(compaction, CompactionPlan.movedOutAt(plan, cut)))
        )
        if (Either.isRight(written)) return "written" as const
        yield* Effect.logWarning(
          `context-compressor: the transcript archive of session ${sessionId} could not be written (${written.left.path}: ${written.left.reason}); the block names the session's transcript instead`
        )
        return "failed" as const
      })
  }
}

/**
 * What the save stage gives: the compaction as saved and its report; or the
 * state another worker saved first.
 *
 * @since 0.1.0
 * @category models
 */
export type Saved =
  | {
    readonly _tag: "Saved"
    readonly fitted: Ladder.Fitted
    readonly report: Compacted
    /** The view a reload of the saved state rebuilds: the built view with the saved cuts in place. */
    readonly base: Transcript.Transcript
  }
  | { readonly _tag: "Conflict"; readonly current: CompactionState }

/**
 * Saves a fitted compaction, and reports it. The archive ({@link archiveOf})
 * is written before, and `Ladder.afterArchive` fits the view to what it
 * holds: a failed write costs the block its path, not the compaction.
 *
 * @since 0.1.0
 * @category saving
 */
export const save = (
  store: CompactionStore.Service,
  compaction: {
    readonly sessionId: string
    readonly cause: Count.Cause
    readonly compactions: number
    readonly transcript: Transcript.Transcript
    /** The system messages at the head of the transcript (`Restore.RestoredState.prefix`). */
    readonly prefix: number
    readonly fit: Ladder.Fit
    /** The compaction as fitted after its archive was written (`Ladder.afterArchive`). */
    readonly fitted: Ladder.Fitted
    /** The working state of the history up to the fitted cut (`CompactionPlan.workingStateAt`), as the face's class. */
    readonly workingState: NonNullable<CompactionState["workingState"]>
    readonly summarised: Summarise.Summarised
    readonly counted: Count.Counted
    readonly repairs: ReadonlyArray<Repair>
  }
): Effect.Effect<Saved, CompactionError> =>
  Effect.gen(function*() {
    const { compactions, counted, fitted, sessionId, summarised, transcript } = compaction
    const { outcome, summary } = summarised
    const { cut, fallbackReason } = fitted
    const usedSummary = fallbackReason === undefined && outcome._tag === "Summary"
    const { built, degraded } = fitted
    const cutMessages = TailCuts.cutsOf(built.view, degraded.view)
    const { archivePath } = built
    const updatedAt = yield* Clock.currentTimeMillis
    const saved: SaveOutcome = yield* Effect.mapError(
      store.saveIfCurrent(
        new CompactionState({
          sessionId,
          compactions,
          block: built.block,
          boundaryId: transcript[cut]!.id,
          pinnedIds: built.pinned.map((index) => transcript[index]!.id),
          ...(archivePath === undefined ? {} : { archivePath }),
          workingState: compaction.workingState,
          ...(cutMessages.length === 0 ? {} : { cutMessages }),
          updatedAt
        }),
        compactions - 1
      ),
      CheckpointErrors.store(sessionId)
    )
    if (saved._tag === "Conflict") return { _tag: "Conflict", current: saved.current }
    const report = new Compacted({
      sessionId,
      cause: compaction.cause,
      ...(summarised.request.instructions === undefined ? {} : { instructions: summarised.request.instructions }),
      compactions,
      tokensBefore: counted.viewTokens,
      tokensAfter: degraded.tokens + counted.overhead,
      trigger: counted.trigger,
      boundary: { index: cut, id: transcript[cut]!.id },
      replaced: {
        firstId: built.block.firstReplacedId,
        lastId: built.block.lastReplacedId,
        count: cut - compaction.prefix - built.pinned.length
      },
      cacheHit: outcome._tag === "Summary" && outcome.cacheHit,
      summarizerCalls: outcome.calls,
      gate: [...outcome.gate],
      fallback: usedSummary ? "none" : "trim",
      ...(usedSummary || fallbackReason === undefined ? {} : { fallbackReason }),
      summaryChars: usedSummary && summary !== undefined ? summary.length : 0,
      missingFromSummary: [...built.missing],
      userMessagesOmitted: built.rendered.userMessagesOmitted,
      rules: summarised.ruleTotals,
      ...(archivePath === undefined ? {} : { archivePath }),
      replyReserve: counted.replyReserve,
      ladder: Ladder.ladderOf(compaction.fit, degraded.steps).map((step) => new LadderStep(step)),
      repairs: [...compaction.repairs],
      targetAfter: counted.targetAfter,
      summaryRequest: summarised.request.prefix === undefined ? "delimited" : "shared-prefix",
      ...(outcome.usage === undefined ? {} : { summarizerUsage: outcome.usage }),
      dropped: { facts: built.rendered.factsDropped, summaryTokens: built.rendered.summaryTokensDropped }
    })
    // A trim instead of the summary is said on every surface: through the logger here, in the report's fallbackReason.
    if (report.fallback === "trim") {
      yield* Effect.logWarning(
        `compaction ${compactions} of session ${sessionId} fell back to a trim: ${
          fallbackReason ?? "no summary"
        } (gate: ${report.gate.length === 0 ? "not asked" : report.gate.join(", ")})`
      )
    }
    return { _tag: "Saved", fitted, report, base: TailCuts.apply(built.view, cutMessages) }
  })

/**
 * What archives the messages a checkpoint's ladder reduced or clipped in the
 * view, whole, so that the recall handles their markers name resolve. They
 * are found in the transcript by id (a view copy's renamed id `<id>#n` by the
 * id as sent); each handle is written once per engine. A failed write is
 * logged and costs only the recall of those messages: the view stands.
 *
 * @since 0.1.0
 * @category archive
 */
export const clippedArchiver = (archive: Option.Option<TranscriptArchive.Service>) => {
  const written = new Set<string>()
  const key = (sessionId: string, message: Transcript.Message) =>
    `${sessionId}\0${Handles.handleOfMessage(sessionId, message)}`
  return (checkpoint: {
    readonly sessionId: string
    readonly compaction: number
    readonly transcript: Transcript.Transcript
    readonly ladder: ReadonlyArray<{ readonly step: string; readonly messageIds: ReadonlyArray<string> }>
  }): Effect.Effect<void> => {
    if (Option.isNone(archive) || archive.value.lookup === undefined) return Effect.void
    const { sessionId } = checkpoint
    const ids = checkpoint.ladder.flatMap((step) =>
      step.step === "reduce-tool-results" || step.step === "clip-messages" ? step.messageIds : []
    )
    if (ids.length === 0) return Effect.void
    const asSent = new Set(ids.flatMap((id) => [id, id.replace(/#\d+$/, "")]))
    const messages = checkpoint.transcript.filter((message) =>
      asSent.has(message.id) && Handles.textOf(message) !== undefined && !written.has(key(sessionId, message))
    )
    if (messages.length === 0) return Effect.void
    return archive.value.write({ sessionId, compaction: checkpoint.compaction, messages, cut: true }).pipe(
      Effect.tap(() =>
        Effect.sync(() => {
          // Bounded: past it the set starts again, and a message is at worst written again under the same name.
          if (written.size > 50_000) written.clear()
          for (const message of messages) written.add(key(sessionId, message))
        })
      ),
      Effect.catchAll((error) =>
        Effect.logWarning(
          `context-compressor: the messages the ladder cut in session ${sessionId} could not be archived (${error.path}: ${error.reason}); their recall handles will not resolve`
        )
      ),
      Effect.asVoid
    )
  }
}
