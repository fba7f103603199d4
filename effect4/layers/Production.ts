/**
 * The services of the engine on their production layers, on Effect 4.
 * `layerMemory` keeps nothing on disk; `layerSqlite` keeps the summary cache
 * (`cache.db`) and the compaction states (`state.db`) of a folder in SQLite
 * files on `node:sqlite`, the files the Effect 3 face's `layerSqlite` keeps.
 * Effect 4 face of `layers/Production`; the summariser is the offline one
 * unless one is given. What it does not have yet (docs/effect4.md): the
 * chat-completions summariser (give one of the application's), settings from
 * `config.toml` and the environment and their persisted overrides (the
 * settings are the defaults with the code's `values` over them), the archive
 * in the folder's `transcripts/` (the archive is in memory), and `layerPg`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as NodePath from "node:path"
import * as AttentionUnattended from "../../layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../layers/CompactionStoreMemory.js"
import * as CompactionStoreSql from "../../layers/CompactionStoreSql.js"
import * as SummarizerOffline from "../../layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../../layers/SummaryCacheMemory.js"
import * as SummaryCacheSql from "../../layers/SummaryCacheSql.js"
import * as TokenizerBpe from "../../layers/TokenizerBpe.js"
import * as TranscriptArchiveMemory from "../../layers/TranscriptArchiveMemory.js"
import type { Attention } from "../../services/Attention.js"
import type { CompactionStore } from "../../services/CompactionStore.js"
import * as Settings from "../../services/Settings.js"
import type { Summarizer } from "../../services/Summarizer.js"
import type { SummaryCache } from "../../services/SummaryCache.js"
import type { Tokenizer } from "../../services/Tokenizer.js"
import type { TranscriptArchive } from "../../services/TranscriptArchive.js"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options<E = never> {
  /**
   * The summariser (default: `SummarizerOffline.layer`, as on Effect 3); a
   * layer of the application's for a model (Effect 3's `chat-completions`
   * summariser is not on Effect 4 yet).
   */
  readonly summarizer?: Layer.Layer<Summarizer, E>
  /** Settings given in code, over the defaults (no `config.toml` nor environment is read on Effect 4 yet). */
  readonly values?: Settings.Values
}

/**
 * What the engine needs of every production layer.
 *
 * @since 0.1.0
 * @category models
 */
export type Services = Summarizer | SummaryCache | CompactionStore | Settings.Settings | Tokenizer | Attention

/**
 * Settings fixed at the defaults with `values` over them, clamped.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSettings = (values: Settings.Values = {}): Layer.Layer<Settings.Settings> =>
  Layer.succeed(Settings.Settings, Settings.Settings.of({ current: Effect.succeed(Settings.layered([values])) }))

/**
 * The services with nothing on disk: the offline summariser unless one is
 * given, the summary cache and the compaction states in memory (gone with the process), the settings from `values`, the
 * `o200k_base` tokenizer, an unattended session, and the memory archive. No
 * SQLite nor any other native module is loaded.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = <E = never>(
  options: Options<E> = {}
): Layer.Layer<
  Summarizer | SummaryCache | CompactionStore | Settings.Settings | Tokenizer | Attention | TranscriptArchive,
  E
> =>
  Layer.mergeAll(
    options.summarizer ?? SummarizerOffline.layer,
    SummaryCacheMemory.layer,
    CompactionStoreMemory.layer,
    layerSettings(options.values),
    TokenizerBpe.layer,
    AttentionUnattended.layer,
    TranscriptArchiveMemory.layer()
  )

/**
 * Options of `layerSqlite`: those of `layerMemory` and the folder.
 *
 * @since 0.1.0
 * @category models
 */
export interface SqliteOptions<E = never> extends Options<E> {
  /** The folder of the databases (default `.context-compressor`). */
  readonly directory?: string
}

/**
 * The default folder.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultDirectory = ".context-compressor"

/**
 * The files of a folder, as the Effect 3 face names them.
 *
 * @since 0.1.0
 * @category paths
 */
export const pathsOf = (directory: string = defaultDirectory) => ({
  cache: NodePath.join(directory, "cache.db"),
  state: NodePath.join(directory, "state.db")
})

/**
 * The services with the offline summariser unless one is given, the summary
 * cache and the compaction states (and each
 * session's memory between checkpoints) in the folder's SQLite files on
 * `node:sqlite` (no native module), opened and migrated by the layer; the
 * settings from `values`, the `o200k_base` tokenizer, an unattended session
 * and the memory archive. A file that cannot be opened does not stop the
 * layer: the cache then misses, and the store fails each load and save with
 * a `StoreError` saying why.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerSqlite = <E = never>(
  options: SqliteOptions<E> = {}
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | SummaryCacheSql.SqlCache
  | CompactionStore
  | Settings.Settings
  | Tokenizer
  | Attention
  | TranscriptArchive,
  E
> => {
  const paths = pathsOf(options.directory)
  return Layer.mergeAll(
    options.summarizer ?? SummarizerOffline.layer,
    SummaryCacheSql.layerSqlite({ filename: paths.cache }),
    CompactionStoreSql.layerSqlite({ filename: paths.state }),
    layerSettings(options.values),
    TokenizerBpe.layer,
    AttentionUnattended.layer,
    TranscriptArchiveMemory.layer()
  )
}
