/**
 * The implementations of the services, production and test side by side.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AttentionFiber from "./AttentionFiber.js"
/** @since 0.1.0 */
export * as AttentionTerminal from "./AttentionTerminal.js"
/** @since 0.1.0 */
export * as AttentionUnattended from "./AttentionUnattended.js"
/** @since 0.1.0 */
export * as CompactionStoreMemory from "./CompactionStoreMemory.js"
/** @since 0.1.0 */
export * as CompactionStoreSql from "./CompactionStoreSql.js"
/** @since 0.1.0 */
export * as Production from "./Production.js"
/** @since 0.1.0 */
export * as SettingsConfig from "./SettingsConfig.js"
/** @since 0.1.0 */
export * as SettingsFixed from "./SettingsFixed.js"
/** @since 0.1.0 */
export * as SqliteFile from "./sql/SqliteFile.js"
/** @since 0.1.0 */
export * as SqlPg from "./sql/SqlPg.js"
/** @since 0.1.0 */
export * as SqlMigrations from "./sql/SqlMigrations.js"
/** @since 0.1.0 */
export * as SummarizerAiSdk from "./SummarizerAiSdk.js"
/** @since 0.1.0 */
export * as SummarizerChatCompletions from "./SummarizerChatCompletions.js"
/** @since 0.1.0 */
export * as SummarizerLanguageModel from "./SummarizerLanguageModel.js"
/** @since 0.1.0 */
export * as SummarizerOffline from "./SummarizerOffline.js"
/** @since 0.1.0 */
export * as SummarizerScripted from "./SummarizerScripted.js"
/** @since 0.1.0 */
export * as SummaryCacheMemory from "./SummaryCacheMemory.js"
/** @since 0.1.0 */
export * as SummaryCacheSql from "./SummaryCacheSql.js"
/** @since 0.1.0 */
export * as Testing from "./Testing.js"
/** @since 0.1.0 */
export * as TokenizerApprox from "./TokenizerApprox.js"
/** @since 0.1.0 */
export * as TokenizerBpe from "./TokenizerBpe.js"
/** @since 0.1.0 */
export * as TranscriptArchiveFile from "./TranscriptArchiveFile.js"
