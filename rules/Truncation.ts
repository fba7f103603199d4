/**
 * R1.3: truncation flags and their counters.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"

/**
 * The key suffixes of truncation counters.
 *
 * @since 0.1.0
 * @category constants
 */
export const counterSuffixes = ["Omitted", "Bytes", "Chars", "Entries", "Lines"] as const

const reason = "a partial read must never be mistaken for a whole one"

/**
 * Keeps every boolean `truncated` or `…Truncated` flag, at any depth.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationFlags: Rule.Rule = Rule.all(
  Rule.keep(Selector.path("**.truncated", "boolean"), { name: "keepTruncationFlags", reason }),
  Rule.keep(Selector.path("**.*Truncated", "boolean"), { name: "keepTruncationFlags", reason })
)

/**
 * Keeps every numeric `…Omitted`, `…Bytes`, `…Chars`, `…Entries` and
 * `…Lines` counter, at any depth.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTruncationCounters: Rule.Rule = Rule.all(
  ...counterSuffixes.map((suffix) =>
    Rule.keep(Selector.path(`**.*${suffix}`, "number"), { name: "keepTruncationCounters", reason })
  )
)
