/**
 * The compactor's planning, without effects: a plan as data (where a
 * compaction may cut, the approvals a cut pins), the messages a cut pins and
 * moves out, the cut a trim starts from, and, computed once per cut, the
 * working state up to a cut and the block and view a cut gives (built by
 * `internal/block/BlockBuild.ts`). The state it plans from is restored by
 * `internal/checkpoint/Restore.ts`. The plan stage of a checkpoint
 * ({@link planWithin}); `internal/checkpoint/Ladder.ts` chooses the cut whose
 * view fits.
 *
 * @since 0.1.0
 */
import * as Budget from "../../Budget.js"
import type * as Transcript from "../../Transcript.js"
import * as TranscriptModel from "../../Transcript.js"
import type { CompactionSettings } from "../../../services/Settings.js"
import * as WorkingState from "../working-state/WorkingState.js"
import * as Cooperative from "../Cooperative.js"
import * as Boundary from "./Boundary.js"
import type * as Restore from "./Restore.js"
import * as BlockBuild from "../block/BlockBuild.js"
import * as WorkingIds from "../working-state/WorkingIds.js"
import * as TestRuns from "../working-state/TestRuns.js"

/**
 * What planning a compaction needs besides the restored state.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly transcript: Transcript.Transcript
  readonly restored: Restore.RestoredState
  /** The number of this compaction: the state's count plus one. */
  readonly compactions: number
  readonly trigger: number
  readonly keepBudget: number
  /** The block's parts, in tokens (`Budget.blockParts`); default: the seed's budgets of the trigger. */
  readonly blockParts?: Budget.BlockParts | undefined
  /** How the block spends its room (`Budget.BlockLayout`, default "reuse"). */
  readonly blockLayout?: Budget.BlockLayout | undefined
  /**
   * A manual compaction keeps verbatim only the newest user message and what
   * follows it (else the newest turn): asked to compact, it compacts what it can.
   */
  readonly manual?: boolean | undefined
  /** The token count of a message, cached by the caller. */
  readonly tokens: (message: Transcript.Message) => number
  /** The token count of a text. */
  readonly count: (text: string) => number
  /** The session: with it, a block whose span is archived lists the span's messages by recall handle. */
  readonly sessionId?: string | undefined
  /**
   * Where the archive puts what a cut moves out (`Save.locator`), before it is written; none without an
   * archive. The plan asks once per cut, and each block built at the cut carries the answer.
   */
  readonly archivePathOf?: ((movedOut: Transcript.Transcript) => string) | undefined
}

/**
 * A staged approval still waiting for its answer: its call's index, and the
 * messages a cut after the call pins verbatim after the block (the call and
 * its result).
 *
 * @since 0.1.0
 * @category models
 */
export interface Pending {
  readonly callIndex: number
  readonly group: ReadonlyArray<number>
}

/**
 * The plan of one compaction: its boundary (`undefined` when no turn starts
 * after the verbatim part), its candidate cuts and what a cut pins, as data
 * ({@link pinnedAt}, {@link movedOutAt}, {@link spanAt} and {@link trimCut}
 * read it); the working state and the block of a cut, which it computes once
 * per cut, still as functions.
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly transcript: Transcript.Transcript
  /** The system messages at the head of the transcript. */
  readonly prefix: number
  /** Where the verbatim part of the restored state starts. */
  readonly from: number
  readonly boundary: number | undefined
  /** The turn starts after the verbatim part of the restored state, in order. */
  readonly candidates: ReadonlyArray<number>
  /** The staged approvals still waiting, whose messages a cut after their call pins ({@link pinnedAt}). */
  readonly pending: ReadonlyArray<Pending>
  /** The messages the restored state pinned: a cut that no longer pins one moves it out. */
  readonly restoredPinned: ReadonlyArray<number>
  /** The block in force before this compaction, if any. */
  readonly earlierBlock: Transcript.CompactedBlock | undefined
  /** The working state of the history up to a cut. */
  readonly workingStateAt: (cut: number) => WorkingState.WorkingState
  /** {@link workingStateAt} as steps that pause every few messages; once run, `workingStateAt` of the cut is known. */
  readonly workingStateSteps: (cut: number) => Cooperative.Steps<WorkingState.WorkingState>
  /**
   * The block and view of a cut, with the summary if one is used; naming the cut's archive path (found once
   * per cut) unless `archived` is false (the archive could not be written).
   */
  readonly build: (cut: number, block: {
    readonly summary: string | undefined
    readonly fallbackReason: string | undefined
    readonly archived: boolean
  }) => BlockBuild.Built
}

