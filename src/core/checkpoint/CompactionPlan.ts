/**
 * The compactor's planning, without effects: a plan as data (where a
 * compaction may cut, the approvals a cut pins, what the block of a cut is
 * built from), and functions of that data: the messages a cut pins and moves
 * out, the cut a trim starts from, the working state up to a cut and the block
 * and view a cut gives (built by `core/block/BlockBuild.ts`). What those
 * compute per cut is kept in a {@link Cuts} value the caller makes and owns,
 * not in the plan. The state it plans from is restored by
 * `core/checkpoint/Restore.ts`. The plan stage of a checkpoint
 * ({@link planWithin}); `core/checkpoint/Ladder.ts` chooses the cut whose
 * view fits.
 *
 * @since 0.1.0
 */
import * as BlockBuild from "../block/BlockBuild.js"
import type { SettingsShape } from "../services/SettingsValues.js"
import * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as TranscriptModel from "../transcript/TranscriptData.js"
import * as NewestError from "../working-state/NewestError.js"
import * as TestRuns from "../working-state/TestRuns.js"
import * as WorkingIds from "../working-state/WorkingIds.js"
import * as WorkingState from "../working-state/WorkingState.js"
import * as Boundary from "./Boundary.js"
import * as Budget from "./Budget.js"
import type * as Restore from "./Restore.js"
import type * as RestoredView from "./RestoredView.js"

/**
 * What planning a compaction needs besides the restored state.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly transcript: Transcript.Transcript
  /** The face's constructors, which make the block (`Transcript.kit`). */
  readonly kit: Transcript.Kit
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
  /** The session: with it, a block whose span is archived lists the span's messages by recall handle. */
  readonly sessionId?: string | undefined
  /** The engine's reading of which results stage an approval (`Boundary.Staged`); read, not kept in the plan. */
  readonly staged?: Boundary.Staged | undefined
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
 * The plan of one compaction, as data: its boundary (`undefined` when no turn
 * starts after the verbatim part), its candidate cuts, what a cut pins, and
 * what the block of a cut is built from ({@link pinnedAt}, {@link movedOutAt},
 * {@link spanAt}, {@link trimCut}, {@link workingStateAt} and {@link build}
 * read it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly transcript: Transcript.Transcript
  /** The face's constructors, which make the block (`Transcript.kit`). */
  readonly kit: Transcript.Kit
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
  /** The working state of what the earlier block replaced: a cut's extends it by the span from {@link from}. */
  readonly earlierWorkingState: WorkingState.WorkingState | undefined
  /** The transcript's first user message, pinned in every block. */
  readonly firstUser: Transcript.UserMessage | undefined
  /** The number of this compaction: the state's count plus one. */
  readonly compactions: number
  readonly trigger: number
  /** The block's parts, in tokens (`Budget.blockParts`); none: the seed's budgets of the trigger. */
  readonly blockParts: Budget.BlockParts | undefined
  readonly blockLayout: Budget.BlockLayout | undefined
  /** The session whose handles an archived block lists (none listed without it). */
  readonly sessionId: string | undefined
}

/**
 * What a caller keeps of a plan's cuts while it summarises, fits and saves
 * one compaction: the working state computed at each cut (a fallback builds
 * the block again at the same cut: the state is extended once per cut), and
 * each cut's archive path, asked of the archive once per cut; with the
 * tokenizer's count and the archive's naming they are computed with. Made by
 * {@link cutsOf}, one per plan.
 *
 * @since 0.1.0
 * @category models
 */
export interface Cuts {
  /** The token count of a text. */
  readonly count: (text: string) => number
  /**
   * Where the archive puts what a cut moves out (`Save.locator`), before it is written; none without an
   * archive. Asked once per cut, and each block built at the cut carries the answer.
   */
  readonly archivePathOf: ((movedOut: Transcript.Transcript) => string) | undefined
  /** The engine's narrowed pinned messages (`RestoredView.Narrowed`), so a view built here shares them. */
  readonly narrowed: RestoredView.Narrowed | undefined
  readonly workingStates: Map<number, WorkingState.WorkingState>
  readonly archivePaths: Map<number, string | undefined>
  /** The scripts the earlier blocks' span wrote from here-documents, once read. */
  scriptsBefore: ReadonlyMap<string, string> | undefined
  /** The engine's reading of which results stage an approval (`Boundary.Staged`). */
  readonly staged: Boundary.Staged | undefined
}

/**
 * An empty {@link Cuts}, for one plan.
 *
 * @since 0.1.0
 * @category constructors
 */
