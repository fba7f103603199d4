/**
 * R1.2: declared omissions.
 *
 * @since 0.1.0
 */
import * as Envelope from "../src/Envelope.js"
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"

/**
 * Removes every path the envelope lists in `retention.omit_when_summarizing`,
 * over every other rule, the staged approval included. The list only grants
 * omission: its paths are literal (no globs), resolve against the envelope's
 * own keys, and may not name the header or the retention block.
 *
 * @since 0.1.0
 * @category rules
 */
export const omitDeclared: Rule.Rule = Rule.omit(Selector.declared("retention.omit_when_summarizing", Envelope.headerKeys), {
  name: "omitDeclared",
  reason: "the tool declared this path in retention.omit_when_summarizing; a declared omission wins over every other rule"
})
