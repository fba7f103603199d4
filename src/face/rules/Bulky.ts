/**
 * R1.7: pruning unrelated bulky data.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.generic

/**
 * Strings longer than this, that no rule keeps, are clipped head and tail.
 *
 * @example
 * ```ts
 * import { Bulky } from "context-compressor/rules"
 *
 * assert.strictEqual(Bulky.bulkyChars, 1_200)
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const bulkyChars = BuiltInRules.bulkyChars

/**
 * Clips every string past {@link bulkyChars} that no rule keeps, head and
 * tail, saying how much was cut; binary-looking strings (base64, hex) are
 * replaced by a note of their size.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Bulky, Records } from "context-compressor/rules"
 *
 * const pruned = Policy.make({
 *   name: "pruned",
 *   description: "agentic-workspace/v1 results with their bulky text pruned",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Records.keepJobRecords, Bulky.pruneBulky)
 * })
 * const stdout = Array.from({ length: 400 }, (_, n) => `test output ${n}: ok`).join("\n")
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: { job: { id: "job_1aecb197", status: "exited", exitCode: 1 }, stdout, core: "QUJD".repeat(2_000) }
 * }
 * const { data } = JSON.parse(Reduce.reduce(result, { policies: [pruned] }).text)
 * // Text keeps its head and tail and says how much was cut.
 * assert.ok(data.stdout.startsWith("test output 0: ok") && data.stdout.endsWith("test output 399: ok"))
 * assert.ok(data.stdout.length <= Bulky.bulkyChars)
 * assert.match(data.stdout, /clipped: \d+ of \d+ characters omitted/)
 * // Binary-looking data says only its size.
 * assert.ok(data.core.length < 100)
 * assert.strictEqual(data.job.id, "job_1aecb197")
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const pruneBulky: Rule.Rule = rules.pruneBulky
