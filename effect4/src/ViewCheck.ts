/**
 * The invariant check of an outbound view on Effect 4: the violation's model as
 * an Effect 4 Schema class with the Effect 3 face's name, fields and kinds, and
 * the check, the shared core's (`internal/checkpoint/ViewViolations.ts`).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as ViewViolations from "../../src/internal/checkpoint/ViewViolations.js"
import type * as Transcript from "./Transcript.js"

/**
 * What a view can get wrong.
 *
 * @since 0.1.0
 * @category models
 */
export const ViolationKind = Schema.Literals([
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
 * Checks an outbound view (as the Effect 3 face's `ViewCheck.check`): calls and
 * results paired, no result at the head, the first user message present, the
 * fit to the trigger. Returns the violations, none for a good view.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (view: Transcript.Transcript, options: Options = {}): ReadonlyArray<Violation> =>
  ViewViolations.check(view, options).map((violation) => new Violation(violation))
