/**
 * The offline summariser's writing, in the shared core: extractive and
 * deterministic, it writes the eight general sections (and the agentic ones
 * when the span holds agentic-workspace/v1 envelopes) from the span's
 * structure — the first request, the assistant's stated decisions and
 * intentions, the mechanically extracted working state, failures, the user's
 * messages, unfinished calls and pending approvals with their exact resume
 * calls. Over the transcript's structural messages, so both faces'
 * `SummarizerOffline` give the same text: each only runs its steps in its own
 * Effect.
 *
 * @since 0.1.0
 */
import * as SummaryPrompt from "../block/SummaryInstruction.js"
import * as Clip from "../reduce/Clip.js"
import type * as SummaryKey from "../services/SummaryKey.js"
import * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as ToolResultRead from "../working-state/ToolResultRead.js"
import * as WorkingStateInternal from "../working-state/WorkingState.js"
import * as Rendering from "../working-state/WorkingStateRender.js"
import * as Agentic from "./OfflineAgentic.js"

/**
 * What a section says when the span has nothing for it.
 *
 * @since 0.1.0
 * @category constants
 */
export const none = "None in this span."

/**
 * Who the offline summariser is, as the summary cache key names it (both
 * faces' `SummarizerOffline`): `promptVersion` is the version of its writing,
 * changed when what it writes for a span changes.
 *
 * @since 0.1.0
 * @category constants
 */
export const identity: SummaryKey.Identity = { kind: "offline", promptVersion: "1" }

const inline = Agentic.inline

const oneLine = Agentic.oneLine

const quote = (text: string, max: number): string =>
  Clip.headTail(text.trim(), max)
    .split("\n")
    .map((line) => (line.trim() === "" ? ">" : `> ${line}`))
    .join("\n")

