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
import * as Handles from "../block/Handles.js"
import * as Fx from "../Fx.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import type * as CheckpointData from "./CheckpointData.js"
import * as CheckpointFailures from "./CheckpointFailures.js"
import * as CompactionPlan from "./CompactionPlan.js"
import type * as Ladder from "./Ladder.js"
import * as SaveRecord from "./SaveRecord.js"
import * as TailCuts from "./TailCuts.js"
import * as ViewFit from "./ViewFit.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * An archive's entry, as both faces' `TranscriptArchive.Entry` are shaped.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly sessionId: string
  readonly compaction: number
  readonly messages: Transcript.Transcript
  readonly cut?: boolean | undefined
}

/**
 * A transcript archive, as both faces' `TranscriptArchive.Service`s are
 * shaped: `write` fails with the face's `ArchiveError` (its path and reason).
 *
 * @since 0.1.0
 * @category models
 */
export interface ArchiveShape {
  readonly locate: (entry: Entry) => string
  readonly write: (entry: Entry) => Fx.Op<string>
  readonly lookup?: unknown
}

/** Why an archive could not be written, as both faces' `ArchiveError` say it. */
interface ArchiveFailure {
  readonly path: string
  readonly reason: string
}

/**
 * A compaction store's `saveIfCurrent`, as both faces' `CompactionStore.Service`s
 * are shaped: it fails with the face's `StoreError` (its reason).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreShape<State> {
  readonly saveIfCurrent: (
    state: State,
    expected: number
  ) => Fx.Op<{ readonly _tag: "Saved" } | { readonly _tag: "Conflict"; readonly current: State }>
}

/**
 * What the save stage makes of the face's: its state and report classes and
 * its compaction error.
 *
 * @since 0.1.0
 * @category models
 */
