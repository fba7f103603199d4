/**
 * What the save stage writes and reports, in the shared core: the state a
 * compaction saves (its block, boundary, pinned messages, archive path,
 * working state and the messages the ladder cut) and the fields of its
 * `Compacted` report, as plain data the faces' save stages wrap in their
 * `CompactionState` and `Compacted` classes, and the warning a trim gives.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import type * as Count from "./Count.js"
import * as Ladder from "./Ladder.js"
import * as Restore from "./Restore.js"
import * as SameMessage from "./SameMessage.js"
import * as TailCuts from "./TailCuts.js"

/**
 * What the summarise stage gave, as the report reads it (the faces' `Summarise.Summarised`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Summarised {
  readonly request: { readonly instructions?: string | undefined; readonly prefix?: unknown }
  readonly ruleTotals: Record<string, number>
  readonly outcome: {
    readonly _tag: "Summary" | "Trim"
    readonly cacheHit?: boolean
    readonly calls: number
    readonly gate: ReadonlyArray<string>
    readonly usage?: { readonly inputTokens: number; readonly cachedInputTokens: number } | undefined
  }
  readonly summary: string | undefined
}

/**
 * A compaction as fitted and about to be saved.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compaction<WorkingState, Repair> {
  readonly sessionId: string
  readonly cause: Count.Cause
  readonly compactions: number
  readonly transcript: Transcript.Transcript
  /** The system messages at the head of the transcript (`Restore.RestoredState.prefix`). */
  readonly prefix: number
  readonly fit: Ladder.Fit
  /** The compaction as fitted after its archive was written (`Ladder.afterArchive`). */
  readonly fitted: Ladder.Fitted
  /** The working state of the history up to the fitted cut, as the face's value. */
  readonly workingState: WorkingState
  readonly summarised: Summarised
  readonly counted: Count.Counted
  /** The repairs made in the view, as the face's values. */
  readonly repairs: ReadonlyArray<Repair>
  /** The engine's digests of messages (`SameMessage.digests`), for the state's `sourceDigest`. */
  readonly digests?: SameMessage.Digests | undefined
}

/**
 * The messages after the block as the ladder cut them (`TailCuts.cutsOf`).
 *
 * @since 0.1.0
 * @category saving
 */
export const cutMessagesOf = (compaction: Compaction<unknown, unknown>): ReadonlyArray<Transcript.Message> =>
  TailCuts.cutsOf(compaction.fitted.built.view, compaction.fitted.degraded.view)

/**
 * The fields of the state a compaction saves, at `updatedAt`.
 *
 * @since 0.1.0
 * @category saving
 */
export const stateFields = <WorkingState>(compaction: Compaction<WorkingState, unknown>, updatedAt: number) => {
  const { built, cut } = compaction.fitted
  const { archivePath } = built
  const cutMessages = cutMessagesOf(compaction)
  return {
    sessionId: compaction.sessionId,
    compactions: compaction.compactions,
    block: built.block,
    boundaryId: compaction.transcript[cut]!.id,
    pinnedIds: built.pinned.map((index) => compaction.transcript[index]!.id),
    ...(archivePath === undefined ? {} : { archivePath }),
    workingState: compaction.workingState,
    ...(cutMessages.length === 0 ? {} : { cutMessages }),
    sourceDigest: Restore.sourceDigestOf(
      compaction.transcript,
      compaction.prefix,
      cut,
      cutMessages.map(({ id }) => id),
      compaction.digests ?? SameMessage.digests()
    ),
    updatedAt
  }
}

/**
 * The fields of a compaction's `Compacted` report; its ladder's steps as plain data (`Ladder.ladderOf`).
 *
 * @since 0.1.0
 * @category saving
 */
export const reportFields = <Repair>(compaction: Compaction<unknown, Repair>) => {
  const { compactions, counted, fitted, sessionId, summarised, transcript } = compaction
  const { outcome, summary } = summarised
  const { built, cut, degraded, fallbackReason } = fitted
  const usedSummary = fallbackReason === undefined && outcome._tag === "Summary"
  const { archivePath } = built
  return {
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
    cacheHit: outcome._tag === "Summary" && outcome.cacheHit === true,
    summarizerCalls: outcome.calls,
    gate: [...outcome.gate],
    fallback: usedSummary ? "none" as const : "trim" as const,
    ...(usedSummary || fallbackReason === undefined ? {} : { fallbackReason }),
    summaryChars: usedSummary && summary !== undefined ? summary.length : 0,
    missingFromSummary: [...built.missing],
    userMessagesOmitted: built.rendered.userMessagesOmitted,
    rules: summarised.ruleTotals,
    ...(archivePath === undefined ? {} : { archivePath }),
    replyReserve: counted.replyReserve,
    ladder: Ladder.ladderOf(compaction.fit, degraded.steps),
    repairs: [...compaction.repairs],
    targetAfter: counted.targetAfter,
    summaryRequest: summarised.request.prefix === undefined ? "delimited" as const : "shared-prefix" as const,
    ...(outcome.usage === undefined ? {} : { summarizerUsage: outcome.usage }),
    dropped: { facts: built.rendered.factsDropped, summaryTokens: built.rendered.summaryTokensDropped }
  }
}

/**
 * The warning a compaction that fell back to a trim gives (none when the summary was used): a trim
 * instead of the summary is said on every surface, through the logger as in the report.
 *
 * @since 0.1.0
 * @category saving
 */
export const trimWarning = (
  report: { readonly compactions: number; readonly fallback: string; readonly gate: ReadonlyArray<string> },
  sessionId: string,
  fallbackReason: string | undefined
): string | undefined =>
  report.fallback === "trim"
    ? `compaction ${report.compactions} of session ${sessionId} fell back to a trim: ${
      fallbackReason ?? "no summary"
    } (gate: ${report.gate.length === 0 ? "not asked" : report.gate.join(", ")})`
    : undefined
