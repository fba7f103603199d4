/**
 * In-memory compaction stores for tests. The memory store keeps each state as
 * the JSON text its schema encodes to and decodes it on load, so a test sees
 * exactly what a persistent store would give back (and refuses at save a
 * state that would not come back), and does versioned saves atomically, as
 * the SQL store does; the failing store fails
 * every call, to exercise the error paths.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as CompactionStore from "../services/CompactionStore.js"
import * as MemoryStores from "./internal/MemoryStores.js"

/**
 * The encoded form a state is kept in: the JSON text of its encoded fields.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StoredState = CompactionStore.StateJson

/**
 * What a test can read back from the memory store.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The encoded state of each session, as stored: session id to JSON text. */
  readonly stored: Effect.Effect<ReadonlyMap<string, string>>
}

/**
 * The inspection side of the memory store.
 *
 * @since 0.1.0
 * @category tags
 */
export class MemoryStore extends Compat.Service<MemoryStore, Service>()(
  "context-compressor/layers/CompactionStoreMemory/MemoryStore"
) {}

/**
 * Builds an empty memory store and its inspection service, as one context to provide.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Context.Context<CompactionStore.CompactionStore | MemoryStore>> = Effect.sync(
  () => {
    const states = MemoryStores.makeStates({
      encode: CompactionStore.encodeJson,
      decode: CompactionStore.makeDecoder(),
      error: (sessionId, reason) => new CompactionStore.StoreError({ sessionId, reason }),
      saved: (): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Saved(),
      conflict: (current): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Conflict({ current })
    })
    const store = CompactionStore.CompactionStore.of({
      load: (sessionId) => Effect.map(states.load(sessionId), Compat.fromNullishOr),
      save: states.save,
      saveIfCurrent: states.saveIfCurrent
    })
    const inspection: Service = { stored: states.stored }
    return Context.make(CompactionStore.CompactionStore, store).pipe(Context.add(MemoryStore, inspection))
  }
)

/**
 * Provides an empty in-memory `CompactionStore` and the `MemoryStore` that reads what it holds.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import * as Layers from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect, Layer } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // The engine on memory parts; `MemoryStore` reads the sessions' states back as the store encoded them.
 * const services = Layer.mergeAll(
 *   Layers.CompactionStoreMemory.layer,
 *   Layers.SummaryCacheMemory.layer,
 *   Layers.SummarizerOffline.layer,
 *   Layers.SettingsFixed.layer(),
 *   Layers.TokenizerApprox.layer,
 *   Layers.AttentionUnattended.layer
 * )
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   const stored = yield* Effect.flatMap(Layers.CompactionStoreMemory.MemoryStore, (memory) => memory.stored)
 *   assert.deepStrictEqual([...stored.keys()], ["s1"])
 * })
 * const engine = Layers.Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<CompactionStore.CompactionStore | MemoryStore> = Layer.effectContext(make)

/**
 * Provides a `CompactionStore` whose every load and save fails with a
 * `StoreError` carrying `reason`.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { CompactionStoreMemory, Production, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // A runtime's test with the database down: the checkpoint fails with the store's error.
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const transcript = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 *   const checkpoint = compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   return yield* Effect.flip(checkpoint)
 * })
 * const services = Testing.layer({ store: CompactionStoreMemory.layerFailing("the database is down") })
 * const error = await Effect.runPromise(
 *   program.pipe(Effect.provide(Production.layerEngine({ engine: { policies: builtInPolicies }, services })))
 * )
 * console.log(error._tag)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFailing = (reason: string): Layer.Layer<CompactionStore.CompactionStore> =>
  Layer.succeed(
    CompactionStore.CompactionStore,
    CompactionStore.CompactionStore.of({
      load: (sessionId) => Effect.fail(new CompactionStore.StoreError({ sessionId, reason })),
      save: (state) => Effect.fail(new CompactionStore.StoreError({ sessionId: state.sessionId, reason })),
      saveIfCurrent: (state) => Effect.fail(new CompactionStore.StoreError({ sessionId: state.sessionId, reason }))
    })
  )

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { CompactionStoreMemory } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `CompactionStoreMemory.layer`.
 * assert.strictEqual(CompactionStoreMemory.layerMemory, CompactionStoreMemory.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `CompactionStoreMemory.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerMemory: typeof layer = layer
