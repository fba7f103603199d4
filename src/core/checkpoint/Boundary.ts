/**
 * Where the older span ends: turn starts, pending obligations, and the
 * boundary itself (SPEC R2.2).
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Json from "../json/JsonTree.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as Approvals from "../working-state/Approvals.js"

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
    if (message._tag === "Assistant") { for (const call of message.toolCalls) open.add(call.id) }
    if (message._tag === "ToolResult") open.delete(message.toolCallId)
  })
  return starts
}

/**
 * Whether each tool result stages an approval, as read once: the engine owns
 * one (made by {@link stagedMemo}), so a checkpoint that compacts does not
 * read every result of a long history again, nor do the plan and the working
 * state's extraction of one checkpoint each read them. Without it, each
 * reading reads them anew.
 *
 * @since 0.1.0
 * @category models
 */
export interface Staged {
  readonly byMessage: WeakMap<Transcript.ToolResult, { readonly approvalId: string | undefined } | null>
}

/**
 * An empty {@link Staged}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stagedMemo = (): Staged => ({ byMessage: new WeakMap() })

const stagedApproval = (
  message: Transcript.ToolResult,
  memo: Staged | undefined
): { readonly approvalId: string | undefined } | null => {
  const known = memo?.byMessage.get(message)
  if (known !== undefined) return known
  const staged = readStaged(message)
  memo?.byMessage.set(message, staged)
  return staged
}

/** Whether a tool result stages an approval, and its approval's id (only a result that may stage one is parsed). */
const readStaged = (message: Transcript.ToolResult): { readonly approvalId: string | undefined } | null => {
  if (!Approvals.mayStage(message.content)) return null
  // Only strings are read: the plain parse is enough.
  const parsed = JsonReader.read(message.content, { exactIntegers: false })
  if (parsed._tag === "Err" || !Envelope.isEnvelope(parsed.value) || !Approvals.stages(parsed.value)) return null
  const approvalId = Json.getPath(parsed.value, "data.approval.id")
  return { approvalId: typeof approvalId === "string" ? approvalId : undefined }
}

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
  messages: Transcript.Transcript,
  staged?: Staged | undefined
): ReadonlyArray<
  { readonly callIndex: number; readonly toolCallId: string; readonly approvalId: string | undefined }
> => {
  const pending: Array<{ callIndex: number; toolCallId: string; approvalId: string | undefined }> = []
  const callIndex = new Map<string, number>()
  messages.forEach((message, index) => {
    if (message._tag === "Assistant") { for (const call of message.toolCalls) callIndex.set(call.id, index) }
    const answer = message._tag === "User" ? Approvals.answerIn(message.content) : undefined
    if (answer !== undefined) {
      for (let i = pending.length - 1; i >= 0; i--) {
        if (Approvals.answers(answer, pending[i]!.approvalId)) pending.splice(i, 1)
      }
    }
    if (message._tag === "ToolResult") {
      const approval = stagedApproval(message, staged)
      if (approval === null) return
      const at = callIndex.get(message.toolCallId)
      if (at === undefined) return
      pending.push({ callIndex: at, toolCallId: message.toolCallId, approvalId: approval.approvalId })
    }
  })
  return pending
}

/**
 * The boundary: the earliest turn start after `from` whose verbatim suffix fits
 * `keepBudget` tokens, or the latest turn start when none fits. `undefined`
 * when no turn start after `from` can be the boundary. `allStarts` are the
 * transcript's turn starts, for a caller that has them already.
 *
 * @since 0.1.0
 * @category boundaries
 */
export const find = (
  messages: Transcript.Transcript,
  from: number,
  keepBudget: number,
  tokens: (message: Transcript.Message) => number,
  allStarts: ReadonlyArray<number> = turnStarts(messages)
): number | undefined => {
  const starts = allStarts.filter((start) => start > from)
  if (starts.length === 0) return undefined
  let suffix = 0
  let boundary = starts[starts.length - 1]!
  // Walk back from the newest turn start while the suffix still fits.
  let next = messages.length
  for (let i = starts.length - 1; i >= 0; i--) {
    for (let m = starts[i]!; m < next; m++) suffix += tokens(messages[m]!)
    next = starts[i]!
    if (suffix > keepBudget) break
    boundary = starts[i]!
  }
  return boundary
}

/**
 * The messages that carry a pending approval: the assistant message that made
 * the call and the call's result. They stay verbatim in the view, after the
 * compacted block, while the approval waits for an answer (the view shows the
 * assistant message with that call only, so every call in it has its result).
 *
 * @since 0.1.0
 * @category obligations
 */
export const obligationGroup = (
  messages: Transcript.Transcript,
  callIndex: number,
  toolCallId: string
): ReadonlyArray<number> => {
  const assistant = messages[callIndex]
  if (assistant?._tag !== "Assistant") return []
  for (let i = callIndex + 1; i < messages.length; i++) {
    const message = messages[i]!
    if (message._tag === "ToolResult" && message.toolCallId === toolCallId) return [callIndex, i]
  }
  return []
}
