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
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as StoreRules from "../../src/internal/services/StoreRules.js"
import * as CompactionStore from "../services/CompactionStore.js"

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
export const make: Effect.Effect<Context.Context<CompactionStore.CompactionStore | MemoryStore>> = Effect.gen(
  function*() {
    // Synchronized, so that a versioned save reads and replaces a session's state as one step.
    const encoded = yield* SynchronizedRef.make<ReadonlyMap<string, string>>(new Map())
    const decodeState = CompactionStore.makeDecoder()
    const decodeStored = (sessionId: string, text: string) =>
      Effect.mapError(
        decodeState(sessionId, text),
        (error) => new CompactionStore.StoreError({ sessionId, reason: StoreRules.notDecodable(error.message) })
      )
    // A state that does not decode from its own JSON (a non-finite number
    // becomes null) is refused at save, as a persistent store would lose it.
    const encode = (state: CompactionStore.CompactionState) =>
      Effect.mapError(
        CompactionStore.encodeJson(state),
        (error) =>
          new CompactionStore.StoreError({
            sessionId: state.sessionId,
            reason: StoreRules.notEncodable(error.message)
          })
      )
    const store = CompactionStore.make({
      load: (sessionId) =>
        Effect.flatMap(SynchronizedRef.get(encoded), (states) => {
          const text = states.get(sessionId)
          return text === undefined ? Effect.succeedNone : Effect.asSome(decodeStored(sessionId, text))
        }),
      save: (state) =>
        Effect.flatMap(
          encode(state),
          (text) => SynchronizedRef.update(encoded, (states) => new Map(states).set(state.sessionId, text))
        ),
      saveIfCurrent: (state, expected) =>
        Effect.flatMap(encode(state), (text) =>
          SynchronizedRef.modifyEffect(encoded, (states) => {
            type Step = readonly [CompactionStore.SaveOutcome, ReadonlyMap<string, string>]
            const saved: Step = [CompactionStore.SaveOutcome.Saved(), new Map(states).set(state.sessionId, text)]
            const stored = states.get(state.sessionId)
            if (stored === undefined) {
              return Effect.succeed(saved)
            }
            return Effect.map(
              decodeStored(state.sessionId, stored),
              (current): Step =>
                StoreRules.saves(current, expected)
                  ? saved
                  : [CompactionStore.SaveOutcome.Conflict({ current }), states]
            )
          }))
    })
    const inspection: Service = { stored: SynchronizedRef.get(encoded) }
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
