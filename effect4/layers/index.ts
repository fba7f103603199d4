/**
 * The implementations of the services on Effect 4, production and test side
 * by side, under the names of `context-compressor/layers`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AttentionUnattended from "../../layers/AttentionUnattended.js"
/** @since 0.1.0 */
export * as AttentionFiber from "../../layers/AttentionFiber.js"
/** @since 0.1.0 */
export * as AttentionTerminal from "../../layers/AttentionTerminal.js"
/** @since 0.1.0 */
export * as CompactionStoreMemory from "../../layers/CompactionStoreMemory.js"
/** @since 0.1.0 */
export * as CompactionStoreSql from "../../layers/CompactionStoreSql.js"
/** @since 0.1.0 */
export * as Production from "../../layers/Production.js"
/** @since 0.1.0 */
export * as SettingsConfig from "../../layers/SettingsConfig.js"
/** @since 0.1.0 */
export * as SettingsFixed from "../../layers/SettingsFixed.js"
/** @since 0.1.0 */
export * as SummarizerAiSdk from "../../layers/SummarizerAiSdk.js"
/** @since 0.1.0 */
export * as SummarizerChatCompletions from "../../layers/SummarizerChatCompletions.js"
/** @since 0.1.0 */
export * as SummarizerOffline from "../../layers/SummarizerOffline.js"
/** @since 0.1.0 */
export * as SummarizerScripted from "../../layers/SummarizerScripted.js"
/** @since 0.1.0 */
export * as SqliteNode from "./sql/SqliteNode.js"
/** @since 0.1.0 */
export * as SqlMigrations from "../../layers/sql/SqlMigrations.js"
/** @since 0.1.0 */
export * as SqlPg from "../../layers/sql/SqlPg.js"
/** @since 0.1.0 */
export * as StoreDeadline from "../../layers/StoreDeadline.js"
/** @since 0.1.0 */
export * as SummaryCacheMemory from "../../layers/SummaryCacheMemory.js"
/** @since 0.1.0 */
export * as SummaryCacheSql from "../../layers/SummaryCacheSql.js"
/** @since 0.1.0 */
export * as Testing from "../../layers/Testing.js"
/** @since 0.1.0 */
export * as TokenizerApprox from "../../layers/TokenizerApprox.js"
/** @since 0.1.0 */
export * as TokenizerBpe from "../../layers/TokenizerBpe.js"
/** @since 0.1.0 */
export * as TranscriptArchiveMemory from "../../layers/TranscriptArchiveMemory.js"
/** @since 0.1.0 */
export * as TranscriptArchiveFile from "../../layers/TranscriptArchiveFile.js"
/** @since 0.1.0 */
export * as TranscriptArchiveSql from "../../layers/TranscriptArchiveSql.js"
