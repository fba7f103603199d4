/**
 * R1.5: the changes index, and the job and transaction records it points to.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const rules = BuiltInRules.records(Rule.kit)

/**
 * The fields every entry of the changes index keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const indexEntryFields = BuiltInRules.indexEntryFields

/**
 * The fields a job keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const jobFields = BuiltInRules.jobFields

/**
 * For `workspace_inspect { action: "changes" }`: each entry of the
 * `approvals`, `plans` and `jobs` arrays keeps its id, kind, status, title and
 * path (a job also its executable, exit code and start time); every other
 * field of an entry is pruned. The listing limit is kept too.
 *
 * @since 0.1.0
 * @category rules
 */
export const keepChangesIndex: Rule.Rule = rules.keepChangesIndex

/**
 * Keeps a job record's `job_*` id, status, executable, exit code and start
 * time (`data.job`, as `workspace_command` returns it).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepJobRecords: Rule.Rule = rules.keepJobRecords

/**
 * Keeps a transaction record's `tx_*` id, status and file list (`data.transaction`).
 *
 * @since 0.1.0
 * @category rules
 */
export const keepTransactionRecords: Rule.Rule = rules.keepTransactionRecords
