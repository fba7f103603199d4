/**
 * The built-in policy for agentic-workspace/v1 tool results (SPEC R1).
 *
 * @since 0.1.0
 */
import * as BuiltInPolicies from "../models/internal/BuiltInPolicies.js"
import * as Policy from "../models/Policy.js"
import type * as Rule from "../models/Rule.js"

const policy = BuiltInPolicies.agenticWorkspaceV1

/**
 * Every built-in rule of the protocol, composed. Precedence does the rest:
 * declared omissions first, the verbatim resume, then what is kept, then the
 * array cap and bulky pruning for everything else.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { AgenticWorkspaceV1 } from "context-compressor/rules"
 *
 * // A policy of your own on the built-in rule: everything it does, and a tool's debug block dropped too.
 * const withoutDebug = Policy.make({
 *   name: "agentic-workspace/v1 without debug",
 *   description: "the built-in rule, and data.debug pruned",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     AgenticWorkspaceV1.agenticWorkspaceV1Rule,
 *     Rule.prune("data.debug", { name: "dropDebug", reason: "internal traces of the tool" })
 *   )
 * })
 * const stdout = Array.from({ length: 400 }, (_, n) => `test output ${n}: ok`).join("\n")
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: {
 *     job: { id: "job_1aecb197", status: "exited", executable: "npm", exitCode: 1 },
 *     stdout,
 *     stdoutTruncated: true,
 *     debug: { spans: ["spawn", "wait"] }
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [withoutDebug] })
 * const { data } = JSON.parse(reduction.text)
 * assert.strictEqual(data.job.exitCode, 1)
 * assert.strictEqual(data.stdoutTruncated, true)
 * assert.ok(data.stdout.length < stdout.length)
 * assert.strictEqual(data.debug, undefined)
 * // The report says which rule decided each path.
 * assert.ok(reduction.report.rules.some((rule) => rule.rule === "pruneBulky"))
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const agenticWorkspaceV1Rule: Rule.Rule = policy.agenticWorkspaceV1Rule

/**
 * The recovery calls of R1.8, filled with the envelope's ids when the reduced
 * envelope does not fit the cap.
 *
 * @example
 * ```ts
 * import { AgenticWorkspaceV1 } from "context-compressor/rules"
 *
 * // The index of pending changes always; a call per id for the rest (here the command status of each `job_…`).
 * const [changes] = AgenticWorkspaceV1.recoveryCalls
 * assert.deepStrictEqual([changes?.tool, changes?.arguments], ["workspace_inspect", { action: "changes" }])
 * const status = AgenticWorkspaceV1.recoveryCalls.find((call) => call.forEach === "job_")
 * assert.deepStrictEqual([status?.tool, status?.idArgument], ["workspace_command", "job_id"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
// The core's recovery calls here are this face's: built with its kit.
export const recoveryCalls = policy.recoveryCalls as ReadonlyArray<Policy.RecoveryCall>

/**
 * The agentic-workspace/v1 policy: accepts envelopes of that protocol, reduces
 * them with {@link agenticWorkspaceV1Rule}, carries the staged approval past
 * the cap, and falls back to the recovery list of R1.7 when the reduced
 * envelope still does not fit.
 *
 * @example
 * ```ts
 * import { Reduce } from "context-compressor"
 * import { AgenticWorkspaceV1 } from "context-compressor/rules"
 *
 * const stdout = Array.from({ length: 400 }, (_, n) => `test output ${n}: ok`).join("\n")
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: {
 *     job: { id: "job_1aecb197", status: "exited", executable: "npm", exitCode: 1 },
 *     stdout,
 *     stdoutTruncated: true
 *   }
 * }
 * const policies = [AgenticWorkspaceV1.agenticWorkspaceV1]
 * // Under the default cap: the envelope, reduced.
 * const reduced = Reduce.reduce(result, { policies })
 * assert.strictEqual(reduced.report.route, "envelope")
 * assert.strictEqual(JSON.parse(reduced.text).data.job.id, "job_1aecb197")
 * // Past a small cap: the recovery list, with the calls that re-read the job.
 * const recovery = Reduce.reduce(result, { policies, cap: 1_000 })
 * assert.strictEqual(recovery.report.route, "overflow")
 * assert.ok(recovery.text.length <= 1_000)
 * assert.ok(recovery.text.includes("job_1aecb197") && recovery.text.includes("workspace_command"))
 * ```
 *
 * @since 0.1.0
 * @category policies
 */
export const agenticWorkspaceV1: Policy.Policy = policy.agenticWorkspaceV1
