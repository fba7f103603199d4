/**
 * In-memory compaction stores for tests. The memory store keeps each state as
 * the JSON text its schema encodes to and decodes it on load, so a test sees
 * exactly what a persistent store would give back (and refuses at save a
 * state that would not come back); the failing store fails
 * every call, to exercise the error paths.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
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
export class MemoryStore extends Context.Tag("context-compressor/layers/CompactionStoreMemory/MemoryStore")<
  MemoryStore,
  Service
>() {}


/**
 * Builds an empty memory store and its inspection service, as one context to provide.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Context.Context<CompactionStore.CompactionStore | MemoryStore>> = Effect.gen(function*() {
  const encoded = yield* Ref.make<ReadonlyMap<string, string>>(new Map())
  const decodeState = CompactionStore.makeDecoder()
  const store: CompactionStore.Service = {
    load: (sessionId) =>
      Ref.get(encoded).pipe(
        Effect.flatMap((states) => {
          const text = states.get(sessionId)
          return text === undefined ? Effect.succeedNone : Effect.asSome(decodeState(sessionId, text))
        }),
        Effect.mapError((error) => new CompactionStore.StoreError({ sessionId, reason: `stored state does not decode: ${error.message}` }))
      ),
    save: (state) =>
      // A state that does not decode from its own JSON (a non-finite number
      // becomes null) is refused at save, as a persistent store would lose it.
      CompactionStore.encodeJson(state).pipe(
        Effect.mapError((error) =>
          new CompactionStore.StoreError({ sessionId: state.sessionId, reason: `state does not survive encoding: ${error.message}` })
        ),
        Effect.flatMap((text) => Ref.update(encoded, (states) => new Map(states).set(state.sessionId, text)))
      )
  }
  const inspection: Service = { stored: Ref.get(encoded) }
  return Context.make(CompactionStore.CompactionStore, store).pipe(Context.add(MemoryStore, inspection))
})

/**
 * Provides an empty in-memory `CompactionStore` and the `MemoryStore` that reads what it holds.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory: Layer.Layer<CompactionStore.CompactionStore | MemoryStore> = Layer.effectContext(make)

/**
 * Provides a `CompactionStore` whose every load and save fails with a
 * `StoreError` carrying `reason`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerFailing = (reason: string): Layer.Layer<CompactionStore.CompactionStore> =>
  Layer.succeed(CompactionStore.CompactionStore, {
    load: (sessionId) => Effect.fail(new CompactionStore.StoreError({ sessionId, reason })),
    save: (state) => Effect.fail(new CompactionStore.StoreError({ sessionId: state.sessionId, reason }))
  })
