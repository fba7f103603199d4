/**
 * The checks of an outbound view (SPEC R2.8) as the shared core makes them:
 * calls and results paired, no tool result at the head, the first user
 * message present, the fit to the trigger; each violation as plain data
 * (`ViewCheck.check` is the Effect 3 face, its `Violation` a Schema class).
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import * as ViewRepair from "./ViewRepair.js"

/**
 * What is wrong with a view.
 *
 * @since 0.1.0
 * @category models
 */
export type ViolationKind =
  | "call-without-result"
  | "result-without-call"
  | "result-heads-view"
  | "first-user-message-missing"
  | "over-trigger"

/**
 * One violation of a view: its kind and what it concerns.
 *
 * @since 0.1.0
 * @category models
 */
export interface Violation {
  readonly kind: ViolationKind
  readonly detail: string
}

/**
 * What a check needs besides the view.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The session's first user message: present whole, or pinned in a compacted block. */
  readonly firstUserMessage?: Transcript.UserMessage | undefined
  /** The trigger and the reply reserve, in tokens, with a token count of messages. */
  readonly fit?: {
    readonly trigger: number
    readonly replyReserve: number
    readonly tokens: (message: Transcript.Message) => number
  }
}

/** How much of the first user message a compacted block must hold to count as pinning it. */
const pinnedProbeChars = 200

/**
 * Checks an outbound view: every tool call has its result and every result
 * its call, paired by position (a call's results are the tool messages after it) (the calls of a final assistant message with nothing after them
 * are in flight, and allowed); no tool result heads the view (after system
 * messages); the first user message is present; the view fits the trigger
 * with room for the reply. Returns the violations, none for a good view.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (view: Transcript.Transcript, options: Options = {}): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  const calls = new Map<string, number>()
  const answered = new Set<string>()
  // Calls and results pair by position: a call id used again by a later call is no violation.
  ViewRepair.uniqueCallIds(view).transcript.forEach((message, index) => {
    if (message._tag === "Assistant") { for (const call of message.toolCalls) calls.set(call.id, index) }
    if (message._tag === "ToolResult") {
      if (!calls.has(message.toolCallId)) {
        violations.push(
          {
            kind: "result-without-call",
            detail: `tool result ${message.id} answers ${message.toolCallId}, which no earlier assistant message calls`
          }
        )
      }
      answered.add(message.toolCallId)
    }
  })
  const lastAssistant = view.findLastIndex((message) => message._tag === "Assistant")
  const inFlight = lastAssistant >= 0 && view.slice(lastAssistant + 1).every((message) => message._tag === "ToolResult")
  for (const [id, index] of calls) {
    if (answered.has(id) || (inFlight && index === lastAssistant)) continue
    violations.push(
      {
        kind: "call-without-result",
        detail: `tool call ${id} of message ${view[index]!.id} has no result in the view`
      }
    )
  }
  const head = view.find((message) => message._tag !== "System")
  if (head?._tag === "ToolResult") {
    violations.push({ kind: "result-heads-view", detail: `the view starts with tool result ${head.id}` })
  }
  const first = options.firstUserMessage
  if (first !== undefined) {
    const probe = first.content.slice(0, pinnedProbeChars)
    const present = view.some(
      (message) =>
        (message._tag === "User" && (message.id === first.id || message.content === first.content)) ||
        (message._tag === "Compacted" && message.content.includes(probe))
    )
    if (!present) {
      violations.push(
        {
          kind: "first-user-message-missing",
          detail: `the first user message ${first.id} is neither in the view nor pinned in its compacted block`
        }
      )
    }
  }
  if (options.fit !== undefined) {
    const { replyReserve, tokens, trigger } = options.fit
    const total = view.reduce((sum, message) => sum + tokens(message), 0)
    if (total + replyReserve > trigger) {
      violations.push(
        {
          kind: "over-trigger",
          detail:
            `the view has ${total} tokens; with ${replyReserve} reserved for the reply it passes the trigger of ${trigger}`
        }
      )
    }
  }
  return violations
}
