/**
 * The implementations of the services, production and test side by side,
 * grouped by the service they provide. Each module follows one naming scheme:
 * `make` builds the service, `layer` provides it, `layerConfig` from `Config`
 * (see docs/moved.md for the names it replaced). Its declarations need only
 * the packages of the README's Effect 3 install line: the @effect/ai layers
 * (`SummarizerLanguageModel`, `ChatCompletionsLanguageModel`) are in
 * `context-compressor/effect-ai`.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category Attention
 */
export * as AttentionUnattended from "./AttentionUnattended.js"
/**
 * @since 0.1.0
 * @category Attention
 */
export * as AttentionTerminal from "./AttentionTerminal.js"
/**
 * @since 0.1.0
 * @category Attention
 */
export * as AttentionFiber from "./AttentionFiber.js"
/**
 * @since 0.1.0
 * @category CompactionStore
 */
export * as CompactionStoreSql from "./CompactionStoreSql.js"
/**
 * @since 0.1.0
 * @category CompactionStore
 */
export * as CompactionStoreMemory from "./CompactionStoreMemory.js"
/**
 * @since 0.1.0
 * @category Settings
 */
export * as SettingsConfig from "./SettingsConfig.js"
/**
 * @since 0.1.0
 * @category Settings
 */
export * as SettingsFixed from "./SettingsFixed.js"
/**
 * @since 0.1.0
 * @category Summarizer
 */
export * as SummarizerAiSdk from "./SummarizerAiSdk.js"
/**
 * @since 0.1.0
 * @category Summarizer
 */
export * as SummarizerChatCompletions from "./SummarizerChatCompletions.js"
/**
 * @since 0.1.0
 * @category Summarizer
 */
export * as SummarizerOffline from "./SummarizerOffline.js"
/**
 * @since 0.1.0
 * @category Summarizer
 */
export * as SummarizerScripted from "./SummarizerScripted.js"
/**
 * @since 0.1.0
 * @category SummaryCache
 */
export * as SummaryCacheSql from "./SummaryCacheSql.js"
/**
 * @since 0.1.0
 * @category SummaryCache
 */
export * as SummaryCacheMemory from "./SummaryCacheMemory.js"
/**
 * @since 0.1.0
 * @category Tokenizer
 */
export * as TokenizerBpe from "./TokenizerBpe.js"
/**
 * @since 0.1.0
 * @category Tokenizer
 */
export * as TokenizerApprox from "./TokenizerApprox.js"
/**
 * @since 0.1.0
 * @category TranscriptArchive
 */
export * as TranscriptArchiveFile from "./TranscriptArchiveFile.js"
/**
 * @since 0.1.0
 * @category TranscriptArchive
 */
export * as TranscriptArchiveMemory from "./TranscriptArchiveMemory.js"
/**
 * @since 0.1.0
 * @category TranscriptArchive
 */
export * as TranscriptArchiveSql from "./TranscriptArchiveSql.js"
/**
 * @since 0.1.0
 * @category SQL
 */
export * as SqliteFile from "./sql/SqliteFile.js"
/**
 * @since 0.1.0
 * @category SQL
 */
export * as SqlPg from "./sql/SqlPg.js"
/**
 * @since 0.1.0
 * @category SQL
 */
export * as SqlMigrations from "./sql/SqlMigrations.js"
/**
 * @since 0.1.0
 * @category Stores
 */
export * as StoreDeadline from "./StoreDeadline.js"
/**
 * @since 0.1.0
 * @category All of them
 */
export * as Production from "./Production.js"
/**
 * @since 0.1.0
 * @category All of them
 */
export * as Testing from "./Testing.js"
