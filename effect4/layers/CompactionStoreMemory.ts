/**
 * In-memory compaction stores for tests. The memory store keeps each state as
 * the JSON text its schema encodes to and decodes it on load, so a test sees
 * exactly what a persistent store would give back (and refuses at save a
 * state that would not come back), and does versioned saves atomically by
 * the shared core's compare-and-set rule (`StoreRules.saves`), as the SQL
 * store does; the failing store fails every call, to exercise the error
 * paths. Effect 4 face of `layers/CompactionStoreMemory`.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as MemoryStores from "../../src/internal/services/MemoryStores.js"
import * as CompactionStore from "../services/CompactionStore.js"
import { effect, fx } from "../src/internal/EffectFx.js"

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
export class MemoryStore extends Context.Service<MemoryStore, Service>()(
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
    const states = MemoryStores.makeStates(fx, {
      encode: CompactionStore.encodeJson,
      decode: CompactionStore.makeDecoder(),
      error: (sessionId, reason) => new CompactionStore.StoreError({ sessionId, reason }),
      saved: (): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Saved(),
      conflict: (current): CompactionStore.SaveOutcome => CompactionStore.SaveOutcome.Conflict({ current })
    })
    const store = CompactionStore.make({
      load: (sessionId) =>
        Effect.map(
          effect<CompactionStore.CompactionState | undefined, CompactionStore.StoreError>(states.load(sessionId)),
          Option.fromNullishOr
        ),
      save: (state) => effect<void, CompactionStore.StoreError>(states.save(state)),
      saveIfCurrent: (state, expected) =>
        effect<CompactionStore.SaveOutcome, CompactionStore.StoreError>(states.saveIfCurrent(state, expected))
    })
    const inspection: Service = { stored: effect<ReadonlyMap<string, string>, never>(states.stored) }
    return Context.make(CompactionStore.CompactionStore, store).pipe(Context.add(MemoryStore, inspection))
  }
)

/**
 * Provides an empty in-memory `CompactionStore` and the `MemoryStore` that reads what it holds.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<CompactionStore.CompactionStore | MemoryStore> = Layer.effectContext(make)

/**
 * Provides a `CompactionStore` whose every load and save fails with a
 * `StoreError` carrying `reason`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFailing = (reason: string): Layer.Layer<CompactionStore.CompactionStore> =>
  Layer.succeed(
    CompactionStore.CompactionStore,
    CompactionStore.make({
      load: (sessionId) => Effect.fail(new CompactionStore.StoreError({ sessionId, reason })),
      save: (state) => Effect.fail(new CompactionStore.StoreError({ sessionId: state.sessionId, reason })),
      saveIfCurrent: (state) => Effect.fail(new CompactionStore.StoreError({ sessionId: state.sessionId, reason }))
    })
  )
