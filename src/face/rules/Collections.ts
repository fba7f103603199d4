/**
 * R1.3: the overview's recent collections and the research wrappers.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import * as Rule from "../models/Rule.js"

const rules = BuiltInRules.collections

/**
 * The recent collections of `workspace_inspect { action: "overview" }`.
 *
 * @example
 * ```ts
 * import { Collections } from "context-compressor/rules"
 *
 * assert.deepStrictEqual(Collections.recentCollections, [
 *   "recentTransactions",
 *   "recentRuns",
 *   "recentTaskBoards",
 *   "recentResearchProjects"
 * ])
 * ```
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCollections = BuiltInRules.recentCollections

/**
 * Keeps the recent transactions, runs, task boards and research projects of
 * the overview (capped at 20 entries each, with their counters).
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Collections } from "context-compressor/rules"
 *
 * const collectionsOnly = Policy.make({
 *   name: "collections-only",
 *   description: "the overview's recent collections, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Collections.keepRecentCollections,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the collections are shown" })
 *   )
 * })
 * const recentTransactions = [{ id: "tx_69319874", status: "staged", title: "edit batch 0", files: ["src/mod0/file0.ts"] }]
 * const recentRuns = [{ id: "run_1f33f060", status: "running", role: "researcher" }]
 * const overview = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_inspect",
 *   action: "overview",
 *   ok: true,
 *   data: { recentTransactions, recentRuns, motd: "welcome back" }
 * }
 * const reduction = Reduce.reduce(overview, { policies: [collectionsOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), { data: { recentTransactions, recentRuns } })
 * // Only the overview's: under another action the rule keeps nothing, and all of it is pruned.
 * const other = Reduce.reduce({ ...overview, action: "changes" }, { policies: [collectionsOnly] })
 * assert.strictEqual(JSON.parse(other.text), null)
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRecentCollections: Rule.Rule = rules.keepRecentCollections

/**
 * Keeps the `project` and `agentRun` wrappers of `workspace_research { action: "deep" }`.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 * import { Collections } from "context-compressor/rules"
 *
 * const wrappersOnly = Policy.make({
 *   name: "wrappers-only",
 *   description: "the research wrappers of a deep research result, nothing else",
 *   accepts: Condition.equals("protocol", "agentic-workspace/v1"),
 *   rule: Rule.all(
 *     Collections.keepResearchWrappers,
 *     Rule.prune("**", { name: "pruneTheRest", reason: "only the wrappers are shown" })
 *   )
 * })
 * const project = { id: "research_dddb052a", title: "compare vector stores", status: "running" }
 * const agentRun = { id: "run_1f33f060", status: "running", passesUsed: 3, passBudget: 8 }
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_research",
 *   action: "deep",
 *   ok: true,
 *   data: { project, agentRun, sources: [{ id: "source_7134f09f", url: "https://example.org/doc/0" }] }
 * }
 * const reduction = Reduce.reduce(result, { policies: [wrappersOnly] })
 * assert.deepStrictEqual(JSON.parse(reduction.text), { data: { project, agentRun } })
 * ```
 *
 * @since 0.1.0
 * @category rules
 */
export const keepResearchWrappers: Rule.Rule = rules.keepResearchWrappers
