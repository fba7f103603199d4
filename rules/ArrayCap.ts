/**
 * R1.6: the generic array cap.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"
import * as Selector from "../src/Selector.js"

/**
 * The generic array cap; also the producer's default listing limit, so a full
 * `workspace_inspect { action: "changes" }` listing survives whole.
 *
 * @since 0.1.0
 * @category constants
 */
export const arrayCap = 20

/**
 * Caps every array at {@link arrayCap} entries and records the rest in a
 * sibling `…Omitted` counter (inside an array, {@link arrayCap} entries and a
 * last `{ "arrayEntriesOmitted": n }` entry). Verbatim values are exempt.
 *
 * @since 0.1.0
 * @category rules
 */
export const capArrays: Rule.Rule = Rule.cap(Selector.path("**", "array"), arrayCap, {
  name: "capArrays",
  reason: `arrays longer than ${arrayCap} keep their first ${arrayCap} entries and say how many were left out`
})
