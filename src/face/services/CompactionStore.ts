/**
 * Where the compaction state of each session persists, so a reload rebuilds
 * the same outbound view (SPEC R2.9). The transcript itself is never stored
 * here nor modified: the state says only where the boundary is and what
 * stands for the span before it.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as WorkingState from "../engine/WorkingState.js"
import * as Transcript from "../models/Transcript.js"

/**
 * The state of one session: the compacted block in force and the id of the
 * first message kept verbatim after it.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactionState extends Schema.Class<CompactionState>("CompactionState")({
  sessionId: Schema.String,
  /** How many compactions the session has had. */
  compactions: Schema.Int,
  block: Transcript.CompactedBlock,
  /** The id of the first message after the block, kept verbatim. */
  boundaryId: Schema.String,
  /**
   * Ids of older messages kept verbatim between the block and the boundary:
   * the calls and results of staged approvals still waiting for an answer.
   */
  pinnedIds: Compat.optionalKeyWithDefault(Schema.Array(Schema.String), () => []),
  /** Where the verbatim transcript of the compacted turns was written, if anywhere. */
  archivePath: Compat.optionalKey(Schema.String),
  /**
   * The working state of everything the block replaces, so that the next
   * compaction extracts only the span it adds (absent in states saved before it was kept).
   */
  workingState: Compat.optionalKey(WorkingState.WorkingState),
  /**
   * The messages after the block as the ladder cut them when the compaction
   * was made (a newest turn bigger than the verbatim tail, cut to the target):
   * a restored view takes them in place of the transcript's messages of the
   * same id (and of `block`, when the ladder clipped the block in the view;
   * `block` itself stays whole for the next compaction), so a reload rebuilds
   * the view that was sent. Absent when nothing was cut.
   */
  cutMessages: Compat.optionalKey(Schema.Array(Transcript.Message)),
  /**
   * A digest of what the compaction was made from: the messages the block
   * replaces and the originals of `cutMessages`, by content. A transcript
   * that holds other messages there (one edited, even to the same length)
   * is not restored: the engine compacts again from what it was sent.
   * Absent in states saved before it was kept; those are restored by their ids.
   */
  sourceDigest: Compat.optionalKey(Schema.String),
  updatedAt: Schema.Number
}) {}

/**
 * A store that failed to load or save.
 *
 * @example
 * ```ts
 * import { CompactionStoreMemory } from "context-compressor/layers"
 * import { CompactionStore } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A store whose database is down: its loads fail with StoreError, caught by its tag.
 * const program = Effect.gen(function*() {
 *   const store = yield* CompactionStore.CompactionStore
 *   yield* store.load("s1")
 *   return "loaded"
 * }).pipe(Effect.catchTag("StoreError", (error) => Effect.succeed(`${error.sessionId}: ${error.reason}`)))
 * const outcome = await Effect.runPromise(
 *   program.pipe(Effect.provide(CompactionStoreMemory.layerFailing("the database is down")))
 * )
 * assert.strictEqual(outcome, "s1: the database is down")
 * ```
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  sessionId: Schema.String,
  reason: Schema.String
}) {}

/**
 * What a versioned save did: `Saved`, or `Conflict` when another writer
 * saved the session first, with the state that stands.
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
 * A session's memory between checkpoints as a store keeps it: the engine's
 * own encoding (`memory`, JSON text), the `version` of the checkpoint that
 * wrote it, and the last prompt token count a provider reported for the
 * session (kept apart: the proxy writes it when an answer arrives).
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
 * The prompt tokens a provider reported for a session's last request, and
 * the basis of that request as its writer encodes it (the proxy's own count
 * of what it sent and where its history ended), kept as text.
 *
 * @since 0.1.0
 * @category models
 */
export interface ReportedTokens {
  readonly tokens: number
  readonly basis?: string | undefined
}

