/**
 * R1.4: staged approvals.
 *
 * @since 0.1.0
 */
import * as EnvelopeData from "../../core/reduce/EnvelopeData.js"
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.approvals

/**
 * Past this many characters of `resume.arguments` (compact JSON), a resume
 * call is not carried: a truncated call is not a call. The same value as
 * `Envelope.resumeLimitChars`: the core's `EnvelopeData.resumeLimitChars`, its one home.
 *
 * @example
 * ```ts
 * import { Envelope } from "context-compressor"
 * import { Approvals } from "context-compressor/rules"
 *
 * // The 12,000 characters of SPEC R1.4, one value for the rule and the envelope model.
 * assert.strictEqual(Approvals.resumeLimitChars, 12_000)
 * assert.strictEqual(Approvals.resumeLimitChars, Envelope.resumeLimitChars)
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeLimitChars: number = EnvelopeData.resumeLimitChars

/**
 * The call that re-reads a staged approval whose resume was not carried.
 *
 * @example
 * ```ts
 * import { Reduce } from "context-compressor"
 * import { Approvals, builtInPolicies } from "context-compressor/rules"
 *
 * // A resume whose arguments pass resumeLimitChars is replaced by a marker naming this call.
 * const staged = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_edit",
 *   action: "stage",
 *   ok: true,
 *   data: {
 *     status: "pending_approval",
 *     mode: "ask",
 *     approval: {
 *       id: "approval_979a8972",
 *       kind: "transaction",
 *       title: "Write generated file",
 *       destructive: false,
 *       resume: {
 *         tool: "workspace_edit",
 *         arguments: { action: "write", path: "gen/schema.sql", content: "CREATE TABLE t (id int);\n".repeat(600) }
 *       }
 *     }
 *   }
 * }
 * const reduction = Reduce.reduce(staged, { policies: builtInPolicies })
 * assert.strictEqual(Approvals.resumeRecovery, "workspace_inspect { action: \"changes\" }")
 * assert.ok(reduction.text.includes("approval_979a8972"))
 * assert.ok(JSON.stringify(JSON.parse(reduction.text).data.approval.resume).includes("workspace_inspect"))
 * ```
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
 * @example
 * ```ts
 * import { Approvals } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Approvals.approvalFields, ["id", "kind", "title", "destructive"])
 * ```
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
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Approvals } from "context-compressor/rules"
 *
 * const approvalOnly = Policy.make({
 *   name: "approval-only",
 *   description: "the staged approval of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Approvals.keepStagedApproval,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the approval is shown" })
 *   )
 * })
 * const staged = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_edit",
 *   action: "stage",
 *   ok: true,
 *   summary: "Staged tx_948fa8de; approval approval_964d95b9 required",
 *   data: {
 *     status: "pending_approval",
 *     mode: "ask",
 *     approval: {
 *       id: "approval_964d95b9",
 *       kind: "transaction",
 *       title: "Commit 3 edits to src/",
 *       destructive: false,
 *       createdBy: "agent"
 *     },
 *     transaction: { id: "tx_948fa8de", files: ["src/a.ts", "src/b.ts", "src/c.ts"] }
 *   }
 * }
 * const reduction = Reduce.reduce(staged, { policies: [approvalOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: {
 *     status: "pending_approval",
 *     mode: "ask",
 *     approval: { id: "approval_964d95b9", kind: "transaction", title: "Commit 3 edits to src/", destructive: false }
 *   }
 * })
 * ```
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
 * @example
 * ```ts
 * import { Reduce } from "context-compressor"
 * import { builtInPolicies } from "context-compressor/rules"
 *
 * // A 30-action browser batch: longer than the array cap, with strings the bulky rule would clip elsewhere.
 * const actions = Array.from({ length: 30 }, (_, n) => ({
 *   type: "type",
 *   selector: `#field-${n} > input[name="f${n}"]`,
 *   text: `value "${n}" ünïcödé ${"·".repeat(60)}`
 * }))
 * const resume = { tool: "workspace_browser", arguments: { action: "batch", session_id: "browser_8433abd4", actions } }
 * const staged = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_browser",
 *   action: "batch",
 *   ok: true,
 *   data: {
 *     status: "pending_approval",
 *     mode: "ask",
 *     approval: { id: "approval_dfb29d56", kind: "browser", title: "Submit the signup form", destructive: true, resume }
 *   }
 * }
 * const reduction = Reduce.reduce(staged, { policies: builtInPolicies })
 * // Byte for byte: no entry capped, no string clipped.
 * assert.strictEqual(JSON.stringify(JSON.parse(reduction.text).data.approval.resume), JSON.stringify(resume))
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const carryResumeVerbatim: Rule.Rule = rules.carryResumeVerbatim
