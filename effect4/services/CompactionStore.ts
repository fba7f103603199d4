/**
 * Where the compaction state of each session persists, so a reload rebuilds
 * the same outbound view. The state's JSON is the Effect 3 face's, so a
 * store written by one face is read by the other. Effect 4 face.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transcript from "../src/Transcript.js"
import * as WorkingState from "../src/WorkingState.js"

/**
 * The state of one session: the compacted block in force and the id of the
 * first message kept verbatim after it.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactionState extends Schema.Class<CompactionState>("CompactionState")({
  sessionId: Schema.String,
  compactions: Schema.Int,
  block: Transcript.CompactedBlock,
  boundaryId: Schema.String,
  pinnedIds: Schema.Array(Schema.String).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed([])),
    Schema.withConstructorDefault(Effect.succeed([]))
  ),
  archivePath: Schema.optionalKey(Schema.String),
  workingState: Schema.optionalKey(WorkingState.WorkingState),
  cutMessages: Schema.optionalKey(Schema.Array(Transcript.Message)),
  sourceDigest: Schema.optionalKey(Schema.String),
  updatedAt: Schema.Number
}) {}

/**
 * A store that failed to load or save.
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  sessionId: Schema.String,
  reason: Schema.String
}) {}

/**
 * What a versioned save did: `Saved`, or `Conflict` with the state that stands.
 *
 * @since 0.1.0
 * @category models
 */
export type SaveOutcome = Data.TaggedEnum<{
  Saved: {}
  Conflict: { readonly current: CompactionState }
}>

/**
 * Constructors and matchers of `SaveOutcome`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const SaveOutcome = Data.taggedEnum<SaveOutcome>()

/**
 * A session's memory between checkpoints as a store keeps it.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredMemory {
  readonly version: string
  readonly memory: string
  readonly reportedTokens: number | undefined
}

/**
 * The prompt tokens a provider reported for a session's last request, and its basis.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReportedTokens {
  readonly tokens: number
  readonly basis?: string | undefined
}

/**
 * Where a store shared by workers keeps each session's memory between checkpoints.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStore {
  readonly load: (sessionId: string) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  readonly save: (sessionId: string, version: string, memory: string) => Effect.Effect<void, StoreError>
  readonly report: (sessionId: string, report: ReportedTokens) => Effect.Effect<void, StoreError>
  readonly reported: (sessionId: string) => Effect.Effect<ReportedTokens | undefined, StoreError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The sessions' memory between checkpoints, in a store workers share; absent in a store of one process. */
  readonly memory?: MemoryStore | undefined
  readonly load: (sessionId: string) => Effect.Effect<Option.Option<CompactionState>, StoreError>
  /** Replaces the session's state, whatever it was. */
  readonly save: (state: CompactionState) => Effect.Effect<void, StoreError>
  /**
   * Replaces the session's state only if the stored one is the state the
   * saver started from (`expected` its `compactions`, 0 from none); a
   * session with no stored state is saved whatever `expected` says.
   */
  readonly saveIfCurrent: (state: CompactionState, expected: number) => Effect.Effect<SaveOutcome, StoreError>
}

/**
 * The compaction-state store.
 *
 * @since 0.1.0
 * @category tags
 */
export class CompactionStore
  extends Context.Service<CompactionStore, Service>()("context-compressor/CompactionStore")
{}

/**
 * A compaction-state store from its operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (service: Service): Service => CompactionStore.of(service)

/**
 * A state as the JSON text a persistent store keeps.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StateJson = Schema.fromJsonString(CompactionState)

/**
 * A state as JSON text, refused when the text would not decode back to it.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeJson = (state: CompactionState): Effect.Effect<string, Schema.SchemaError> =>
  Effect.tap(Schema.encodeEffect(StateJson)(state), (text) => Schema.decodeEffect(StateJson)(text))

/**
 * Makes a decoder of stored JSON text that remembers, per session, the last
 * text it decoded and its state, bounded to `sessions` sessions.
 *
 * @since 0.1.0
 * @category codecs
 */
export const makeDecoder = (sessions = 256) => {
  const last = new Map<string, { readonly text: string; readonly state: CompactionState }>()
  return (sessionId: string, text: string): Effect.Effect<CompactionState, Schema.SchemaError> =>
    Effect.suspend(() => {
      const known = last.get(sessionId)
      if (known !== undefined && known.text === text) return Effect.succeed(known.state)
      return Effect.tap(Schema.decodeEffect(StateJson)(text), (state) =>
        Effect.sync(() => {
          last.delete(sessionId)
          last.set(sessionId, { text, state })
          if (last.size > sessions) last.delete(last.keys().next().value!)
        }))
    })
}
