/**
 * R1.5: the changes index, and the job and transaction records it points to.
 *
 * @since 0.1.0
 */
import * as Rule from "../src/Rule.js"

/**
 * The fields every entry of the changes index keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const indexEntryFields = ["id", "kind", "status", "title", "path"] as const

/**
 * The fields a job keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const jobFields = ["id", "status", "executable", "exitCode", "startedAt"] as const

const indexReason = "the changes index is entry-per-id: each entry keeps what identifies it, the rest is pruned"

/**
 * For `workspace_inspect { action: "changes" }`: each entry of the
 * `approvals`, `plans` and `jobs` arrays keeps its id, kind, status, title and
 * path (a job also its executable, exit code and start time); every other
 * field of an entry is pruned. The listing limit is kept too.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepChangesIndex: Rule.Rule = Rule.forTool(
  Rule.all(
    Rule.keep("data.limit", { name: "keepChangesIndex", reason: indexReason }),
    ...["approvals", "plans", "jobs"].flatMap((list) => {
      const fields: ReadonlyArray<string> = list === "jobs"
        ? [...new Set([...indexEntryFields, ...jobFields])]
        : indexEntryFields
      return [
        ...fields.map((field) => Rule.keep(`data.${list}.${field}`, { name: "keepChangesIndex", reason: indexReason })),
        Rule.prune(`data.${list}.*`, { name: "keepChangesIndex", reason: indexReason })
      ]
    })
  ),
  "workspace_inspect",
  "changes"
)

/**
 * Keeps a job record's `job_*` id, status, executable, exit code and start
 * time (`data.job`, as `workspace_command` returns it).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepJobRecords: Rule.Rule = Rule.all(
  ...jobFields.map((field) =>
    Rule.keep(`data.job.${field}`, {
      name: "keepJobRecords",
      reason: "a command's job id and exit code say whether it ran and how it ended"
    })
  )
)

/**
 * Keeps a transaction record's `tx_*` id, status and file list (`data.transaction`).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTransactionRecords: Rule.Rule = Rule.all(
  ...["id", "status", "files"].map((field) =>
    Rule.keep(`data.transaction.${field}`, {
      name: "keepTransactionRecords",
      reason: "a transaction's id and files are what a commit or a review re-reads"
    })
  )
)