export const cutsOf = (options: {
  readonly count: (text: string) => number
  readonly archivePathOf?: ((movedOut: Transcript.Transcript) => string) | undefined
  readonly narrowed?: RestoredView.Narrowed | undefined
  readonly staged?: Boundary.Staged | undefined
}): Cuts => ({
  staged: options.staged,
  count: options.count,
  archivePathOf: options.archivePathOf,
  narrowed: options.narrowed,
  workingStates: new Map(),
  archivePaths: new Map(),
  scriptsBefore: undefined
})

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
export const movedOutAt = (
  plan: Pick<Plan, "transcript" | "from" | "pending" | "restoredPinned">,
  cut: number
): Transcript.Transcript => {
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
export const spanAt = (
  plan: Plan,
  cut: number
): Transcript.Transcript => [...(plan.earlierBlock === undefined ? [] : [plan.earlierBlock]), ...movedOutAt(plan, cut)]

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
  const starts = Boundary.turnStarts(transcript)
  const candidates = starts.filter((start) => start > from)
  const newestUserStart = input.manual === true
    ? starts.findLast((start) => start > from && transcript[start]!._tag === "User")
    : undefined
  const boundary = newestUserStart ??
    Boundary.find(transcript, from, input.manual === true ? 0 : input.keepBudget, input.tokens, starts)

  // A staged approval still waiting for its answer stays verbatim after the block, with its call.
  const pending = Boundary.pendingApprovals(transcript, input.staged).map((o) => ({
    callIndex: o.callIndex,
    group: Boundary.obligationGroup(transcript, o.callIndex, o.toolCallId)
  }))
  return {
    transcript,
    kit: input.kit,
    prefix,
    from,
    boundary,
    candidates,
    pending,
    restoredPinned: restored.pinned,
    earlierBlock: restored.block,
    earlierWorkingState: restored.workingState,
    firstUser: TranscriptModel.firstUserMessage(transcript),
    compactions: input.compactions,
    trigger: input.trigger,
    blockParts: input.blockParts,
    blockLayout: input.blockLayout,
    sessionId: input.sessionId
  }
}

/** Where a cut's working state starts extending: the persisted state's span ends at the old boundary. */
const extendFrom = (plan: Plan): number => plan.earlierWorkingState === undefined ? plan.prefix : plan.from

/** What the history up to a cut says of the calls an earlier state left open: their results, their approvals. */
const historyAt = (plan: Plan, cuts: Cuts, cut: number): WorkingState.History => {
  const { prefix, transcript } = plan
  // The scripts the earlier blocks' span wrote from here-documents: one run in the new span edits what it opens.
  cuts.scriptsBefore ??= WorkingState.scriptsWritten(transcript.slice(prefix, extendFrom(plan)))
  const results = new Map<string, Transcript.ToolResult>()
  for (let index = prefix; index < cut; index++) {
    const message = transcript[index]!
    if (message._tag === "ToolResult" && !results.has(message.toolCallId)) results.set(message.toolCallId, message)
  }
  const pending = Boundary.pendingApprovals(transcript.slice(prefix, cut), cuts.staged)
  const stillPending = new Set(pending.map((obligation) => obligation.toolCallId))
  return { stillPending, resultOf: (id) => results.get(id), scripts: cuts.scriptsBefore, staged: cuts.staged }
}

/** At most this many characters of the messages before a span are read for where its numbers came from. */
const numberSourceChars = 200_000

/**
 * The messages just before the span a compaction adds (within {@link numberSourceChars}): where a number its first
 * message uses came from, when the old boundary cut the result it reads from off from it.
 */
const numberSources = (plan: Plan): Transcript.Transcript => {
  const end = extendFrom(plan)
  let start = end
  let chars = 0
  while (start > plan.prefix && chars < numberSourceChars) {
    chars += TranscriptModel.text(plan.transcript[--start]!).length
  }
  return plan.transcript.slice(start, end)
}

/**
 * The working state of the history up to a cut, as steps that pause every
 * few messages: the persisted state's, extended by the span from the old
 * boundary, so a compaction late in a long session reads only what it adds.
 * Kept in `cuts`: once run, {@link workingStateAt} of the cut is known.
 *
 * @since 0.1.0
 * @category planning
 */
export function* workingStateSteps(plan: Plan, cuts: Cuts, cut: number): Steps.Steps<WorkingState.WorkingState> {
  const known = cuts.workingStates.get(cut)
  if (known !== undefined) return known
  const earlier = plan.earlierWorkingState
  const span = plan.transcript.slice(extendFrom(plan), cut)
  const extracted = earlier === undefined
    ? yield* WorkingState.extractSteps(span, cuts.staged)
    : yield* WorkingState.extendSteps(earlier, span, historyAt(plan, cuts, cut))
  // Working ids and numbers are found by use across spans: the earlier block's text counts as what earlier results
  // produced. The two share the persisted list, the ids first.
  const earlierEntries = earlier?.workingIds ?? []
  const produced = plan.earlierBlock?.content ?? ""
  const workingIds = [
    ...WorkingIds.extract(span, earlierEntries.filter((entry) => !WorkingIds.isWorkingNumber(entry)), produced),
    ...WorkingIds.numbers(span, earlierEntries.filter(WorkingIds.isWorkingNumber), produced, numberSources(plan))
  ]
  const testCommands = WorkingIds.testCommands(span, TestRuns.isTestCommand, earlier?.testCommands ?? [])
  const working = workingIds.length === 0 && testCommands.length === 0
    ? extracted
    : { ...extracted, workingIds: [...workingIds], testCommands: [...testCommands] }
  cuts.workingStates.set(cut, working)
  return working
}

