/**
 * R1.5: plans. On Effect 4: the shared core's `plans` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Plans`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.plans(Rule.kit)

/** @since 0.1.0 */
export const planFields = BuiltInRules.planFields

/** @since 0.1.0 */
export const keepPlans: Rule.Rule = built.keepPlans