/** The prose sentences of a message: code blocks and indented code left out. */
const sentencesOf = (text: string): ReadonlyArray<string> =>
  text
    .slice(0, 20_000)
    .replace(/```[\s\S]*?(?:```|$)/g, "\n")
    .split(/\n+|(?<=[.!?])\s+(?=[A-Z"'`(])/)
    .map((sentence) => sentence.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((sentence) => sentence.length >= 8 && !sentence.startsWith("    ") && !/^[#>|]/.test(sentence))

/** A choice, a cause found or a plan: what the agent concluded, not what it was about to look at. */
const decisionSentence =
  /^(?:(?:so|now|ok(?:ay)?|great|perfect|i see)[,!.]? )?(?:the (?:fix|issue|problem|root cause|cause|solution|bug|culprit|reason)\b|(?:i(?:'ve| have)? )?found (?:the|that)\b|i(?:'ve| have)? (?:decided|chose|concluded)\b|we (?:decided|agreed)\b|instead\b|the (?:best|right|correct|simplest|cleanest) (?:approach|fix|way|solution)\b|this (?:confirms|means|shows)\b|(?:my |the )?plan(?: is)?:|i(?:'ll| will) (?:change|modify|update|fix|replace|add|remove|rewrite|move|rename|implement|use)\b.*\b(?:because|so that|since|to (?:fix|handle|make|avoid|ensure|keep))\b)/i
const intentionSentence =
  /^(?:(?:now|next|then|first|so),? )?(?:i['’]ll|i will|let me|let's|i['’]m going to|i am going to|we['’]ll|we will|i need to|next,? i)\b/i
const todoSentence =
  /\b(?:TODO|FIXME|still (?:need|needs|have) to|yet to|not yet|remaining (?:work|tasks?|steps?|issues?)|left to do|should also|must also)\b/

/**
 * How many decisions the summary lists (the newest); the rest are counted,
 * with the messages that hold them.
 *
 * @since 0.1.0
 * @category constants
 */
export const decisionLimit = 8

/**
 * The assistant's decisions: statements of a choice, a cause found or a plan
 * ("The issue is…", "I'll change X because…", "Plan:"), never exploration
 * narration ("Let me look at…"); the newest {@link decisionLimit}, each once,
 * and how many more there are in which messages.
 *
 * @since 0.1.0
 * @category summarising
 */
export const keyDecisions = (
  assistants: ReadonlyArray<{ readonly id: string; readonly content: string }>
): { readonly shown: ReadonlyArray<string>; readonly more: number; readonly moreIn: ReadonlyArray<string> } => {
  const found: Array<{ readonly id: string; readonly text: string }> = []
  const seen = new Set<string>()
  for (const message of assistants) {
    for (const sentence of sentencesOf(message.content)) {
      if (!decisionSentence.test(sentence) || intentionOnly.test(sentence)) continue
      const text = oneLine(sentence, 240)
      if (seen.has(text)) continue
      seen.add(text)
      found.push({ id: message.id, text })
    }
  }
  const shown = found.slice(-decisionLimit)
  const earlier = found.slice(0, found.length - shown.length)
  return {
    shown: shown.map((entry) => entry.text),
    more: earlier.length,
    moreIn: Array.from(new Set(earlier.map((entry) => entry.id)))
  }
}

/** Narration that only announces a look (`Let me check…`), even when it mentions a cause. */
const intentionOnly =
  /^(?:(?:now|next|then|first|so),? )?(?:let me|let's|i['’]ll (?:look|check|search|run|examine|view|see|explore|find|read|open|try|inspect|investigate)|i need to (?:look|check|see|find))\b/i

/**
 * The call to re-issue once the user accepts a staged approval: the resume
 * record's tool and arguments, byte for byte; past `Envelope.resumeLimitChars`
 * characters of arguments, the recovery route that lists it.
 *
 * @since 0.1.0
 * @category agentic
 */
export const resumeCall: (resume: unknown, approvalId: string) => string = Agentic.resumeCall

/** The text of a section of an earlier compacted block: from its heading to the next heading of the same or a higher level. */
const earlierSection = (block: string, heading: string): string | undefined => {
  const name = heading.replace(/^#+\s*/, "").toLowerCase()
  const lines = block.split("\n")
  const start = lines.findIndex((line) => {
    const match = /^\s*(#{1,6})\s+\**\s*(.+?)\**\s*:?\s*$/.exec(line)
    return match !== null && match[2]!.toLowerCase().startsWith(name)
  })
  if (start === -1) return undefined
  const level = /^\s*(#+)/.exec(lines[start]!)![1]!.length
  const body: Array<string> = []
  for (const line of lines.slice(start + 1)) {
    const match = /^\s*(#{1,6})\s/.exec(line)
    if (match !== null && match[1]!.length <= level) break
    body.push(line)
  }
  const text = body.join("\n").trim()
  return text === "" || text === none ? undefined : text
}

/**
 * A section of an earlier summary as flat text: what it carried from the
 * summary before it loses its quote marks and its "From the earlier summary"
 * line, so that carrying it again quotes it once, not one level deeper at each
 * compaction.
 */
const unquoted = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !/^[\s>]*From the earlier summary \(/.test(line))
    .map((line) => line.replace(/^\s*(?:>\s?)+/, ""))
    .join("\n")
    .trim()

/** How many user messages the summary quotes: the first and the newest. */
const userMessageLimit = 20

/**
 * Writes the summary of a span, extractively: the eight general sections in
 * order, then the agentic sections that have something to say when the span
 * holds agentic-workspace/v1 envelopes. Pure and deterministic; a section with
 * nothing to say says so.
 *
 * @since 0.1.0
 * @category summarising
 */
export const summarize = (span: Transcript.Transcript, instructions?: string): string =>
  Steps.runSync(summarizeSteps(span, instructions))

/**
 * {@link summarize} as steps that pause every few messages, for the layer to
 * let the event loop run while a long span is summarised (each face's layer
 * runs them in its Effect).
 *
 * @since 0.1.0
 * @category summarising
 */
export function* summarizeSteps(span: Transcript.Transcript, instructions?: string): Steps.Steps<string> {
  const state = yield* WorkingStateInternal.extractSteps(span)
  yield
  const agentic = Agentic.collectAgentic(span)
  yield
  const users = span.filter((message): message is Transcript.UserMessage => message._tag === "User")
  const assistants = span.filter((message): message is Transcript.AssistantMessage => message._tag === "Assistant")
  const results = span.filter((message): message is Transcript.ToolResult => message._tag === "ToolResult")
  const earlier = span.filter((message): message is Transcript.CompactedBlock => message._tag === "Compacted")
  const callNames = new Map(
    assistants.flatMap((message) => message.toolCalls.map((call) => [call.id, call.name] as const))
  )
  const commandOf = new Map(state.commands.map((command) => [command.toolCallId, command] as const))

  // Files, errors and the user's messages are in the block's working state and
  // its section of the user's messages, across compactions: not carried again.
  const notCarried = new Set([
    SummaryPrompt.filesAndArtifacts,
    SummaryPrompt.errorsAndFixes,
    SummaryPrompt.userMessages
  ])
  const carried = (heading: string): ReadonlyArray<string> =>
    notCarried.has(heading) ? [] : earlier.flatMap((block) => {
      const text = earlierSection(block.content, heading)
      return text === undefined ? [] : [`From the earlier summary (${inline(block.id)}):`, quote(unquoted(text), 1_500)]
    })

  const sections: Array<readonly [string, ReadonlyArray<string>]> = []
  const section = (heading: string, body: ReadonlyArray<string>, whenEmpty: string): void => {
    const withEarlier = [...carried(heading), ...body]
    sections.push([heading, withEarlier.length === 0 ? [whenEmpty] : withEarlier])
  }

  // The block pins the session's first user message whole: it is named here, not repeated. In a span
  // after an earlier compaction, the first user message of the span is a later one, in the block's own list.
  const first = users[0]
  const focus = instructions?.trim()
  section(
    SummaryPrompt.primaryRequest,
    [
      ...(focus === undefined || focus === ""
        ? []
        : ["Focus requested for this compaction (the user's instructions):", quote(focus, 2_000)]),
      ...(earlier.length > 0
        ? (carried(SummaryPrompt.primaryRequest).length > 0
          ? []
          : ["The user's first message is pinned whole at the top of this block."])
        : first === undefined
        ? []
        : [
          `The user's first message (${
            inline(first.id)
          }) is pinned whole at the top of this block; it is not repeated here.`
        ])
    ],
    `${none} It holds no user message, so the request is the one the earlier context states.`
  )

  yield
  const decisions = keyDecisions(assistants)
  yield
  section(
    SummaryPrompt.keyDecisions,
    decisions.shown.length === 0 ? [] : [
      "As the assistant stated them (choices, causes found, plans; the newest):",
      ...decisions.shown.map((decision) => `- ${decision}`),
      ...(decisions.more === 0
        ? []
        : [
          `- … and ${decisions.more} earlier, in messages ${decisions.moreIn.slice(-12).map(inline).join(", ")}${
            decisions.moreIn.length > 12 ? ` and ${decisions.moreIn.length - 12} more` : ""
          }.`
        ])
    ],
    `${none} The assistant stated no decision, root cause or plan in its own words.`
  )

  const edited = state.edits.length === 0 ? state.filesWritten.length : state.edits.length
  const readOnly = state.filePaths.filter((path) => !state.filesWritten.includes(path)).length
  section(
    SummaryPrompt.filesAndArtifacts,
    edited + readOnly + state.artifacts.length === 0 ? [] : [
      `${edited} file${edited === 1 ? "" : "s"} changed, ${readOnly} only read, ${state.artifacts.length} artifact${
        state.artifacts.length === 1 ? "" : "s"
      }: ` +
      "per file, what happened, through which command and by which call, under Files in the working state below."
    ],
    `${none} No tool call wrote, edited or named a file, and no result reported an artifact.`
  )

  const fixed = state.failures.filter((failure) => failure.fixedBy !== null).length
  section(
    SummaryPrompt.errorsAndFixes,
    state.failures.length === 0 ? [] : [
      `${state.failures.length} failure${
        state.failures.length === 1 ? "" : "s"
      }, ${fixed} fixed by a later run of the same command that exited 0: ` +
      "each with its command, message and fix under Errors in the working state below."
    ],
    `${none} No tool result reported a failure: no non-zero exit, no error, no envelope with ok false.`
  )

  const others = users.filter((user) => user !== first || earlier.length > 0)
  section(
    SummaryPrompt.userMessages,
    others.length === 0 ? [] : [
      `${others.length} more: ${others.slice(-userMessageLimit).map((user) => inline(user.id)).join(", ")}${
        others.length > userMessageLimit ? ` (and ${others.length - userMessageLimit} earlier)` : ""
      }, quoted in the block's section of the user's messages (those its budget left out are named there).`
    ],
    `${none} The user wrote nothing else in it.`
  )

  const unfinished = state.unfinishedCalls.map((id) => {
    const approval = agentic?.approvals.find((candidate) => candidate.toolCallId === id)
    const command = commandOf.get(id)
    const what = `${callNames.get(id) ?? "unknown tool"}${command === undefined ? "" : ` ${inline(command.command)}`}`
    return approval === undefined
      ? `- Call ${inline(id)} (${what}) has no result in this span.`
      : `- Call ${inline(id)} (${what}) waits for approval ${inline(approval.id)}.`
  })
  // The resume call is written once, under the pending approvals section.
  const approvals = (agentic?.approvals ?? []).map((approval) =>
    `- Approval ${inline(approval.id)} (${approval.kind})${
      Agentic.answeredNote(approval)
    }: its exact resume call is under ${SummaryPrompt.pendingApprovals.replace(/^#+\s*/, "")} below.`
  )
  const stated: Array<string> = []
  let read = 0
  for (const message of span) {
    if (message._tag !== "User" && message._tag !== "Assistant") continue
    for (const sentence of sentencesOf(message.content)) if (todoSentence.test(sentence)) stated.push(sentence)
    if (++read % Steps.itemsPerStep === 0) yield
  }
  const todos = stated.slice(-6).map((sentence) => `- Stated: ${oneLine(sentence, 240)}`)
  section(
    SummaryPrompt.openTasks,
    [...approvals, ...unfinished, ...todos],
    `${none} Every tool call has its result, no approval is pending and no open item was stated.`
  )

  const lastAssistant = assistants.filter((message) => message.content.trim() !== "").at(-1)
  const lastResults = results.slice(-2).map((result) => {
    const tool = result.name ?? callNames.get(result.toolCallId) ?? "unknown tool"
    const command = commandOf.get(result.toolCallId)
    // Read as the working state reads it: without the paths its envelope declares omitted.
    const content = ToolResultRead.readToolResult(result.content).content
    return `- Tool result of call ${inline(result.toolCallId)} (${tool}${
      command === undefined ? "" : `, ${inline(command.command)}, ${Rendering.describeStatus(command)}`
    }), untrusted output: ${
      content.trim() === ""
        ? "empty"
        : inline(oneLine(content.slice(0, 2_000).replace(/<\/?(?:output|returncode|stdout|stderr)>/g, " "), 240))
    }`
  })
  section(
    SummaryPrompt.currentWork,
    [
      ...(lastAssistant === undefined
        ? []
        : [`The assistant's last message (${inline(lastAssistant.id)}):`, quote(lastAssistant.content, 800)]),
      ...(lastResults.length === 0 ? [] : ["The last tool results:", ...lastResults])
    ],
    `${none} It holds no assistant message and no tool result.`
  )

  const pendingApproval = agentic?.approvals.filter((approval) => approval.answeredIn === undefined).at(-1)
  const intention = lastAssistant === undefined
    ? undefined
    : sentencesOf(lastAssistant.content).filter((sentence) => intentionSentence.test(sentence)).at(-1)
  const lastUnfinished = state.unfinishedCalls.at(-1)
  section(
    SummaryPrompt.nextStep,
    pendingApproval !== undefined
      ? [
        `Wait for the user to accept approval ${inline(pendingApproval.id)}; once accepted, re-issue: ${
          inline(pendingApproval.resumeCall)
        }`
      ]
      : intention !== undefined
      ? [`As the assistant last stated it: ${oneLine(intention, 300)}`]
      : lastUnfinished !== undefined
      ? [
        `Obtain the result of call ${inline(lastUnfinished)} (${
          callNames.get(lastUnfinished) ?? "unknown tool"
        }), which the span left without one.`
      ]
      : [],
    `${none} No next action was stated; continue from the user's latest request.`
  )

  if (agentic !== undefined) {
    for (const [heading, body] of Agentic.agenticSectionBodies(agentic)) {
      if (body.length > 0) sections.push([heading, body])
    }
  }

  return sections.map(([heading, body]) => [heading, ...body].join("\n")).join("\n\n") + "\n"
}
