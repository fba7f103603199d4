/**
 * Staged approvals of agentic-workspace/v1 envelopes, the one home of two
 * rules the boundary, the view's ladder and the offline summariser share:
 * which tool result stages an approval (`data.status: "pending_approval"`),
 * and which user message answers one (`/accept`, `/reject` or `/deny`: the
 * approvals it names, or every one staged before it when it names none).
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as Ids from "./Ids.js"

/**
 * Whether a tool result's text may stage an approval: the cheap test before
 * its envelope is parsed (a text without the status word cannot).
 *
 * @since 0.1.0
 * @category guards
 */
export const mayStage = (content: string): boolean => content.includes("pending_approval")

/**
 * Whether a parsed envelope stages an approval: its `data.status` is
 * `"pending_approval"`.
 *
 * @since 0.1.0
 * @category guards
 */
export const stages = (envelope: unknown): boolean => Json.getPath(envelope, "data.status") === "pending_approval"

/**
 * What a user message answers: `undefined` when it answers no approval, else
 * the approval ids it names (none: it answers every approval staged before it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  readonly named: ReadonlyArray<string>
}

const answerCommand = /(?:^|\s)\/(?:accept|reject|deny)\b/i

/**
 * The answer a user message's text gives: `/accept`, `/reject` or `/deny` at
 * its start or after a space; `undefined` when it has none.
 *
 * @since 0.1.0
 * @category answers
 */
export const answerIn = (content: string): Answer | undefined =>
  answerCommand.test(content) ? { named: Ids.idsInText(content).filter((id) => id.startsWith("approval_")) } : undefined

/**
 * Whether an answer answers an approval: it names none ("/accept" answers
 * every pending one), or it names this one (an approval without an id is
 * answered only by a bare answer).
 *
 * @since 0.1.0
 * @category answers
 */
export const answers = (answer: Answer, approvalId: string | undefined): boolean =>
  answer.named.length === 0 || (approvalId !== undefined && answer.named.includes(approvalId))
