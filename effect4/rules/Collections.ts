/**
 * R1.3: the overview's recent collections and the research wrappers. On Effect 4: the shared core's `collections` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Collections`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.collections(Rule.kit)

/** @since 0.1.0 */
export const recentCollections = BuiltInRules.recentCollections

/** @since 0.1.0 */
export const keepRecentCollections: Rule.Rule = built.keepRecentCollections

/** @since 0.1.0 */
export const keepResearchWrappers: Rule.Rule = built.keepResearchWrappers
