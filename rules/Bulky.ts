/**
 * R1.7: pruning unrelated bulky data.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.generic(Rule.kit)

/**
 * Strings longer than this, that no rule keeps, are clipped head and tail.
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
 * @since 0.1.0
 * @category rules
 */
export const pruneBulky: Rule.Rule = rules.pruneBulky
