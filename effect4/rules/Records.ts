/**
 * R1.5: the changes index, and the job and transaction records it points to. On Effect 4: the shared core's `records` applied to this face's kit
 * (docs/effect4.md), the same values as `context-compressor/rules`' `Records`.
 *
 * @since 0.1.0
 */
import * as BuiltInRules from "../../src/internal/reduce/BuiltInRules.js"
import * as Rule from "../src/Rule.js"

const built = BuiltInRules.records(Rule.kit)

/** @since 0.1.0 */
export const indexEntryFields = BuiltInRules.indexEntryFields

/** @since 0.1.0 */
export const jobFields = BuiltInRules.jobFields

/** @since 0.1.0 */
export const keepChangesIndex: Rule.Rule = built.keepChangesIndex

/** @since 0.1.0 */
export const keepJobRecords: Rule.Rule = built.keepJobRecords

/** @since 0.1.0 */
export const keepTransactionRecords: Rule.Rule = built.keepTransactionRecords
