/**
 * R1.3: the overview's recent collections and the research wrappers.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.collections(Rule.kit)

/**
 * The recent collections of `workspace_inspect { action: "overview" }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCollections = BuiltInRules.recentCollections

/**
 * Keeps the recent transactions, runs, task boards and research projects of
 * the overview (capped at 20 entries each, with their counters).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRecentCollections: Rule.Rule = rules.keepRecentCollections

/**
 * Keeps the `project` and `agentRun` wrappers of `workspace_research { action: "deep" }`.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepResearchWrappers: Rule.Rule = rules.keepResearchWrappers