/**
 * The pending approvals' messages a cut pins after the block, in order.
 *
 * @since 0.1.0
 * @category planning
 */
export const pinnedAt = (plan: Pick<Plan, "pending">, cut: number): ReadonlyArray<number> =>
  Array.from(new Set(plan.pending.filter((o) => o.callIndex < cut).flatMap((o) => o.group))).sort((a, b) => a - b)

/**
 * The messages a cut moves out of the view: pinned ones now released, and the new span.
 *
 * @since 0.1.0
 * @category planning
 */
export const movedOutAt = (plan: Pick<Plan, "transcript" | "from" | "pending" | "restoredPinned">, cut: number): Transcript.Transcript => {
  const { from, transcript } = plan
  const pinned = new Set(pinnedAt(plan, cut))
  const released = plan.restoredPinned.filter((index) => !pinned.has(index)).map((index) => transcript[index]!)
  const fresh = transcript.slice(from, cut).filter((_, offset) => !pinned.has(from + offset))
  return [...released, ...fresh]
}

/**
 * What the summariser is shown for a cut: the old block and what the cut moves out.
 *
 * @since 0.1.0
 * @category planning
 */
export const spanAt = (plan: Plan, cut: number): Transcript.Transcript =>
  [...(plan.earlierBlock === undefined ? [] : [plan.earlierBlock]), ...movedOutAt(plan, cut)]

/**
 * The cut of a trim: the earliest turn start that removes at least 10 % of
 * the view's tokens and, by the count of what it removes, enough to get the
 * view under `viewBudget` (the block it adds is counted as large as the old one).
 *
 * @since 0.1.0
 * @category planning
 */
export const trimCut = (
  plan: Plan,
  tokens: (message: Transcript.Message) => number,
  viewTokens: number,
  viewBudget: number
): number | undefined => {
  const { candidates, transcript } = plan
  // What each cut removes from the view: the verbatim messages before it that it does not pin.
  const pinnedNow = new Set(pinnedAt(plan, transcript.length))
  let removed = 0
  let next = plan.from
  const blockTokens = plan.earlierBlock === undefined ? 0 : tokens(plan.earlierBlock)
  for (const cut of candidates) {
    for (; next < cut; next++) if (!pinnedNow.has(next)) removed += tokens(transcript[next]!)
    if (removed >= viewTokens / 10 && viewTokens - removed + blockTokens <= viewBudget) return cut
  }
  return candidates[candidates.length - 1]
}

/**
 * Plans a compaction.
 *
 * @since 0.1.0
 * @category planning
 */
