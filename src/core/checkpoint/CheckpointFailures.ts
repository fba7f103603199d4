/**
 * The failures of a checkpoint, worded, in the shared core: each stage says
 * what went wrong in its own terms, and these functions give the failure a
 * caller reads (the reason to act on, the numbers that led to it) as plain
 * data, which each face makes its `Failure` (`CheckpointErrors` on
 * Effect 3).
 *
 * @since 0.1.0
 */
import type { SettingsShape } from "../services/SettingsValues.js"
import * as Budget from "./Budget.js"
import type * as Count from "./Count.js"
import type * as Ladder from "./Ladder.js"
import type * as ViewViolations from "./ViewViolations.js"

/**
 * What a failure is for a caller to act on: no progress after an overflow, a
 * view that cannot fit, an invalid view, the store.
 *
 * @since 0.1.0
 * @category models
 */
export type Reason = "no-progress" | "cannot-fit" | "invalid-view" | "store"

/**
 * A checkpoint's failure as plain data: the fields of the faces' `Failure`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly reason: Reason
  readonly sessionId: string
  readonly message: string
  readonly violations?: ReadonlyArray<ViewViolations.Violation>
  /** For `cannot-fit`: the smallest context window whose view would fit (SPEC R2.13). */
  readonly minimumWindow?: number
}

/**
 * The store could not load or save the session's state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const store = (sessionId: string) => (error: { readonly reason: string }): Failure => ({
  reason: "store",
  sessionId,
  message: `the compaction state could not be read or written: ${error.reason}`
})

/**
 * Other workers saved a compaction of the session first, too many times in a row.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lostSaves = (sessionId: string, times: number, compactions: number): Failure => ({
  reason: "store",
  sessionId,
  message: `other workers saved a compaction of the session first ${times} times in a row (it now has ${compactions})`
})

/**
 * The transcript cannot be repaired into a view.
 *
 * @since 0.1.0
 * @category constructors
 */
export const malformed = (
  sessionId: string,
  malformed: { readonly messageId: string; readonly problem: string }
): Failure => ({
  reason: "invalid-view",
  sessionId,
  message: `the transcript is malformed at message ${malformed.messageId}: ${malformed.problem}`
})

/**
 * The view breaks an invariant of `ViewCheck`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidView = (
  sessionId: string,
  violations: ReadonlyArray<ViewViolations.Violation>
): Failure => ({
  reason: "invalid-view",
  sessionId,
  message: violations.map((v) => v.detail).join("; "),
  violations
})

/**
 * The request's fixed overhead and the reply reserve alone pass the trigger
 * of a view that needs compacting: no compaction of the messages can fit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const overheadTooLarge = (sessionId: string, counted: Count.Counted): Failure | undefined =>
  counted.overhead === 0 || counted.overhead + counted.replyReserve < counted.trigger ||
    counted.viewTokens + counted.replyReserve <= counted.trigger
    ? undefined
    : ({
      reason: "cannot-fit",
      sessionId,
      message:
        `the request's fixed overhead of ${counted.overhead} tokens (the provider's count of ${counted.viewTokens} less the engine's ${counted.counted} for the messages) ` +
        `with ${counted.replyReserve} reserved for the reply passes the trigger of ${counted.trigger}: no compaction of the messages can fit`
    })

/**
 * Why nothing older can be compacted: no turn starts after the verbatim part.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nothingOlder = (fromId: string | number): string =>
  `no turn starts after message ${fromId}: there is nothing older to compact without splitting a turn or moving a pending approval`

/**
 * A failure with a reason and a message of its own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (sessionId: string, reason: Reason, message: string): Failure => ({ reason, sessionId, message })

/**
 * The view does not fit with every message clipped as far as it goes: the
 * smallest window that would work, if any (after an overflow, in the
 * provider's count, and with the request's fixed overhead on top).
 *
 * @since 0.1.0
 * @category constructors
 */
export const cannotFit = (
  sessionId: string,
  options: { readonly settings: SettingsShape; readonly counted: Count.Counted; readonly cause: Count.Cause },
  fullyDegraded: number,
  detail: string
): Failure => {
  const { cause, counted, settings } = options
  const { believed, overhead, replyReserve, trigger, viewTokens } = counted
  // After an overflow, in the provider's count: ours scaled by the ratio believed.
  // With a fixed overhead (the provider's count above ours), the request takes it on top of the messages.
  const smallest = Budget.smallestWindow(
    settings,
    Math.ceil(fullyDegraded / believed) + overhead,
    counted.replyReserveIn
  )
  return ({
    reason: cause === "overflow" ? "no-progress" : "cannot-fit",
    sessionId,
    message: `${detail}; with every message clipped as far as it goes the view takes ${fullyDegraded} tokens` +
      (overhead > 0
        ? ` and the request's fixed overhead ${overhead} more (the provider's count of ${viewTokens} less the engine's ${counted.counted})`
        : "") +
      `, with ${replyReserve} reserved for the reply, over the trigger of ${trigger}: ` +
      (smallest === undefined
        ? `no window works under the cap of ${settings.capTokens} tokens`
        : `the smallest context window that works is ${smallest} tokens`),
    ...(smallest === undefined ? {} : { minimumWindow: smallest })
  })
}

/**
 * A compaction that did not make the view smaller (at a trigger), or smaller
 * than what the provider refused (after an overflow): none, rather than a
 * summary's cost for nothing or a loop.
 *
 * @since 0.1.0
 * @category constructors
 */
export const noGain = (
  sessionId: string,
  counted: Count.Counted,
  cause: Count.Cause,
  tokensAfter: number
): Failure | undefined => {
  const { overhead, refused, trigger, viewTokens } = counted
  if (cause === "trigger" && tokensAfter >= counted.counted) {
    return ({
      reason: "cannot-fit",
      sessionId,
      message: `compacting the older span left ${tokensAfter} tokens of the ${counted.counted} the view had` +
        (overhead > 0
          ? `, with a fixed overhead of ${overhead} tokens (the provider's count of ${viewTokens} less the engine's ${counted.counted})`
          : "") +
        `: the view cannot be made to fit the trigger of ${trigger}`
    })
  }
  if (cause === "overflow" && tokensAfter >= refused) {
    return ({
      reason: "no-progress",
      sessionId,
      message:
        `compaction after a context overflow left ${tokensAfter} tokens of ${refused}: stopping instead of looping`
    })
  }
  return undefined
}

/**
 * The failure of a ladder's outcome that did not fit: an invalid view, or
 * one that cannot fit (see {@link cannotFit}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ofLadder = (
  sessionId: string,
  options: { readonly settings: SettingsShape; readonly counted: Count.Counted; readonly cause: Count.Cause }
) =>
(outcome: Exclude<Ladder.Outcome<unknown>, { readonly _tag: "Fitted" }>): Failure =>
  outcome._tag === "Invalid"
    ? invalidView(sessionId, outcome.violations)
    : cannotFit(sessionId, options, outcome.smallest, outcome.detail)

/**
 * After an overflow with nothing older to compact, a view the ladder could not
 * make smaller than what the provider refused: a failure instead of a loop.
 *
 * @since 0.1.0
 * @category constructors
 */
export const stuck = (
  sessionId: string,
  counted: Count.Counted,
  cause: Count.Cause,
  tokens: number,
  nothingOlder: string
): Failure | undefined =>
  cause === "overflow" && tokens >= counted.refused
    ? ({
      reason: "no-progress",
      sessionId,
      message:
        `${nothingOlder}, and the view of ${counted.counted} tokens cannot be made smaller: stopping instead of looping`
    })
    : undefined
