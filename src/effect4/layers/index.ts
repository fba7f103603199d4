/**
 * The implementations of the services on Effect 4, production and test side
 * by side, under the names of `context-compressor/layers`.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as AttentionUnattended from "../../face/layers/AttentionUnattended.js"
/** @since 0.1.0 */
export * as AttentionFiber from "../../face/layers/AttentionFiber.js"
/** @since 0.1.0 */
export * as AttentionTerminal from "../../face/layers/AttentionTerminal.js"
/** @since 0.1.0 */
export * as CompactionStoreMemory from "../../face/layers/CompactionStoreMemory.js"
/** @since 0.1.0 */
export * as CompactionStoreSql from "../../face/layers/CompactionStoreSql.js"
/** @since 0.1.0 */
export * as Production from "../../face/layers/Production.js"
/** @since 0.1.0 */
export * as SettingsConfig from "../../face/layers/SettingsConfig.js"
/** @since 0.1.0 */
export * as SettingsFixed from "../../face/layers/SettingsFixed.js"
/** @since 0.1.0 */
export * as SummarizerAiSdk from "../../face/layers/SummarizerAiSdk.js"
/** @since 0.1.0 */
export * as SummarizerChatCompletions from "../../face/layers/SummarizerChatCompletions.js"
/** @since 0.1.0 */
export * as SummarizerOffline from "../../face/layers/SummarizerOffline.js"
/** @since 0.1.0 */
export * as SummarizerScripted from "../../face/layers/SummarizerScripted.js"
/** @since 0.1.0 */
export * as SqliteNode from "./sql/SqliteNode.js"
/** @since 0.1.0 */
export * as SqlMigrations from "../../face/layers/sql/SqlMigrations.js"
/** @since 0.1.0 */
export * as SqlPg from "../../face/layers/sql/SqlPg.js"
/** @since 0.1.0 */
export * as StoreDeadline from "../../face/layers/StoreDeadline.js"
/** @since 0.1.0 */
export * as SummaryCacheMemory from "../../face/layers/SummaryCacheMemory.js"
/** @since 0.1.0 */
export * as SummaryCacheSql from "../../face/layers/SummaryCacheSql.js"
/** @since 0.1.0 */
export * as Testing from "../../face/layers/Testing.js"
/** @since 0.1.0 */
export * as TokenizerApprox from "../../face/layers/TokenizerApprox.js"
/** @since 0.1.0 */
export * as TokenizerBpe from "../../face/layers/TokenizerBpe.js"
/** @since 0.1.0 */
export * as TranscriptArchiveMemory from "../../face/layers/TranscriptArchiveMemory.js"
/** @since 0.1.0 */
export * as TranscriptArchiveFile from "../../face/layers/TranscriptArchiveFile.js"
/** @since 0.1.0 */
export * as TranscriptArchiveSql from "../../face/layers/TranscriptArchiveSql.js"
