/**
 * A compaction's block at one cut, and the view it gives: the working state
 * within its part of the block, the facts the summary does not mention, the
 * recall handles of the span when it is archived, the user's words, each part
 * within the block's budget (`Budget.blockParts`), the summary giving first
 * what the block is over, then the handle list, then the working state. Pure:
 * the plan gives it what the cut moves out and the working state up to it.
 *
 * @since 0.1.0
 */
import * as Budget from "../checkpoint/Budget.js"
import * as RestoredView from "../checkpoint/RestoredView.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as TranscriptModel from "../transcript/TranscriptData.js"
import * as NewestError from "../working-state/NewestError.js"
import * as WorkingIds from "../working-state/WorkingIds.js"
import * as WorkingState from "../working-state/WorkingState.js"
import * as WorkingStateRender from "../working-state/WorkingStateRender.js"
import * as CompactedBlock from "./CompactedBlock.js"
import * as Handles from "./Handles.js"

const wordLike = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const summaryWords = /[A-Za-z0-9][A-Za-z0-9_-]*/g

/**
 * The facts the summary does not mention. An id must appear as a whole word
 * (`tx_ab12` is not mentioned by `tx_ab123`), looked up in the summary's words
 * at once: a long history has thousands of ids. Paths must appear exactly.
 *
 * @since 0.1.0
 * @category planning
 */
export const missingFrom = (summary: string | undefined, facts: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (summary === undefined) return []
  let words: ReadonlySet<string> | undefined
  return facts.filter((fact) => {
    if (!wordLike.test(fact)) return !summary.includes(fact)
    words ??= new Set(summary.match(summaryWords))
    return !words.has(fact)
  })
}

/**
 * The working state as the block shows it: the latest test commands first (what a resumed agent runs
 * again), then the rendered state within what they leave of the budget, then the working ids.
 */
const workingStateText = (
  working: WorkingState.WorkingState,
  maxTokens: number,
  count: (text: string) => number,
  compactFiles: boolean,
  newestError: NewestError.NewestError | undefined
): string => {
  // The newest error output, when it takes at most a sixth of the budget (a small block keeps its files first).
  const quoted = newestError === undefined ? "" : NewestError.section(newestError)
  const error = count(quoted) <= Math.floor(maxTokens / 6) ? quoted : ""
  const tests = error + (working.testCommands.length === 0
    ? ""
    : `### Latest test commands (oldest first)\n${
      working.testCommands.map((command) =>
        `- ${WorkingStateRender.inlineCode(command.length > 400 ? `${command.slice(0, 400)}…` : command)}`
      ).join("\n")
    }\n\n`)
  const ids = workingIdsSection(
    working.workingIds.filter((entry) => !WorkingIds.isWorkingNumber(entry)),
    Math.floor(maxTokens / 5),
    count
  )
  const numbers = workingNumbersSection(
    working.workingIds.filter(WorkingIds.isWorkingNumber),
    Math.floor(maxTokens / 10),
    count
  )
  const rest = Math.max(maxTokens - count(tests) - count(ids) - count(numbers), 0)
  return tests + WorkingState.render(working, { maxTokens: rest, tokens: count, compactFiles }) + ids + numbers
}

/**
 * The newest entries whose list, as `show` renders it, fits `maxTokens` (at least one), oldest first, and how many
 * are left out.
 */
const newestFitting = (
  entries: ReadonlyArray<string>,
  maxTokens: number,
  count: (text: string) => number,
  show: (shown: ReadonlyArray<string>) => string
): { readonly shown: ReadonlyArray<string>; readonly more: number } => {
  let taken = Math.min(entries.length, 1)
  while (taken < entries.length && count(show(entries.slice(-(taken + 1)))) <= maxTokens) taken++
  return { shown: entries.slice(entries.length - taken), more: entries.length - taken }
}

