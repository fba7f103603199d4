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
import * as Handles from "../../../../core/block/Handles.js"
import type * as CheckpointData from "../../../../core/checkpoint/CheckpointData.js"
import * as CheckpointFailures from "../../../../core/checkpoint/CheckpointFailures.js"
import * as CompactionPlan from "../../../../core/checkpoint/CompactionPlan.js"
import type * as Ladder from "../../../../core/checkpoint/Ladder.js"
import * as SaveRecord from "../../../../core/checkpoint/SaveRecord.js"
import * as TailCuts from "../../../../core/checkpoint/TailCuts.js"
import * as ViewFit from "../../../../core/checkpoint/ViewFit.js"
import * as ViewRepair from "../../../../core/checkpoint/ViewRepair.js"
import type * as Transcript from "../../../../core/transcript/TranscriptData.js"
import { CompactionState } from "../../../services/CompactionStore.js"
import * as Checkpoint from "../../Checkpoint.js"

/**
 * An archive's entry, as `TranscriptArchive.Entry` is shaped.
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
 * A transcript archive, as `TranscriptArchive.Service` is shaped: `write`
 * fails with its `ArchiveError` (its path and reason).
 *
 * @since 0.1.0
 * @category models
 */
export interface ArchiveShape {
  readonly locate: (entry: Entry) => string
  readonly write: (entry: Entry) => Effect.Effect<string, ArchiveFailure>
  readonly lookup?: unknown
}

/** Why an archive could not be written, as `ArchiveError` says it. */
interface ArchiveFailure {
  readonly path: string
  readonly reason: string
}

/**
 * A compaction store's `saveIfCurrent`, as `CompactionStore.Service` is
 * shaped: it fails with its `StoreError` (its reason).
 *
 * @since 0.1.0
 * @category models
 */
export interface StoreShape {
  readonly saveIfCurrent: (
    state: CompactionState,
    expected: number
  ) => Effect.Effect<
    { readonly _tag: "Saved" } | { readonly _tag: "Conflict"; readonly current: CompactionState },
    { readonly reason: string }
  >
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
  readonly write: (cut: number) => Effect.Effect<"written" | "failed" | "none">
}

/**
 * The archive of one compaction.
 *
 * @since 0.1.0
 * @category constructors
 */
export const archiveOf = (
  archive: ArchiveShape | undefined,
  compaction: ArchivedCompaction & { readonly plan: CompactionPlan.Plan }
): Archive => {
  const { plan, sessionId } = compaction
  return {
    write: (cut) =>
      archive === undefined
        ? Effect.succeed("none")
        : Effect.matchEffect(
          Effect.suspend(() => archive.write(entryOf(compaction, CompactionPlan.movedOutAt(plan, cut)))),
          {
            onSuccess: () => Effect.succeed("written" as const),
            onFailure: (error) =>
              Effect.as(
                Effect.logWarning(
                  `context-compressor: the transcript archive of session ${sessionId} could not be written (${error.path}: ${error.reason}); the block names the session's transcript instead`
                ),
                "failed" as const
              )
          }
        )
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
    readonly report: Checkpoint.Compacted
    /** The view a reload of the saved state rebuilds: the built view with the saved cuts in place. */
    readonly base: Transcript.Transcript
  }
  | { readonly _tag: "Conflict"; readonly current: CompactionState }

/** The state saved of its fields, the working state in them already the engine's class (`WorkingState.fromData`). */
const stateOf = (fields: ReturnType<typeof SaveRecord.stateFields<unknown>>): CompactionState =>
  new CompactionState(fields as ConstructorParameters<typeof CompactionState>[0])

/**
 * Saves a fitted compaction, and reports it. The archive ({@link archiveOf})
 * is written before, and `Ladder.afterArchive` fits the view to what it
 * holds: a failed write costs the block its path, not the compaction.
 *
 * @since 0.1.0
 * @category saving
 */
export const save = (
  store: StoreShape,
  /** The compaction as fitted, its working state as the engine's class (`WorkingState.fromData`). */
  compaction: SaveRecord.Compaction<unknown, CheckpointData.Repair>
): Effect.Effect<Saved, Checkpoint.CompactionError> =>
  Effect.gen(function*() {
    const { compactions, fitted, sessionId } = compaction
    const updatedAt = yield* Clock.currentTimeMillis
    const saved = yield* Effect.mapError(
      store.saveIfCurrent(stateOf(SaveRecord.stateFields(compaction, updatedAt)), compactions - 1),
      (error) => Checkpoint.fromFailure(CheckpointFailures.store(sessionId)(error))
    )
    if (saved._tag === "Conflict") return { _tag: "Conflict", current: saved.current } as const
    const report = Checkpoint.compactedOf(SaveRecord.reportFields(compaction))
    const warning = SaveRecord.trimWarning(report, sessionId, fitted.fallbackReason)
    if (warning !== undefined) yield* Effect.logWarning(warning)
    return {
      _tag: "Saved",
      fitted,
      report,
      base: TailCuts.apply(fitted.built.view, SaveRecord.cutMessagesOf(compaction))
    } as const
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
export const clippedArchiver = (archive: ArchiveShape | undefined) => {
  const written = new Set<string>()
  const key = (sessionId: string, message: Transcript.Message) =>
    `${sessionId}\0${Handles.handleOfMessage(sessionId, message)}`
  return (checkpoint: {
    readonly sessionId: string
    readonly compaction: number
    readonly transcript: Transcript.Transcript
    readonly ladder: ReadonlyArray<{ readonly step: string; readonly messageIds: ReadonlyArray<string> }>
  }): Effect.Effect<void> =>
    Effect.suspend(() => {
      if (archive === undefined || archive.lookup === undefined) return Effect.void
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
      return Effect.matchEffect(archive.write({ sessionId, compaction: checkpoint.compaction, messages, cut: true }), {
        onSuccess: () =>
          Effect.sync(() => {
            // Bounded: past it the set starts again, and a message is at worst written again under the same name.
            if (written.size > 50_000) written.clear()
            for (const message of messages) written.add(key(sessionId, message))
          }),
        onFailure: (error) =>
          Effect.logWarning(
            `context-compressor: the messages the ladder cut in session ${sessionId} could not be archived (${error.path}: ${error.reason}); their recall handles will not resolve`
          )
      })
    })
}
