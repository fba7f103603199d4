/**
 * The invariant check of an outbound view, for the engine and for users: a
 * view that fails it would be refused by a provider or mislead the model.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as ViewViolations from "../../core/checkpoint/ViewViolations.js"
import type * as Transcript from "../models/Transcript.js"

/**
 * What a view can get wrong.
 *
 * @since 0.1.0
 * @category models
 */
export const ViolationKind = Compat.Literals([
  "call-without-result",
  "result-without-call",
  "result-heads-view",
  "first-user-message-missing",
  "over-trigger"
])

/**
 * One violation, with a sentence naming the messages involved.
 *
 * @since 0.1.0
 * @category models
 */
export class Violation extends Schema.Class<Violation>("Violation")({
  kind: ViolationKind,
  detail: Schema.String
}) {}

/**
 * What the check needs besides the view.
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

/**
 * Checks an outbound view: every tool call has its result and every result
 * its call, paired by position (a call's results are the tool messages after it) (the calls of a final assistant message with nothing after them
 * are in flight, and allowed); no tool result heads the view (after system
 * messages); the first user message is present; the view fits the trigger
 * with room for the reply. Returns the violations, none for a good view.
 * The checks are the shared core's (`core/checkpoint/ViewViolations.ts`).
 *
 * @example
 * ```ts
 * import { Transcript, ViewCheck } from "context-compressor"
 *
 * const question = new Transcript.UserMessage({ id: "m0", content: "list the files" })
 * const orphan = new Transcript.ToolResult({ id: "m1", toolCallId: "c1", content: "src" })
 * assert.deepStrictEqual(ViewCheck.check([question]), [])
 * assert.ok(ViewCheck.check([question, orphan]).length > 0)
 * ```
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (view: Transcript.Transcript, options: Options = {}): ReadonlyArray<Violation> =>
  ViewViolations.check(view, options).map((violation) => new Violation(violation))
