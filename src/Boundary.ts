/**
 * Where the older span ends: turn starts, pending obligations, and the
 * boundary itself (SPEC R2.2).
 *
 * @since 0.1.0
 */
import * as Envelope from "./Envelope.js"
import * as Json from "./Json.js"
import type * as Transcript from "./Transcript.js"
import * as Either from "effect/Either"

/**
 * The indices at which a turn may start: a user or assistant message before
 * which every tool call already has its result. Cutting there keeps each call
 * with its result and never puts a tool result at the head of a view.
 *
 * @since 0.1.0
 * @category boundaries
 */
export const turnStarts = (messages: Transcript.Transcript): ReadonlyArray<number> => {
  const starts: Array<number> = []
  const open = new Set<string>()
  messages.forEach((message, index) => {
    if ((message._tag === "User" || message._tag === "Assistant") && open.size === 0) starts.push(index)
    if (message._tag === "Assistant") for (const call of message.toolCalls) open.add(call.id)
    if (message._tag === "ToolResult") open.delete(message.toolCallId)
  })
  return starts
}

const answers = /(^|\s)\/(accept|reject|deny)\b/i

/**
 * The staged approvals that nobody answered yet: a tool result holding an
 * agentic-workspace/v1 envelope with `data.status: "pending_approval"`, with no
 * later user message that accepts, rejects or denies. Returns, for each, the
 * index of the assistant message that made the call, the call id and the approval id.
 *
 * @since 0.1.0
 * @category obligations
 */
export const pendingApprovals = (
  messages: Transcript.Transcript
): ReadonlyArray<{ readonly callIndex: number; readonly toolCallId: string; readonly approvalId: string | undefined }> => {
  const pending: Array<{ callIndex: number; toolCallId: string; approvalId: string | undefined }> = []
  const callIndex = new Map<string, number>()
  messages.forEach((message, index) => {
    if (message._tag === "Assistant") for (const call of message.toolCalls) callIndex.set(call.id, index)
    if (message._tag === "User" && answers.test(message.content)) {
      const named = Envelope.idsInText(message.content).filter((id) => id.startsWith("approval_"))
      // "/accept approval_x" answers that approval; a bare "/accept" answers every pending one.
      for (let i = pending.length - 1; i >= 0; i--) {
        if (named.length === 0 || (pending[i]!.approvalId !== undefined && named.includes(pending[i]!.approvalId!))) pending.splice(i, 1)
      }
    }
    if (message._tag === "ToolResult" && message.content.includes("pending_approval")) {
      const parsed = Json.parse(message.content)
      if (Either.isLeft(parsed) || !Envelope.isEnvelope(parsed.right)) return
      if (Json.getPath(parsed.right, "data.status") !== "pending_approval") return
      const approvalId = Json.getPath(parsed.right, "data.approval.id")
      const at = callIndex.get(message.toolCallId)
      if (at === undefined) return
      pending.push({ callIndex: at, toolCallId: message.toolCallId, approvalId: typeof approvalId === "string" ? approvalId : undefined })
    }
  })
  return pending
}

/**
 * The boundary: the earliest turn start after `from` whose verbatim suffix fits
 * `keepBudget` tokens — or the latest turn start when none fits — never past the
 * call of a pending approval, so an unanswered approval and its call stay
 * verbatim. `undefined` when no turn start after `from` can be the boundary.
 *
 * @since 0.1.0
 * @category boundaries
 */
export const find = (
  messages: Transcript.Transcript,
  from: number,
  keepBudget: number,
  tokens: (message: Transcript.Message) => number
): number | undefined => {
  const starts = turnStarts(messages).filter((start) => start > from)
  if (starts.length === 0) return undefined
  const suffix: Array<number> = new Array(messages.length + 1).fill(0)
  for (let i = messages.length - 1; i >= 0; i--) suffix[i] = suffix[i + 1]! + tokens(messages[i]!)
  let boundary = starts.find((start) => suffix[start]! <= keepBudget) ?? starts[starts.length - 1]!
  for (const obligation of pendingApprovals(messages)) {
    if (obligation.callIndex < boundary) {
      const before = starts.filter((start) => start <= obligation.callIndex)
      boundary = before.length > 0 ? before[before.length - 1]! : from
    }
  }
  return boundary > from ? boundary : undefined
}
