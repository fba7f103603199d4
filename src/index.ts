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
export * as Budget from "./Budget.js"
/** @since 0.1.0 */
export * as Checkpoint from "./Checkpoint.js"
/** @since 0.1.0 */
export * as Compactor from "./Compactor.js"
/** @since 0.1.0 */
export * as Condition from "./Condition.js"
/** @since 0.1.0 */
export * as Decision from "./Decision.js"
/** @since 0.1.0 */
export * as Envelope from "./Envelope.js"
/** @since 0.1.0 */
export * as Json from "./Json.js"
/** @since 0.1.0 */
export * as OptionalPackage from "./OptionalPackage.js"
/** @since 0.1.0 */
export * as Overflow from "./Overflow.js"
/** @since 0.1.0 */
export * as Policy from "./Policy.js"
/** @since 0.1.0 */
export * as QualityGate from "./QualityGate.js"
/** @since 0.1.0 */
export * as Recall from "./Recall.js"
/** @since 0.1.0 */
export * as Reduce from "./Reduce.js"
/** @since 0.1.0 */
export * as Report from "./Report.js"
/** @since 0.1.0 */
export * as Rule from "./Rule.js"
/** @since 0.1.0 */
export * as Selector from "./Selector.js"
/** @since 0.1.0 */
export * as Session from "./Session.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "./SummaryPrompt.js"
/** @since 0.1.0 */
export * as Transcript from "./Transcript.js"
/** @since 0.1.0 */
export * as ViewCheck from "./ViewCheck.js"
/** @since 0.1.0 */
export * as WorkingState from "./WorkingState.js"
