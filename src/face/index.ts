/**
 * context-compressor: keeps a long-running LLM agent inside its context window
 * without losing the state it needs to resume. This entry point exports the
 * core a runtime composes: the retention-rule algebra, the neutral transcript
 * and the compaction engine; it loads no database driver, server or CLI. The
 * message-format adapters are in `context-compressor/adapters`, the HTTP API and
 * server in `context-compressor/http`, the built-in rules and policies in
 * `context-compressor/rules`, the service tags in `context-compressor/services`,
 * their layers in `context-compressor/layers`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Budget from "./engine/Budget.js"
/** @since 0.1.0 */
export * as Checkpoint from "./engine/Checkpoint.js"
/** @since 0.1.0 */
export * as Compactor from "./engine/Compactor.js"
/** @since 0.1.0 */
export * as Condition from "./models/Condition.js"
/** @since 0.1.0 */
export * as Decision from "./models/Decision.js"
/** @since 0.1.0 */
export * as Envelope from "./models/Envelope.js"
/** @since 0.1.0 */
export * as Json from "./models/Json.js"
/** @since 0.1.0 */
export * as OptionalPackage from "./models/OptionalPackage.js"
/** @since 0.1.0 */
export * as Overflow from "./engine/Overflow.js"
/** @since 0.1.0 */
export * as Policy from "./models/Policy.js"
/** @since 0.1.0 */
export * as QualityGate from "./engine/QualityGate.js"
/** @since 0.1.0 */
export * as Recall from "./engine/Recall.js"
/** @since 0.1.0 */
export * as Reduce from "./engine/Reduce.js"
/** @since 0.1.0 */
export * as Report from "./models/Report.js"
/** @since 0.1.0 */
export * as Rule from "./models/Rule.js"
/** @since 0.1.0 */
export * as Selector from "./models/Selector.js"
/** @since 0.1.0 */
export * as Session from "./engine/Session.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "./engine/SummaryPrompt.js"
/** @since 0.1.0 */
export * as Transcript from "./models/Transcript.js"
/** @since 0.1.0 */
export * as ViewCheck from "./engine/ViewCheck.js"
/** @since 0.1.0 */
export * as WorkingState from "./engine/WorkingState.js"
