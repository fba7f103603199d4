/**
 * R1.3: truncation flags and their counters.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.truncation(Rule.kit)

/**
 * The key suffixes of truncation counters.
 *
 * @since 0.1.0
 * @category constants
 */
export const counterSuffixes = BuiltInRules.counterSuffixes

/**
 * Keeps every boolean `truncated` or `…Truncated` flag, at any depth.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationFlags: Rule.Rule = rules.keepTruncationFlags

/**
 * Keeps every numeric `…Omitted`, `…Bytes`, `…Chars`, `…Entries` and
 * `…Lines` counter, at any depth.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationCounters: Rule.Rule = rules.keepTruncationCounters
