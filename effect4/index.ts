/**
 * The entry `context-compressor/effect4` (docs/effect4.md): the names of the root entry
 * `context-compressor` on Effect 4, each a namespace as there: the retention-rule algebra and the
 * reduction of tool results, declared on Effect 4's Schema over the shared core, `Json` (the core's
 * exact reader, answering with a `Result`, and writer), the transcript and working-state models,
 * the compaction engine (`Compactor`, its `Checkpoint` models and `ViewCheck`), the summary request
 * and its gate (`SummaryPrompt`, `QualityGate`), the budgets (`Budget`), the ids of sessions
 * (`Session`) and the recall of compacted content by handle (`Recall`). The built-in rules and policies are in
 * `context-compressor/effect4/rules`, the services in `context-compressor/effect4/services`, their
 * layers in `context-compressor/effect4/layers`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Budget from "../src/Budget.js"
/** @since 0.1.0 */
export * as Checkpoint from "../src/Checkpoint.js"
/** @since 0.1.0 */
export * as Compactor from "../src/Compactor.js"
/** @since 0.1.0 */
export * as Condition from "../src/Condition.js"
/** @since 0.1.0 */
export * as Decision from "../src/Decision.js"
/** @since 0.1.0 */
export * as Envelope from "../src/Envelope.js"
/** @since 0.1.0 */
export * as Json from "../src/Json.js"
/** @since 0.1.0 */
export * as OptionalPackage from "../src/OptionalPackage.js"
/** @since 0.1.0 */
export * as Overflow from "../src/Overflow.js"
/** @since 0.1.0 */
export * as Policy from "../src/Policy.js"
/** @since 0.1.0 */
export * as QualityGate from "../src/QualityGate.js"
/** @since 0.1.0 */
export * as Recall from "../src/Recall.js"
/** @since 0.1.0 */
export * as Reduce from "../src/Reduce.js"
/** @since 0.1.0 */
export * as Report from "../src/Report.js"
/** @since 0.1.0 */
export * as Rule from "../src/Rule.js"
/** @since 0.1.0 */
export * as Selector from "../src/Selector.js"
/** @since 0.1.0 */
export * as Session from "../src/Session.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "../src/SummaryPrompt.js"
/** @since 0.1.0 */
export * as Transcript from "../src/Transcript.js"
/** @since 0.1.0 */
export * as ViewCheck from "../src/ViewCheck.js"
/** @since 0.1.0 */
export * as WorkingState from "../src/WorkingState.js"
