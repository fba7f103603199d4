/**
 * R1.4: staged approvals.
 *
 * @since 0.1.0
 */
import * as Decision from "../src/Decision.js"
import * as Envelope from "../src/Envelope.js"
import * as Rule from "../src/Rule.js"

/**
 * Past this many characters of `resume.arguments` (compact JSON), a resume
 * call is not carried: a truncated call is not a call. The same value as
 * `Envelope.resumeLimitChars`, its one home.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeLimitChars: number = Envelope.resumeLimitChars

/**
 * The call that re-reads a staged approval whose resume was not carried.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeRecovery = "workspace_inspect { action: \"changes\" }"

/**
 * The fields of the approval record that are kept (the resume is carried
 * verbatim by {@link carryResumeVerbatim}); any other field of the record is
 * reduced like the rest of the envelope.
 *
 * @since 0.1.0
 * @category constants
 */
export const approvalFields = ["id", "kind", "title", "destructive"] as const

/**
 * Keeps what the model needs to tell the user what is gated and to resume
 * after `/accept`: `data.status`, `data.mode` and the approval record's id,
 * kind (which ceiling blocked the call), title and destructive flag.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepStagedApproval: Rule.Rule = Rule.all(
  ...["data.status", "data.mode", ...approvalFields.map((field) => `data.approval.${field}`)].map((path) =>
    Rule.keep(path, {
      name: "keepStagedApproval",
      reason: "a staged approval must survive so the model can resume it after the user types /accept"
    })
  )
)

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
export const carryResumeVerbatim: Rule.Rule = Rule.verbatim("data.approval.resume", {
  name: "carryResumeVerbatim",
  reason: "the resume call must hash to the staged approval: it is carried whole or not at all",
  limit: new Decision.VerbatimLimit({
    measure: "arguments",
    maxChars: resumeLimitChars,
    recovery: resumeRecovery,
    idPath: "data.approval.id",
    idKey: "approvalId"
  })
})
