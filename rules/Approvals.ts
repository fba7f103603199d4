/**
 * R1.4: staged approvals.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as EnvelopeData from "../src/internal/reduce/EnvelopeData.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.approvals(Rule.kit)

/**
 * Past this many characters of `resume.arguments` (compact JSON), a resume
 * call is not carried: a truncated call is not a call. The same value as
 * `Envelope.resumeLimitChars`: the core's `EnvelopeData.resumeLimitChars`, its one home.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeLimitChars: number = EnvelopeData.resumeLimitChars

/**
 * The call that re-reads a staged approval whose resume was not carried.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeRecovery = BuiltInRules.resumeRecovery

/**
 * The fields of the approval record that are kept (the resume is carried
 * verbatim by {@link carryResumeVerbatim}); any other field of the record is
 * reduced like the rest of the envelope.
 *
 * @since 0.1.0
 * @category constants
 */
export const approvalFields = BuiltInRules.approvalFields

/**
 * Keeps what the model needs to tell the user what is gated and to resume
 * after `/accept`: `data.status`, `data.mode` and the approval record's id,
 * kind (which ceiling blocked the call), title and destructive flag.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepStagedApproval: Rule.Rule = rules.keepStagedApproval

/**
 * Carries `data.approval.resume` byte for byte (no key filtered, no string
 * shortened, no array capped) but for the paths the envelope declares omitted
 * below it, unless its arguments, without those paths, pass
 * {@link resumeLimitChars}: then the whole resume is replaced by a marker naming
 * {@link resumeRecovery} and the approval id (unless the id is declared omitted).
 *
 * @since 0.1.0
 * @category rules
 */
export const carryResumeVerbatim: Rule.Rule = rules.carryResumeVerbatim
