/**
 * The service tags and interfaces of the compaction engine.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as Attention from "./Attention.js"
/** @since 0.1.0 */
export * as CompactionStore from "./CompactionStore.js"
/** @since 0.1.0 */
export * as Settings from "./Settings.js"
/** @since 0.1.0 */
export * as Summarizer from "./Summarizer.js"
/** @since 0.1.0 */
export * as SummaryCache from "./SummaryCache.js"
/** @since 0.1.0 */
export * as Tokenizer from "./Tokenizer.js"
/** @since 0.1.0 */
export * as TranscriptArchive from "./TranscriptArchive.js"
