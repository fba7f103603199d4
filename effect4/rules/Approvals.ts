/**
 * R1.4: staged approvals. On Effect 4: the shared core's `approvals` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Approvals`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as EnvelopeData from "../../src/internal/reduce/EnvelopeData.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.approvals(Rule.kit)

/** @since 0.1.0 */
export const resumeLimitChars: number = EnvelopeData.resumeLimitChars

/** @since 0.1.0 */
export const resumeRecovery = BuiltInRules.resumeRecovery

/** @since 0.1.0 */
export const approvalFields = BuiltInRules.approvalFields

/** @since 0.1.0 */
export const keepStagedApproval: Rule.Rule = built.keepStagedApproval

/** @since 0.1.0 */
export const carryResumeVerbatim: Rule.Rule = built.carryResumeVerbatim