export const plan = (input: Input): Plan => {
  const { restored, transcript } = input
  const { from, prefix } = restored
  const firstUser = TranscriptModel.firstUserMessage(transcript)
  const starts = Boundary.turnStarts(transcript)
  const candidates = starts.filter((start) => start > from)
  const newestUserStart = input.manual === true ? starts.findLast((start) => start > from && transcript[start]!._tag === "User") : undefined
  const boundary = newestUserStart ?? Boundary.find(transcript, from, input.manual === true ? 0 : input.keepBudget, input.tokens, starts)

  // A staged approval still waiting for its answer stays verbatim after the block, with its call.
  const pending = Boundary.pendingApprovals(transcript).map((o) => ({
    callIndex: o.callIndex,
    group: Boundary.obligationGroup(transcript, o.callIndex, o.toolCallId)
  }))
  const data = { transcript, prefix, from, boundary, candidates, pending, restoredPinned: restored.pinned, earlierBlock: restored.block }

  // The working state of the history up to a cut: the persisted state's, extended by the span from
  // the old boundary, so a compaction late in a long session reads only what it adds. A fallback builds
  // the block again at the same cut: the state is extended once per cut.
  const earlier = restored.workingState
  const extendFrom = earlier === undefined ? prefix : from
  /** What the history up to a cut says of the calls an earlier state left open: their results, their approvals. */
  // The scripts the earlier blocks' span wrote from here-documents: one run in the new span edits what it opens.
  let scriptsBefore: ReadonlyMap<string, string> | undefined
  const historyAt = (cut: number): WorkingState.History => {
    scriptsBefore ??= WorkingState.scriptsWritten(transcript.slice(prefix, extendFrom))
    const results = new Map<string, Transcript.ToolResult>()
    for (let index = prefix; index < cut; index++) {
      const message = transcript[index]!
      if (message._tag === "ToolResult" && !results.has(message.toolCallId)) results.set(message.toolCallId, message)
    }
    const stillPending = new Set(Boundary.pendingApprovals(transcript.slice(prefix, cut)).map((obligation) => obligation.toolCallId))
    return { stillPending, resultOf: (id) => results.get(id), scripts: scriptsBefore }
  }
  const workingStates = new Map<number, WorkingState.WorkingState>()
  function* workingStateSteps(cut: number): Cooperative.Steps<WorkingState.WorkingState> {
    const known = workingStates.get(cut)
    if (known !== undefined) return known
    const span = transcript.slice(extendFrom, cut)
    const extracted = earlier === undefined ? yield* WorkingState.extractSteps(span) : yield* WorkingState.extendSteps(earlier, span, historyAt(cut))
    // Working ids are found by use across spans: the earlier block's text counts as what earlier results produced.
    const workingIds = WorkingIds.extract(span, earlier?.workingIds ?? [], restored.block?.content ?? "")
    const testCommands = WorkingIds.testCommands(span, TestRuns.isTestCommand, earlier?.testCommands ?? [])
    const working = workingIds.length === 0 && testCommands.length === 0
      ? extracted
      : new WorkingState.WorkingState({ ...extracted, workingIds: [...workingIds], testCommands: [...testCommands] }, { disableValidation: true })
    workingStates.set(cut, working)
    return working
  }
  const workingStateAt = (cut: number): WorkingState.WorkingState => Cooperative.runSync(workingStateSteps(cut))

  // A cut's archive path: the archive names what the cut moves out by digesting it, once per cut.
  const archivePaths = new Map<number, string | undefined>()
  const archivePathAt = (cut: number): string | undefined => {
    if (input.archivePathOf === undefined) return undefined
    if (!archivePaths.has(cut)) archivePaths.set(cut, input.archivePathOf(movedOutAt(data, cut)))
    return archivePaths.get(cut)
  }

  const build: Plan["build"] = (cut, { archived, fallbackReason, summary }) => {
    const archivePath = archived ? archivePathAt(cut) : undefined
    return BlockBuild.build({
      transcript,
      prefix,
      cut,
      pinned: pinnedAt(data, cut),
      // Only an archived span's recall list reads what the cut moves out.
      movedOut: archivePath === undefined ? [] : movedOutAt(data, cut),
      working: workingStateAt(cut),
      firstUser,
      earlierBlock: restored.block?.content,
      compactions: input.compactions,
      trigger: input.trigger,
      blockParts: input.blockParts,
      blockLayout: input.blockLayout,
      count: input.count,
      sessionId: input.sessionId,
      summary,
      fallbackReason,
      archivePath
    })
  }

  return { ...data, workingStateAt, workingStateSteps, build }
}

/**
 * The plan stage of a checkpoint: the plan of a compaction within a budget.
 * The block takes a fixed share of the target after the compaction, the
 * verbatim tail what the block and the system messages leave (never more than
 * the keep fraction).
 *
 * @since 0.1.0
 * @category planning
 */
export const planWithin = (options: {
  readonly transcript: Transcript.Transcript
  readonly restored: Restore.RestoredState
  /** The view restored: its system messages are counted against the tail's budget. */
  readonly view: Transcript.Transcript
  readonly compactions: number
  readonly settings: CompactionSettings
  /** What the messages may take. */
  readonly trigger: number
  /** The most the view may take after the compaction. */
  readonly targetAfter: number
  readonly manual: boolean
  readonly tokens: (message: Transcript.Message) => number
  readonly count: (text: string) => number
  /** The session whose handles the block lists (none listed without it). */
  readonly sessionId?: string | undefined
  readonly blockLayout?: Budget.BlockLayout | undefined
  /** Where the archive puts what a cut moves out (see {@link Input}). */
  readonly archivePathOf?: ((movedOut: Transcript.Transcript) => string) | undefined
}): Plan => {
  const { settings, tokens, trigger } = options
  const firstUser = TranscriptModel.firstUserMessage(options.transcript)
  const blockBudget = Budget.blockBudget(settings, trigger)
  const systemTokens = options.view.reduce((sum, message) => sum + (message._tag === "System" ? tokens(message) : 0), 0)
  return plan({
    transcript: options.transcript,
    restored: options.restored,
    compactions: options.compactions,
    trigger,
    blockParts: Budget.blockParts(blockBudget, trigger, firstUser === undefined ? 0 : tokens(firstUser), options.blockLayout),
    blockLayout: options.blockLayout,
    keepBudget: Math.max(Math.min(Budget.keepBudget(settings, trigger), options.targetAfter - blockBudget - systemTokens), 0),
    manual: options.manual,
    tokens,
    count: options.count,
    sessionId: options.sessionId,
    archivePathOf: options.archivePathOf
  })
}
