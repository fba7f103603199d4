/**
 * R1.7: pruning unrelated bulky data.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"

/**
 * Strings longer than this, that no rule keeps, are clipped head and tail.
 *
 * @since 0.1.0
 * @category constants
 */
export const bulkyChars = 1_200

/**
 * Clips every string past {@link bulkyChars} that no rule keeps, head and
 * tail, saying how much was cut; binary-looking strings (base64, hex) are
 * replaced by a note of their size.
 *
 * @since 0.1.0
 * @category rules
 */
export const pruneBulky: Rule.Rule = Rule.bulky(Selector.path("**", "string"), {
  name: "pruneBulky",
  reason: "unrelated bulky text is cut to its head and tail; binary data says only its size",
  maxChars: bulkyChars,
  elideBinary: true
})
