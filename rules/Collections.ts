/**
 * R1.3: the overview's recent collections and the research wrappers.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"

/**
 * The recent collections of `workspace_inspect { action: "overview" }`.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCollections = [
  "recentTransactions",
  "recentRuns",
  "recentTaskBoards",
  "recentResearchProjects"
] as const

/**
 * Keeps the recent transactions, runs, task boards and research projects of
 * the overview (capped at 20 entries each, with their counters).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepRecentCollections: Rule.Rule = Rule.forTool(
  Rule.all(
    ...recentCollections.map((collection) =>
      Rule.keep(`data.${collection}`, {
        name: "keepRecentCollections",
        reason: "the overview's recent collections are the index of what the workspace holds"
      })
    )
  ),
  "workspace_inspect",
  "overview"
)

/**
 * Keeps the `project` and `agentRun` wrappers of `workspace_research { action: "deep" }`.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepResearchWrappers: Rule.Rule = Rule.forTool(
  Rule.all(
    ...["data.project", "data.agentRun"].map((path) =>
      Rule.keep(path, {
        name: "keepResearchWrappers",
        reason: "the research project and the agent run doing it are what a deep research result resumes from"
      })
    )
  ),
  "workspace_research",
  "deep"
)