export interface Face<State, Report> {
  readonly fx: Fx.Fx
  readonly state: (fields: ReturnType<typeof SaveRecord.stateFields<unknown>>) => State
  readonly report: (fields: ReturnType<typeof SaveRecord.reportFields<CheckpointData.Repair>>) => Report
  /** The face's `CompactionError` of a failure. */
  readonly failure: (failure: CheckpointFailures.Failure) => unknown
}

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
const entryOf = (compaction: ArchivedCompaction, movedOut: Transcript.Transcript): Entry => ({
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
  archive: ArchiveShape | undefined,
  compaction: ArchivedCompaction
): ((movedOut: Transcript.Transcript) => string) | undefined =>
  archive === undefined ? undefined : (movedOut) => archive.locate(entryOf(compaction, movedOut))

/**
 * Where a compaction's moved-out messages go: written under the path the
 * plan's block names (`locator`). Synthetic results are not archived.
 *
 * @since 0.1.0
 * @category models
 */
export interface Archive {
  /** Writes what a cut moves out: `failed` (with a warning) when it could not; `none` without an archive. */
  readonly write: (cut: number) => Fx.Program<"written" | "failed" | "none">
}

/**
 * The archive of one compaction.
 *
 * @since 0.1.0
 * @category constructors
 */
export const archiveOf = (
  fx: Fx.Fx,
  archive: ArchiveShape | undefined,
  compaction: ArchivedCompaction & { readonly plan: CompactionPlan.Plan }
): Archive => {
  const { plan, sessionId } = compaction
  return {
    *write(cut) {
      if (archive === undefined) return "none"
      const written = yield* fx.result<string, ArchiveFailure>(
        archive.write(entryOf(compaction, CompactionPlan.movedOutAt(plan, cut)))
      )
      if (written._tag === "Ok") return "written"
      yield* fx.logWarning(
        `context-compressor: the transcript archive of session ${sessionId} could not be written (${written.error.path}: ${written.error.reason}); the block names the session's transcript instead`
      )
      return "failed"
    }
  }
}

/**
 * What the save stage gives: the compaction as saved and its report; or the
 * state another worker saved first.
 *
 * @since 0.1.0
 * @category models
 */
export type Saved<State, Report> =
  | {
    readonly _tag: "Saved"
    readonly fitted: Ladder.Fitted
    readonly report: Report
    /** The view a reload of the saved state rebuilds: the built view with the saved cuts in place. */
    readonly base: Transcript.Transcript
  }
  | { readonly _tag: "Conflict"; readonly current: State }

/**
 * Saves a fitted compaction, and reports it. The archive ({@link archiveOf})
 * is written before, and `Ladder.afterArchive` fits the view to what it
 * holds: a failed write costs the block its path, not the compaction.
 *
 * @since 0.1.0
 * @category saving
 */
export function* save<State, Report extends Parameters<typeof SaveRecord.trimWarning>[0]>(
  face: Face<State, Report>,
  store: StoreShape<State>,
  /** The compaction as fitted, its working state as this face's class (`WorkingState.fromData`). */
  compaction: SaveRecord.Compaction<unknown, CheckpointData.Repair>
): Fx.Program<Saved<State, Report>> {
  const { fx } = face
  const { compactions, fitted, sessionId } = compaction
  const updatedAt = yield* fx.currentTimeMillis
  const saved = yield* fx.result<
    { readonly _tag: "Saved" } | { readonly _tag: "Conflict"; readonly current: State },
    { readonly reason: string }
  >(store.saveIfCurrent(face.state(SaveRecord.stateFields(compaction, updatedAt)), compactions - 1))
  if (saved._tag === "Err") return yield* fx.fail(face.failure(CheckpointFailures.store(sessionId)(saved.error)))
  if (saved.value._tag === "Conflict") return { _tag: "Conflict", current: saved.value.current }
  const report = face.report(SaveRecord.reportFields(compaction))
  const warning = SaveRecord.trimWarning(report, sessionId, fitted.fallbackReason)
  if (warning !== undefined) yield* fx.logWarning(warning)
  return {
    _tag: "Saved",
    fitted,
    report,
    base: TailCuts.apply(fitted.built.view, SaveRecord.cutMessagesOf(compaction))
  }
}

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
export const clippedArchiver = (fx: Fx.Fx, archive: ArchiveShape | undefined) => {
  const written = new Set<string>()
  const key = (sessionId: string, message: Transcript.Message) =>
    `${sessionId}\0${Handles.handleOfMessage(sessionId, message)}`
  return function*(checkpoint: {
    readonly sessionId: string
    readonly compaction: number
    readonly transcript: Transcript.Transcript
    readonly ladder: ReadonlyArray<{ readonly step: string; readonly messageIds: ReadonlyArray<string> }>
  }): Fx.Program<void> {
    if (archive === undefined || archive.lookup === undefined) return
    const { sessionId } = checkpoint
    const ids = checkpoint.ladder.flatMap((step) =>
      step.step === "reduce-tool-results" || step.step === "clip-messages" ? step.messageIds : []
    )
    if (ids.length === 0) return
    const asSent = new Set(ids.flatMap((id) => [id, id.replace(/#\d+$/, "")]))
    const messages = checkpoint.transcript.filter((message) =>
      asSent.has(message.id) && Handles.textOf(message) !== undefined && !written.has(key(sessionId, message))
    )
    if (messages.length === 0) return
    const done = yield* fx.result<string, ArchiveFailure>(
      archive.write({ sessionId, compaction: checkpoint.compaction, messages, cut: true })
    )
    if (done._tag === "Ok") {
      // Bounded: past it the set starts again, and a message is at worst written again under the same name.
      if (written.size > 50_000) written.clear()
      for (const message of messages) written.add(key(sessionId, message))
      return
    }
    yield* fx.logWarning(
      `context-compressor: the messages the ladder cut in session ${sessionId} could not be archived (${done.error.path}: ${done.error.reason}); their recall handles will not resolve`
    )
  }
}
