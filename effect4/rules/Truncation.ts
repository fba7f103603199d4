/**
 * R1.3: truncation flags and their counters. On Effect 4: the shared core's `truncation` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Truncation`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.truncation(Rule.kit)

/** @since 0.1.0 */
export const counterSuffixes = BuiltInRules.counterSuffixes

/** @since 0.1.0 */
export const keepTruncationFlags: Rule.Rule = built.keepTruncationFlags

/** @since 0.1.0 */
export const keepTruncationCounters: Rule.Rule = built.keepTruncationCounters
