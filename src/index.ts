/**
 * context-compressor: keeps a long-running LLM agent inside its context window
 * without losing the state it needs to resume. This entry point exports the
 * retention-rule engine, the compaction engine and the message-format adapters; the built-in rules and
 * policies are in `context-compressor/rules`, the service tags in
 * `context-compressor/services`, their layers in `context-compressor/layers`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Adapter from "./Adapter.js"
/** @since 0.1.0 */
export * as Adapters from "./Adapters.js"
/** @since 0.1.0 */
export * as AiSdkMessages from "./AiSdkMessages.js"
/** @since 0.1.0 */
export * as AnthropicMessages from "./AnthropicMessages.js"
/** @since 0.1.0 */
export * as Boundary from "./Boundary.js"
/** @since 0.1.0 */
export * as Budget from "./Budget.js"
/** @since 0.1.0 */
export * as Clip from "./Clip.js"
/** @since 0.1.0 */
export * as CompactedBlock from "./CompactedBlock.js"
/** @since 0.1.0 */
export * as Compactor from "./Compactor.js"
/** @since 0.1.0 */
export * as Condition from "./Condition.js"
/** @since 0.1.0 */
export * as Decision from "./Decision.js"
/** @since 0.1.0 */
export * as EffectAiPrompt from "./EffectAiPrompt.js"
/** @since 0.1.0 */
export * as Envelope from "./Envelope.js"
/** @since 0.1.0 */
export * as Formats from "./Formats.js"
/** @since 0.1.0 */
export * as HttpApi from "./HttpApi.js"
/** @since 0.1.0 */
export * as HttpServer from "./HttpServer.js"
/** @since 0.1.0 */
export * as Interpreter from "./Interpreter.js"
/** @since 0.1.0 */
export * as Json from "./Json.js"
/** @since 0.1.0 */
export * as Matcher from "./Matcher.js"
/** @since 0.1.0 */
export * as OpenAiChat from "./OpenAiChat.js"
/** @since 0.1.0 */
export * as Policy from "./Policy.js"
/** @since 0.1.0 */
export * as QualityGate from "./QualityGate.js"
/** @since 0.1.0 */
export * as Reduce from "./Reduce.js"
/** @since 0.1.0 */
export * as Report from "./Report.js"
/** @since 0.1.0 */
export * as Rule from "./Rule.js"
/** @since 0.1.0 */
export * as Selector from "./Selector.js"
/** @since 0.1.0 */
export * as SummaryPrompt from "./SummaryPrompt.js"
/** @since 0.1.0 */
export * as Transcript from "./Transcript.js"
/** @since 0.1.0 */
export * as ViewCheck from "./ViewCheck.js"
/** @since 0.1.0 */
export * as WorkingState from "./WorkingState.js"
