/**
 * R1.2: declared omissions.
 *
 * @since 0.1.0
 */
import * as Reduce from "../src/Reduce.js"
import type * as Rule from "../src/Rule.js"

/**
 * Removes every path the envelope lists in `retention.omit_when_summarizing`,
 * over every other rule, the staged approval included. The list only grants
 * omission: its paths are literal (no globs), resolve against the envelope's
 * own keys, and may not name the header or the retention block. The core's
 * rule (`Reduce.omitDeclared`), which the working state and the offline
 * summariser apply as well.
 *
 * @since 0.1.0
 * @category rules
 */
export const omitDeclared: Rule.Rule = Reduce.omitDeclared