/**
 * Where a store shared by workers keeps each session's memory between
 * checkpoints (the last view sent, the last counts), so that a worker that
 * did not serve the session's last request builds the same view as the one
 * that did: a worker's own memory is then a cache, never the only copy.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStore {
  /** The session's memory, none when no checkpoint wrote one. */
  readonly load: (sessionId: string) => Effect.Effect<Option.Option<StoredMemory>, StoreError>
  /** Replaces the session's memory (its reported tokens stay). */
  readonly save: (sessionId: string, version: string, memory: string) => Effect.Effect<void, StoreError>
  /** Records the prompt tokens a provider reported for the session's last request, with what its reader needs to use them. */
  readonly report: (sessionId: string, report: ReportedTokens) => Effect.Effect<void, StoreError>
  /** What was last reported for the session, if anything. */
  readonly reported: (sessionId: string) => Effect.Effect<ReportedTokens | undefined, StoreError>
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * The sessions' memory between checkpoints, in a store workers share
   * (`CompactionStoreSql`); absent in a store of one process, whose engine's
   * memory is the only one.
   *
   * @since 0.1.0
   */
  readonly memory?: MemoryStore | undefined
  readonly load: (sessionId: string) => Effect.Effect<Option.Option<CompactionState>, StoreError>
  /** Replaces the session's state, whatever it was. */
  readonly save: (state: CompactionState) => Effect.Effect<void, StoreError>
  /**
   * Replaces the session's state only if the stored one is the state the
   * saver started from: `expected` is its `compactions`, 0 when it started
   * from none. Atomic against every other writer of the store: of two savers
   * that started from the same state, one gets `Saved`, the other `Conflict`
   * with the winner's state, which it must not overwrite. A session with no
   * stored state is saved whatever `expected` says.
   */
  readonly saveIfCurrent: (state: CompactionState, expected: number) => Effect.Effect<SaveOutcome, StoreError>
}

/**
 * The compaction-state store.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { CompactionStore } from "context-compressor/services"
 * import { Effect, Option } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // What the engine keeps of a session between its checkpoints.
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   const store = yield* CompactionStore.CompactionStore
 *   const state = yield* store.load("s1")
 *   assert.ok(Option.isSome(state))
 *   console.log(`compaction ${state.value.compactions}, view of ${view.length} messages`)
 * })
 *
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services: Testing.layer() })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class CompactionStore extends Compat.Service<CompactionStore, Service>()("context-compressor/CompactionStore") {}

/**
 * A state as the JSON text a persistent store keeps.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StateJson = Compat.fromJsonString(CompactionState)

/**
 * A state as JSON text, refused when the text would not decode back to it (a
 * non-finite number becomes `null`), since a persistent store would lose it.
 *
 * @since 0.1.0
 * @category codecs
 */
export const encodeJson = (state: CompactionState): Effect.Effect<string, Compat.SchemaError> =>
  Effect.tap(Compat.encodeEffect(StateJson)(state), Compat.decodeEffect(StateJson))

/**
 * Makes a decoder of stored JSON text that remembers, per session, the last
 * text it decoded and its state: a checkpoint that reads back an unchanged
 * state (the common case) pays a string comparison, not a decode. Bounded to
 * `sessions` sessions, the least recently decoded forgotten first.
 *
 * @since 0.1.0
 * @category codecs
 */
export const makeDecoder = (sessions = 256) => {
  const last = new Map<string, { readonly text: string; readonly state: CompactionState }>()
  return (sessionId: string, text: string): Effect.Effect<CompactionState, Compat.SchemaError> =>
    Effect.suspend(() => {
      const known = last.get(sessionId)
      if (known !== undefined && known.text === text) return Effect.succeed(known.state)
      return Effect.tap(Compat.decodeEffect(StateJson)(text), (state) =>
        Effect.sync(() => {
          last.delete(sessionId)
          last.set(sessionId, { text, state })
          if (last.size > sessions) last.delete(last.keys().next().value!)
        }))
    })
}
