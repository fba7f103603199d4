/**
 * R1.5: the changes index, and the job and transaction records it points to.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.records

/**
 * The fields every entry of the changes index keeps.
 *
 * @example
 * ```ts
 * import { Records } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Records.indexEntryFields, ["id", "kind", "status", "title", "path"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const indexEntryFields = BuiltInRules.indexEntryFields

/**
 * The fields a job keeps.
 *
 * @example
 * ```ts
 * import { Records } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Records.jobFields, ["id", "status", "executable", "exitCode", "startedAt"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const jobFields = BuiltInRules.jobFields

/**
 * For `workspace_inspect { action: "changes" }`: each entry of the
 * `approvals`, `plans` and `jobs` arrays keeps its id, kind, status, title and
 * path (a job also its executable, exit code and start time); every other
 * field of an entry is pruned. The listing limit is kept too.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce } from "context-compressor"
 * import { Records } from "context-compressor/rules"
 *
 * // The rule prunes the other fields of each entry by itself.
 * const changesIndex = Policy.make({
 *   name: "changes-index",
 *   description: "the changes index of agentic-workspace/v1",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Records.keepChangesIndex
 * })
 * const approval = {
 *   id: "approval_3a792c2f",
 *   kind: "transaction",
 *   status: "pending",
 *   title: "approval 0",
 *   path: ".workspace/approvals/0.json"
 * }
 * const job = { id: "job_1aecb197", status: "exited", executable: "npm", exitCode: 1, startedAt: "2026-11-29T12:00:00Z" }
 * const changes = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_inspect",
 *   action: "changes",
 *   ok: true,
 *   data: {
 *     limit: 20,
 *     approvals: [{ ...approval, payloadPreview: "payload 0 ff8207828874\npayload 1 63d41eb7b168" }],
 *     jobs: [{ ...job, env: { CI: "1" } }]
 *   }
 * }
 * const reduction = Reduce.reduce(changes, { policies: [changesIndex] })
 * assert.deepStrictEqual(JSON.parse(reduction.text).data, { limit: 20, approvals: [approval], jobs: [job] })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepChangesIndex: Rule.Rule = rules.keepChangesIndex

/**
 * Keeps a job record's `job_*` id, status, executable, exit code and start
 * time (`data.job`, as `workspace_command` returns it).
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Records } from "context-compressor/rules"
 *
 * const jobsOnly = Policy.make({
 *   name: "jobs-only",
 *   description: "the job records of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Records.keepJobRecords, Rule.prune("**", { name: "pruneTheRest", reason: "only the job is shown" }))
 * })
 * const job = { id: "job_1aecb197", status: "exited", executable: "npm", exitCode: 1, startedAt: "2026-11-29T12:00:00Z" }
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: { job: { ...job, pid: 4242 }, stdout: "test output 0\n" }
 * }
 * const reduction = Reduce.reduce(result, { policies: [jobsOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), { data: { job } })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepJobRecords: Rule.Rule = rules.keepJobRecords

/**
 * Keeps a transaction record's `tx_*` id, status and file list (`data.transaction`).
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Records } from "context-compressor/rules"
 *
 * const transactionsOnly = Policy.make({
 *   name: "transactions-only",
 *   description: "the transaction records of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Records.keepTransactionRecords,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the transaction is shown" })
 *   )
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_edit",
 *   action: "show",
 *   ok: true,
 *   data: {
 *     transaction: {
 *       id: "tx_948fa8de",
 *       status: "staged",
 *       files: ["src/a.ts", "src/b.ts", "src/c.ts"],
 *       diff: "+ code 0 1ea04b71618d\n+ code 1 6eb712e9f57a"
 *     }
 *   }
 * }
 * const reduction = Reduce.reduce(result, { policies: [transactionsOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), {
 *   data: { transaction: { id: "tx_948fa8de", status: "staged", files: ["src/a.ts", "src/b.ts", "src/c.ts"] } }
 * })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTransactionRecords: Rule.Rule = rules.keepTransactionRecords
