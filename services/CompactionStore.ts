/**
 * Where the compaction state of each session persists, so a reload rebuilds
 * the same outbound view (SPEC R2.9). The transcript itself is never stored
 * here nor modified: the state says only where the boundary is and what
 * stands for the span before it.
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Transcript from "../src/Transcript.js"

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
  pinnedIds: Schema.optionalWith(Schema.Array(Schema.String), { exact: true, default: () => [] }),
  /** Where the verbatim transcript of the compacted turns was written, if anywhere. */
  archivePath: Schema.optionalWith(Schema.String, { exact: true }),
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
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly load: (sessionId: string) => Effect.Effect<Option.Option<CompactionState>, StoreError>
  readonly save: (state: CompactionState) => Effect.Effect<void, StoreError>
}

/**
 * The compaction-state store.
 *
 * @since 0.1.0
 * @category tags
 */
export class CompactionStore extends Context.Tag("context-compressor/CompactionStore")<CompactionStore, Service>() {}
