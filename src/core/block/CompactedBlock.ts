/**
 * The text of the compacted block (SPEC R2.3, R2.8): the pinned first user
 * message, the summary, the mechanically extracted working state with what
 * the summary missed, the user's other messages within their budget, and
 * where the verbatim turns are kept.
 *
 * @since 0.1.0
 */
import * as Clip from "../reduce/Clip.js"
import type * as Transcript from "../transcript/TranscriptData.js"

/**
 * The id of the block a session's `compactions`-th compaction makes.
 *
 * @since 0.1.0
 * @category ids
 */
export const idOf = (compactions: number): string => `compacted-${compactions}`

/**
 * The compaction a block's id names (the inverse of {@link idOf}), or
 * `undefined` for an id it did not make.
 *
 * @since 0.1.0
 * @category ids
 */
export const compactionsOfId = (id: string): number | undefined => {
  const number = /^compacted-(\d+)$/.exec(id)?.[1]
  return number === undefined ? undefined : Number(number)
}

/**
 * What a block is made of.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parts {
  /** The accepted summary; absent when the trim fallback was used. */
  readonly summary: string | undefined
  /** Why there is no summary, when there is none. */
  readonly fallbackReason?: string | undefined
  /** The working state, rendered. */
  readonly workingState: string
  /** Protected facts (ids, paths, calls) the summary does not mention. */
  readonly missingFromSummary: ReadonlyArray<string>
  readonly firstUserMessage: Transcript.UserMessage | undefined
  /** The other user messages of the compacted history, oldest first. */
  readonly userMessages: ReadonlyArray<Transcript.UserMessage>
  /** Tokens the user messages may take (the pinned one aside). */
  readonly userMessageBudget: number
  /** Tokens the pinned first message may take. */
  readonly pinnedMessageTokens: number
  /** Tokens the summary may take: a longer one is clipped head and tail (default: unbounded). */
  readonly summaryTokens?: number | undefined
  /** Tokens the facts the summary missed may take, the newest first (default: {@link missingFactsShown} of them). */
  readonly missingTokens?: number | undefined
  readonly tokens: (text: string) => number
  /** The span replaced: first and last message ids, and how many messages. */
  readonly replaced: { readonly firstId: string; readonly lastId: string; readonly count: number }
  /** Where the verbatim compacted turns were written, when they were. */
  readonly archivePath?: string | undefined
  /** The list of compacted messages by recall handle (`Handles.section`), last in the block; absent or empty for none. */
  readonly recallSection?: string | undefined
}

/**
 * The rendered block and how many user messages its budget left out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rendered {
  readonly content: string
  readonly userMessagesOmitted: number
  /** Facts the summary missed that the block's budget left out (the least recently used: the oldest). */
  readonly factsDropped: number
  /** Tokens of the summary clipped to keep the block within its budget. */
  readonly summaryTokensDropped: number
}

/** Clips text to about `maxTokens`, head and tail, by the ratio of characters to tokens. */
const clipToTokens = (text: string, maxTokens: number, tokens: (text: string) => number): string => {
  const count = tokens(text)
  if (count <= maxTokens) return text
  return Clip.headTail(text, Math.max(Clip.minimumMax, Math.floor((text.length * maxTokens) / count)))
}

/** Whether `text` holds `fact` as a whole word (`tx_ab12` is not in `tx_ab123`). */
const mentions = (text: string, fact: string): boolean => {
  if (fact === "") return true
  for (let at = text.indexOf(fact); at !== -1; at = text.indexOf(fact, at + 1)) {
    const before = text[at - 1]
    const after = text[at + fact.length]
    if ((before === undefined || !/[\w-]/.test(before)) && (after === undefined || !/[\w-]/.test(after))) return true
  }
  return false
}

/**
 * How many of the facts the summary missed the block lists; the newest ones.
 *
 * @since 0.1.0
 * @category constants
 */
export const missingFactsShown = 200

/**
 * The heading every compacted block opens with.
 *
 * @since 0.1.0
 * @category constants
 */
export const heading = "# Context compacted"

/**
 * The heading of a block's summary.
 *
 * @since 0.1.0
 * @category constants
 */
export const summaryHeading = "## Summary of the compacted span"

/**
 * The heading of a block's working state, which follows its summary.
 *
 * @since 0.1.0
 * @category constants
 */
export const workingStateHeading = "## Working state (extracted mechanically)"

/**
 * What a later compaction's summariser is shown of an earlier block: its
 * summary, from its heading to the working state's. The rest goes
 * into the next block without the summariser: the pinned first message and
 * the user's messages are carried over, the working state is extended by the
 * new span, the recall handles are listed again. A text without the summary's
 * heading (a block written elsewhere, or clipped before it) is given whole.
 *
 * @since 0.1.0
 * @category rendering
 */
