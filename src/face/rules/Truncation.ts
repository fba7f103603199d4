/**
 * R1.3: truncation flags and their counters.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.truncation

/**
 * The key suffixes of truncation counters.
 *
 * @example
 * ```ts
 * import { Truncation } from "context-compressor/rules"
 *
 * // `stdoutOmittedChars`, `linesOmitted`, `totalBytes`: a number under such a key is a truncation counter.
 * assert.deepStrictEqual(Truncation.counterSuffixes, ["Omitted", "Bytes", "Chars", "Entries", "Lines"])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const counterSuffixes = BuiltInRules.counterSuffixes

/**
 * Keeps every boolean `truncated` or `…Truncated` flag, at any depth.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Truncation } from "context-compressor/rules"
 *
 * const flagsOnly = Policy.make({
 *   name: "flags-only",
 *   description: "the truncation flags of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(Truncation.keepTruncationFlags, Rule.prune("**", { name: "pruneTheRest", reason: "only the flags are shown" }))
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: { stdout: "test output 0\ntest output 1\n", stdoutTruncated: true, read: { truncated: false, path: "log.txt" } }
 * }
 * const reduction = Reduce.reduce(result, { policies: [flagsOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), { data: { stdoutTruncated: true, read: { truncated: false } } })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationFlags: Rule.Rule = rules.keepTruncationFlags

/**
 * Keeps every numeric `…Omitted`, `…Bytes`, `…Chars`, `…Entries` and
 * `…Lines` counter, at any depth.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Truncation } from "context-compressor/rules"
 *
 * const countersOnly = Policy.make({
 *   name: "counters-only",
 *   description: "the truncation counters of agentic-workspace/v1 results, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Truncation.keepTruncationCounters,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the counters are shown" })
 *   )
 * })
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "status",
 *   ok: true,
 *   data: { stdout: "test output 0\n", stdoutOmittedChars: 48_213, stdoutLines: 1_204, exitCode: 1 }
 * }
 * const reduction = Reduce.reduce(result, { policies: [countersOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), { data: { stdoutOmittedChars: 48_213, stdoutLines: 1_204 } })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationCounters: Rule.Rule = rules.keepTruncationCounters