/** The working numbers the block lists (a number a tool result gave that a later message used), as the ids are. */
const workingNumbersSection = (
  numbers: ReadonlyArray<string>,
  maxTokens: number,
  count: (text: string) => number
): string => {
  const heading = `

### Numbers in use (a tool result gave them, a later message used them; the most recent last)

`
  // None when the budget cannot hold the heading and a few numbers (the smallest blocks keep their files first).
  const room = maxTokens - count(heading)
  if (numbers.length === 0 || room < 8) return ""
  const { more, shown } = newestFitting(numbers, room, count, (shown) => shown.join(", "))
  return heading + shown.join(", ") + (more > 0 ? ` (and ${more} used earlier, in the verbatim transcript)` : "")
}

/** The working ids the block lists, the most recently used that fit `maxTokens`, with the count of the rest. */
const workingIdsSection = (ids: ReadonlyArray<string>, maxTokens: number, count: (text: string) => number): string => {
  if (ids.length === 0) return ""
  const shown: Array<string> = []
  let used = 0
  for (let i = ids.length - 1; i >= 0; i--) {
    const cost = count(ids[i]!) + 2
    if (used + cost > maxTokens && shown.length > 0) break
    shown.unshift(ids[i]!)
    used += cost
  }
  const more = ids.length - shown.length
  return `

### Ids in use (a tool result gave them, a later call used them; the most recent last)

${shown.map(WorkingStateRender.inlineCode).join(", ")}` +
    (more > 0 ? ` (and ${more} used earlier, in the verbatim transcript)` : "")
}

/**
 * What a block at one cut is built from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly transcript: Transcript.Transcript
  /** The face's constructors, which make the block (`Transcript.kit`). */
  readonly kit: TranscriptModel.Kit
  /** The system messages at the head of the transcript. */
  readonly prefix: number
  /** Where the verbatim part starts after the block. */
  readonly cut: number
  /** The messages the cut pins after the block. */
  readonly pinned: ReadonlyArray<number>
  /** What the cut moves out of the view: the span an archived block's recall list names (read only with `archivePath`). */
  readonly movedOut: Transcript.Transcript
  /** The working state of the history up to the cut. */
  readonly working: WorkingState.WorkingState
  readonly firstUser: Transcript.UserMessage | undefined
  /** The newest error output of the history up to the cut, when the block quotes one (`NewestError`). */
  readonly newestError?: NewestError.NewestError | undefined
  /** The text of the block in force before this compaction, if any. */
  readonly earlierBlock: string | undefined
  /** The number of this compaction (the block's id). */
  readonly compactions: number
  readonly trigger: number
  /** The block's parts, in tokens (`Budget.blockParts`); default: the seed's budgets of the trigger. */
  readonly blockParts?: Budget.BlockParts | undefined
  /** How the block spends its room (`Budget.BlockLayout`, default "reuse"). */
  readonly blockLayout?: Budget.BlockLayout | undefined
  /** The token count of a text. */
  readonly count: (text: string) => number
  /** The session: with it, a block whose span is archived lists the span's messages by recall handle. */
  readonly sessionId?: string | undefined
  /** The accepted summary, if one is used. */
  readonly summary: string | undefined
  readonly fallbackReason: string | undefined
  /** Where the span is archived, if it is. */
  readonly archivePath: string | undefined
  /** The engine's narrowed pinned messages (`RestoredView.Narrowed`): none, a narrowed message is made anew. */
  readonly narrowed?: RestoredView.Narrowed | undefined
}

/**
 * A block and the view it gives at one cut.
 *
 * @since 0.1.0
 * @category models
 */
export interface Built {
  readonly block: Transcript.CompactedBlock
  readonly missing: ReadonlyArray<string>
  readonly pinned: ReadonlyArray<number>
  readonly rendered: CompactedBlock.Rendered
  readonly view: Transcript.Transcript
  /** Where the block says the span is archived: the cut's archive path, none when it is not archived. */
  readonly archivePath: string | undefined
}

/**
 * Builds the block of a cut and the view it gives.
 *
 * @since 0.1.0
 * @category building
 */