export const summaryPart = (content: string): string => {
  const start = content.indexOf(`${summaryHeading}\n`)
  if (start === -1) return content
  const end = content.indexOf(`\n${workingStateHeading}\n`, start)
  return content.slice(start, end === -1 ? undefined : end).trimEnd()
}

/**
 * Renders a compacted block.
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (parts: Parts): Rendered => {
  const { count, firstId, lastId } = parts.replaced
  const where = parts.archivePath === undefined
    ? "The session's transcript keeps them verbatim (it is never modified)."
    : !parts.archivePath.endsWith(".jsonl")
    ? `They are kept verbatim in the session's transcript and in ${parts.archivePath}.`
    : `They are kept verbatim in the session's transcript; those this compaction moved out are also in ${parts.archivePath} (one JSON message a line), and those of earlier compactions in the files beside it.`
  const lines: Array<string> = [
    heading,
    "",
    `This block stands for messages ${firstId} to ${lastId} (${count} messages) of this session. ${where} ` +
    "To get an id or a detail back, search those messages for it, or re-read it with the tool that produced it " +
    "(for agentic-workspace state, workspace_inspect { action: \"changes\" } lists pending approvals, plans and jobs).",
    ""
  ]
  if (parts.firstUserMessage !== undefined) {
    lines.push(
      `## The user's first message (${parts.firstUserMessage.id}, pinned)`,
      "",
      clipToTokens(parts.firstUserMessage.content, parts.pinnedMessageTokens, parts.tokens),
      ""
    )
  }
  lines.push(summaryHeading, "")
  const summary = parts.summary === undefined || parts.summaryTokens === undefined
    ? parts.summary
    : clipToTokens(parts.summary, parts.summaryTokens, parts.tokens)
  const summaryTokensDropped = summary === parts.summary || parts.summary === undefined
    ? 0
    : Math.max(parts.tokens(parts.summary) - parts.tokens(summary!), 0)
  lines.push(
    summary ??
      `[No summary: ${parts.fallbackReason ?? "the summariser was not used"}. The oldest turns were trimmed; ` +
        "the working state and the user's messages below were extracted mechanically.]",
    ""
  )
  lines.push(
    workingStateHeading,
    "",
    parts.workingState.trim() === "" ? "Nothing extracted." : parts.workingState.trim(),
    ""
  )
  // A fact the working state above already states is not listed again.
  const missing = parts.missingFromSummary.filter((fact) => !mentions(parts.workingState, fact))
  let factsDropped = 0
  if (missing.length > 0) {
    // The newest facts first in importance: a long history lists the rest by count.
    let shown = missing.slice(-missingFactsShown)
    if (parts.missingTokens !== undefined) {
      let used = 0
      let from = shown.length
      while (from > 0 && used + parts.tokens(shown[from - 1]!) + 2 <= parts.missingTokens) {
        used += parts.tokens(shown[--from]!) + 2
      }
      shown = shown.slice(from)
    }
    const more = missing.length - shown.length
    factsDropped = more
    lines.push(
      "### Not mentioned by the summary",
      "",
      ...(more > 0 ? [`- (${more} earlier ones are in the verbatim transcript)`] : []),
      ...shown.map((fact) => `- ${fact}`),
      ""
    )
  }

  // The newest user messages fill the budget backwards; what does not fit is
  // left out from the middle, between the pinned first message and the kept ones.
  const kept: Array<Transcript.UserMessage> = []
  let used = 0
  for (let i = parts.userMessages.length - 1; i >= 0; i--) {
    const message = parts.userMessages[i]!
    const cost = parts.tokens(message.content)
    if (used + cost > parts.userMessageBudget) break
    kept.unshift(message)
    used += cost
  }
  const omitted = parts.userMessages.slice(0, parts.userMessages.length - kept.length)
  if (parts.userMessages.length > 0) {
    lines.push("## The user's other messages, oldest first", "")
    if (omitted.length > 0) {
      lines.push(
        `[${omitted.length} user message${omitted.length === 1 ? "" : "s"} omitted here, ${omitted[0]!.id} to ${
          omitted[omitted.length - 1]!.id
        }: ` +
          "they are in the session's transcript]",
        ""
      )
    }
    for (const message of kept) lines.push(`[${message.id}] ${message.content}`, "")
  }
  if (parts.recallSection !== undefined && parts.recallSection !== "") lines.push(parts.recallSection)
  return {
    content: lines.join("\n").trimEnd() + "\n",
    userMessagesOmitted: omitted.length,
    factsDropped,
    summaryTokensDropped
  }
}
