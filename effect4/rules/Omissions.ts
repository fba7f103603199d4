/**
 * R1.2: declared omissions. On Effect 4: the shared core's `omissions` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Omissions`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.omissions(Rule.kit)

/** @since 0.1.0 */
export const omitDeclared: Rule.Rule = built.omitDeclared