/**
 * The working state of the history up to a cut, at once (see {@link workingStateSteps}).
 *
 * @since 0.1.0
 * @category planning
 */
export const workingStateAt = (plan: Plan, cuts: Cuts, cut: number): WorkingState.WorkingState =>
  Steps.runSync(workingStateSteps(plan, cuts, cut))

/** A cut's archive path: the archive names what the cut moves out by digesting it, once per cut. */
const archivePathAt = (plan: Plan, cuts: Cuts, cut: number): string | undefined => {
  if (cuts.archivePathOf === undefined) return undefined
  if (!cuts.archivePaths.has(cut)) cuts.archivePaths.set(cut, cuts.archivePathOf(movedOutAt(plan, cut)))
  return cuts.archivePaths.get(cut)
}

/**
 * The block and view of a cut, with the summary if one is used; naming the
 * cut's archive path (found once per cut) unless `archived` is false (the
 * archive could not be written).
 *
 * @since 0.1.0
 * @category planning
 */
export const build = (plan: Plan, cuts: Cuts, cut: number, block: {
  readonly summary: string | undefined
  readonly fallbackReason: string | undefined
  readonly archived: boolean
}): BlockBuild.Built => {
  const archivePath = block.archived ? archivePathAt(plan, cuts, cut) : undefined
  return BlockBuild.build({
    transcript: plan.transcript,
    kit: plan.kit,
    prefix: plan.prefix,
    cut,
    pinned: pinnedAt(plan, cut),
    // Only an archived span's recall list reads what the cut moves out.
    movedOut: archivePath === undefined ? [] : movedOutAt(plan, cut),
    working: workingStateAt(plan, cuts, cut),
    newestError: NewestError.newestIn(plan.transcript.slice(plan.from, cut)) ??
      NewestError.fromBlock(plan.earlierBlock?.content),
    firstUser: plan.firstUser,
    earlierBlock: plan.earlierBlock?.content,
    compactions: plan.compactions,
    trigger: plan.trigger,
    blockParts: plan.blockParts,
    blockLayout: plan.blockLayout,
    count: cuts.count,
    sessionId: plan.sessionId,
    summary: block.summary,
    fallbackReason: block.fallbackReason,
    archivePath,
    narrowed: cuts.narrowed
  })
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
  /** The face's constructors, which make the block (`Transcript.kit`). */
  readonly kit: Transcript.Kit
  readonly restored: Restore.RestoredState
  /** The view restored: its system messages are counted against the tail's budget. */
  readonly view: Transcript.Transcript
  readonly compactions: number
  readonly settings: SettingsShape
  /** What the messages may take. */
  readonly trigger: number
  /** The most the view may take after the compaction. */
  readonly targetAfter: number
  readonly manual: boolean
  readonly tokens: (message: Transcript.Message) => number
  /** The session whose handles the block lists (none listed without it). */
  readonly sessionId?: string | undefined
  readonly blockLayout?: Budget.BlockLayout | undefined
  /** The engine's reading of which results stage an approval (`Boundary.Staged`). */
  readonly staged?: Boundary.Staged | undefined
}): Plan => {
  const { settings, tokens, trigger } = options
  const firstUser = TranscriptModel.firstUserMessage(options.transcript)
  const blockBudget = Budget.blockBudget(settings, trigger)
  const systemTokens = options.view.reduce((sum, message) => sum + (message._tag === "System" ? tokens(message) : 0), 0)
  return plan({
    transcript: options.transcript,
    kit: options.kit,
    restored: options.restored,
    compactions: options.compactions,
    trigger,
    blockParts: Budget.blockParts(
      blockBudget,
      trigger,
      firstUser === undefined ? 0 : tokens(firstUser),
      options.blockLayout
    ),
    blockLayout: options.blockLayout,
    keepBudget: Math.max(
      Math.min(Budget.keepBudget(settings, trigger), options.targetAfter - blockBudget - systemTokens),
      0
    ),
    manual: options.manual,
    tokens,
    sessionId: options.sessionId,
    staged: options.staged
  })
}
