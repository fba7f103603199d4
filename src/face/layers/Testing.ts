/**
 * Every service of the engine on its test layer, in one call: the
 * counterpart of `Production.layerSqlite` for tests and property tests of a
 * runtime that composes the engine. Any part can be replaced.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import type { Attention } from "../services/Attention.js"
import type { CompactionStore } from "../services/CompactionStore.js"
import type { Settings } from "../services/Settings.js"
import type { Summarizer } from "../services/Summarizer.js"
import type { SummaryCache } from "../services/SummaryCache.js"
import type { Tokenizer } from "../services/Tokenizer.js"
import type { TranscriptArchive } from "../services/TranscriptArchive.js"
import * as AttentionUnattended from "./AttentionUnattended.js"
import * as CompactionStoreMemory from "./CompactionStoreMemory.js"
import * as SettingsFixed from "./SettingsFixed.js"
import * as SummarizerOffline from "./SummarizerOffline.js"
import * as SummaryCacheMemory from "./SummaryCacheMemory.js"
import * as TokenizerApprox from "./TokenizerApprox.js"

/**
 * The parts to use instead of the defaults: the offline summariser, the
 * memory cache and store, fixed settings (the defaults, with `settings` over
 * them), the chars/4 tokenizer, an unattended session, and no archive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<RS = never, RA = never, RT = never> {
  readonly summarizer?: Layer.Layer<Summarizer | RS>
  readonly attention?: Layer.Layer<Attention | RA>
  /** A settings layer; or `settings` to override some fixed values. */
  readonly settingsLayer?: Layer.Layer<Settings | RT>
  readonly settings?: SettingsFixed.Overrides
  readonly store?: Layer.Layer<CompactionStore>
  readonly tokenizer?: Layer.Layer<Tokenizer>
  readonly archive?: Layer.Layer<TranscriptArchive>
}

/**
 * The test services. The memory cache's and store's inspection services
 * (`MemoryCache`, and `MemoryStore` unless `store` is given) come with them.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // A test of a runtime that composes the engine: every service on its test layer, one setting changed.
 * const services = Testing.layer({ settings: { keepFraction: 0.2 } })
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   assert.strictEqual(view[0]?._tag, "Compacted")
 * })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <RS = never, RA = never, RT = never>(
  options: Options<RS, RA, RT> = {}
): Layer.Layer<
  | Summarizer
  | SummaryCache
  | SummaryCacheMemory.MemoryCache
  | CompactionStore
  | Settings
  | Tokenizer
  | Attention
  | RS
  | RA
  | RT
> =>
  Layer.mergeAll(
    (options.summarizer ?? SummarizerOffline.layer) as Layer.Layer<Summarizer | RS>,
    SummaryCacheMemory.layer,
    options.store ?? CompactionStoreMemory.layer,
    (options.settingsLayer ?? SettingsFixed.layer(options.settings ?? {})) as Layer.Layer<Settings | RT>,
    options.tokenizer ?? TokenizerApprox.layer,
    (options.attention ?? AttentionUnattended.layer) as Layer.Layer<Attention | RA>,
    options.archive ?? Layer.empty
  )
