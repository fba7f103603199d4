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
export * as Budget from "../face/engine/Budget.js"
/** @since 0.1.0 */
export * as Checkpoint from "../face/engine/Checkpoint.js"
/** @since 0.1.0 */
export * as Compactor from "../face/engine/Compactor.js"
/** @since 0.1.0 */
export * as Condition from "../face/models/Condition.js"
/** @since 0.1.0 */
export * as Decision from "../face/models/Decision.js"
/** @since 0.1.0 */
export * as Envelope from "../face/models/Envelope.js"
/** @since 0.1.0 */
export * as Json from "../face/models/Json.js"
/** @since 0.1.0 */
export * as OptionalPackage from "../face/models/OptionalPackage.js"
/** @since 0.1.0 */
export * as Overflow from "../face/engine/Overflow.js"
/** @since 0.1.0 */
export * as Policy from "../face/models/Policy.js"
/** @since 0.1.0 */
export * as QualityGate from "../face/engine/QualityGate.js"
/** @since 0.1.0 */
export * as Recall from "../face/engine/Recall.js"
/** @since 0.1.0 */
export * as Reduce from "../face/engine/Reduce.js"
/** @since 0.1.0 */
export * as Report from "../face/models/Report.js"
/** @since 0.1.0 */
export * as Rule from "../face/models/Rule.js"
/** @since 0.1.0 */
export * as Selector from "../face/models/Selector.js"
/** @since 0.1.0 */
export * as Session from "../face/engine/Session.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "../face/engine/SummaryPrompt.js"
/** @since 0.1.0 */
export * as Transcript from "../face/models/Transcript.js"
/** @since 0.1.0 */
export * as ViewCheck from "../face/engine/ViewCheck.js"
/** @since 0.1.0 */
export * as WorkingState from "../face/engine/WorkingState.js"
