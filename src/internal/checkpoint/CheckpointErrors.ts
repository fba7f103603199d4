/**
 * The failures of a checkpoint as the Effect 3 face's `CompactionError`: the
 * wording is the shared core's (`CheckpointFailures`), each failure's plain
 * data made the face's error here, its violations `ViewCheck.Violation`s.
 *
 * @since 0.1.0
 */
import type { StoreError } from "../../../services/CompactionStore.js"
import type { CompactionSettings } from "../../../services/Settings.js"
import { CompactionError } from "../../Checkpoint.js"
import * as ViewCheck from "../../ViewCheck.js"
import * as CheckpointFailures from "./CheckpointFailures.js"
import type * as Count from "./Count.js"
import type * as Ladder from "./Ladder.js"
import type * as ViewViolations from "./ViewViolations.js"

/**
 * A failure of the core as this face's error.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromFailure = (failure: CheckpointFailures.Failure): CompactionError =>
  new CompactionError(
    failure.violations === undefined
      ? failure as Omit<CheckpointFailures.Failure, "violations">
      : { ...failure, violations: failure.violations.map((violation) => new ViewCheck.Violation(violation)) }
  )

const orNone = (failure: CheckpointFailures.Failure | undefined): CompactionError | undefined =>
  failure === undefined ? undefined : fromFailure(failure)

/**
 * The store could not load or save the session's state.
 *
 * @since 0.1.0
 * @category constructors
 */
export const store = (sessionId: string) => (error: StoreError): CompactionError =>
  fromFailure(CheckpointFailures.store(sessionId)(error))

/**
 * Other workers saved a compaction of the session first, too many times in a row.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lostSaves = (sessionId: string, times: number, compactions: number): CompactionError =>
  fromFailure(CheckpointFailures.lostSaves(sessionId, times, compactions))

/**
 * The transcript cannot be repaired into a view.
 *
 * @since 0.1.0
 * @category constructors
 */
export const malformed = (
  sessionId: string,
  malformed: { readonly messageId: string; readonly problem: string }
): CompactionError => fromFailure(CheckpointFailures.malformed(sessionId, malformed))

/**
 * The view breaks an invariant of `ViewCheck`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const invalidView = (
  sessionId: string,
  violations: ReadonlyArray<ViewViolations.Violation>
): CompactionError => fromFailure(CheckpointFailures.invalidView(sessionId, violations))

/**
 * The request's fixed overhead and the reply reserve alone pass the trigger
 * of a view that needs compacting: no compaction of the messages can fit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const overheadTooLarge = (sessionId: string, counted: Count.Counted): CompactionError | undefined =>
  orNone(CheckpointFailures.overheadTooLarge(sessionId, counted))

/**
 * Why nothing older can be compacted: no turn starts after the verbatim part.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nothingOlder: (fromId: string | number) => string = CheckpointFailures.nothingOlder

/**
 * A failure with a reason and a message of its own.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (sessionId: string, reason: CompactionError["reason"], message: string): CompactionError =>
  fromFailure(CheckpointFailures.of(sessionId, reason, message))

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
  options: { readonly settings: CompactionSettings; readonly counted: Count.Counted; readonly cause: Count.Cause },
  fullyDegraded: number,
  detail: string
): CompactionError => fromFailure(CheckpointFailures.cannotFit(sessionId, options, fullyDegraded, detail))

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
): CompactionError | undefined => orNone(CheckpointFailures.noGain(sessionId, counted, cause, tokensAfter))

/**
 * The failure of a ladder's outcome that did not fit: an invalid view, or
 * one that cannot fit (see {@link cannotFit}).
 *
 * @since 0.1.0
 * @category constructors
 */
export const ofLadder = (
  sessionId: string,
  options: { readonly settings: CompactionSettings; readonly counted: Count.Counted; readonly cause: Count.Cause }
) =>
(outcome: Exclude<Ladder.Outcome<unknown>, { readonly _tag: "Fitted" }>): CompactionError =>
  fromFailure(CheckpointFailures.ofLadder(sessionId, options)(outcome))

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
): CompactionError | undefined => orNone(CheckpointFailures.stuck(sessionId, counted, cause, tokens, nothingOlder))
