/**
 * R1.6: the generic array cap.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.generic(Rule.kit)

/**
 * The generic array cap; also the producer's default listing limit, so a full
 * `workspace_inspect { action: "changes" }` listing survives whole.
 *
 * @since 0.1.0
 * @category constants
 */
export const arrayCap = BuiltInRules.arrayCap

/**
 * Caps every array at {@link arrayCap} entries and records the rest in a
 * sibling `…Omitted` counter (inside an array, {@link arrayCap} entries and a
 * last `{ "arrayEntriesOmitted": n }` entry). Verbatim values are exempt.
 *
 * @since 0.1.0
 * @category rules
 */
export const capArrays: Rule.Rule = rules.capArrays