export const build = (input: Input): Built => {
  const { archivePath, cut, fallbackReason, firstUser, pinned, prefix, summary, transcript, working } = input
  const history = transcript.slice(prefix, cut)
  // The working numbers are listed in the block whatever the summary says: not facts to check.
  const facts = [
    ...working.protectedIds,
    ...working.filesWritten,
    ...working.unfinishedCalls,
    ...working.workingIds.filter((entry) => !WorkingIds.isWorkingNumber(entry))
  ]
  const missing = missingFrom(summary, Array.from(new Set(facts)))
  const parts = input.blockParts
  // A bounded block: the working state takes three quarters of its part, the facts the summary missed the rest.
  const workingStateTokens = parts === undefined
    ? Budget.workingStateBudget(input.trigger)
    : Math.floor(parts.workingState * 0.75)
  const recallBudget = Math.floor((parts?.budget ?? Budget.workingStateBudget(input.trigger)) * Handles.blockShare)
  const listing = input.sessionId === undefined || archivePath === undefined ? undefined : Handles.blockListing({
    sessionId: input.sessionId,
    span: input.movedOut,
    summary,
    transcript,
    earlierBlock: input.earlierBlock
  })
  const recallSection = (maxTokens: number) =>
    listing === undefined ? undefined : Handles.section(listing.entries, listing.more, maxTokens, input.count).text
  const renderWith = (
    summaryTokens: number | undefined,
    recallTokens = recallBudget,
    stateTokens = workingStateTokens
  ) =>
    CompactedBlock.render({
      summary,
      archivePath,
      recallSection: recallSection(recallTokens),
      fallbackReason,
      workingState: workingStateText(
        working,
        stateTokens,
        input.count,
        input.blockLayout !== "summary",
        input.newestError
      ),
      missingFromSummary: missing,
      ...(parts === undefined ? {} : { missingTokens: parts.workingState - workingStateTokens, summaryTokens }),
      firstUserMessage: firstUser,
      userMessages: history.filter((m): m is Transcript.UserMessage => m._tag === "User" && m.id !== firstUser?.id),
      userMessageBudget: parts?.userMessages ?? Budget.userMessageBudget(input.trigger),
      pinnedMessageTokens: parts?.pinned ?? Budget.pinnedMessageTokens,
      tokens: input.count,
      replaced: {
        firstId: transcript[prefix]?.id ?? "",
        lastId: transcript[cut - 1]?.id ?? "",
        count: cut - prefix - pinned.length
      }
    })
  // The parts are budgets of their content; the headings and notes around them vary: a block still over its
  // budget gives what it is over from the summary, its most elastic part.
  let summaryTokens = parts?.summary
  let rendered = renderWith(summaryTokens)
  if (parts !== undefined && summary !== undefined) {
    // Taken high: the block's own overhead as a message, and clipping by characters is not exact in tokens.
    const over = input.count(rendered.content) + 8 - parts.budget
    if (over > 0) rendered = renderWith(summaryTokens = Math.max(parts.summary - Math.ceil(over * 1.1) - 8, 0))
  }
  // A block the summary alone cannot bring within its budget gives the rest from its handle list.
  const overWithList = parts === undefined || listing === undefined
    ? 0
    : input.count(rendered.content) + 8 - parts.budget
  const recallTokens = overWithList > 0 ? Math.max(recallBudget - Math.ceil(overWithList * 1.1) - 8, 0) : recallBudget
  if (overWithList > 0) rendered = renderWith(summaryTokens, recallTokens)
  // In the smallest blocks neither may be enough: the working state gives the rest (its least valuable sections go first).
  const overWithState = parts === undefined || input.blockLayout === "summary"
    ? 0
    : input.count(rendered.content) + 8 - parts.budget
  if (overWithState > 0) {
    rendered = renderWith(
      summaryTokens,
      recallTokens,
      Math.max(workingStateTokens - Math.ceil(overWithState * 1.1) - 8, 0)
    )
  }
  const block = input.kit.compactedBlock({
    id: CompactedBlock.idOf(input.compactions),
    content: rendered.content,
    firstReplacedId: transcript[prefix]?.id ?? "",
    lastReplacedId: transcript[cut - 1]?.id ?? ""
  })
  const view = RestoredView.viewOf(transcript, prefix, block, pinned, cut, input.narrowed)
  return { block, missing, pinned, rendered, view, archivePath }
}
