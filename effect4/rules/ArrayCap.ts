/**
 * R1.6: the generic array cap. On Effect 4: the shared core's `generic` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `ArrayCap`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.generic(Rule.kit)

/** @since 0.1.0 */
export const arrayCap = BuiltInRules.arrayCap

/** @since 0.1.0 */
export const capArrays: Rule.Rule = built.capArrays
