/**
 * What a rule decides about the nodes it selects. Decisions meet on a path in a
 * fixed order of precedence (SPEC R1.11): `Omit` wins over everything; a
 * `Verbatim` node is carried unchanged; a `Keep` protects a subtree from
 * pruning (arrays inside it are still capped); `Cap`, `Clip`, `Prune` and
 * `Bulky` apply to whatever is left.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as RuleForms from "../../core/reduce/RuleForms.js"

/**
 * Removes the node. A declared omission: wins over every other decision,
 * including a staged approval.
 *
 * @since 0.1.0
 * @category models
 */
export class Omit extends Schema.TaggedClass<Omit>()("Omit", {}) {}

/**
 * What replaces a verbatim node whose measured part passes `maxChars`: a marker
 * naming the recovery route and the id read at `idPath`.
 *
 * @since 0.1.0
 * @category models
 */
export class VerbatimLimit extends Schema.Class<VerbatimLimit>("VerbatimLimit")({
  /** Dotted path, relative to the node, of the part whose JSON length is measured. */
  measure: Schema.String,
  maxChars: Schema.Int.pipe(Compat.positive()),
  /** The call that recovers the replaced value, written into the marker. */
  recovery: Schema.String,
  /** Dotted path, from the envelope root, of the id written into the marker. */
  idPath: Schema.String,
  /** The key the id is written under in the marker. */
  idKey: Schema.String
}) {}

/**
 * Carries the node byte for byte: no key filtered, no string shortened, no
 * array capped. With a limit, a node whose measured part is longer is replaced
 * whole by a marker (a truncated call is not a call).
 *
 * @since 0.1.0
 * @category models
 */
export class Verbatim extends Schema.TaggedClass<Verbatim>()("Verbatim", {
  limit: Compat.optionalKey(VerbatimLimit)
}) {}

/**
 * Protects the node and everything under it from pruning; arrays inside are
 * still capped with their counter.
 *
 * @since 0.1.0
 * @category models
 */
export class Keep extends Schema.TaggedClass<Keep>()("Keep", {}) {}

/**
 * Caps an array at `max` entries and records how many were left out in a
 * sibling `…Omitted` counter.
 *
 * @since 0.1.0
 * @category models
 */
export class Cap extends Schema.TaggedClass<Cap>()("Cap", {
  max: Schema.Int.pipe(Compat.greaterThanOrEqualTo(1))
}) {}

/**
 * Clips a string to at most `max` characters, keeping its head and tail and
 * saying in the middle how much was cut.
 *
 * @since 0.1.0
 * @category models
 */
export class Clip extends Schema.TaggedClass<Clip>()("Clip", {
  max: Schema.Int.pipe(Compat.greaterThanOrEqualTo(128))
}) {}

/**
 * Removes the node unless something keeps it. Kept descendants survive: a
 * pruned object keeps the kept parts of its subtree (ids, truncation counters).
 *
 * @since 0.1.0
 * @category models
 */
export class Prune extends Schema.TaggedClass<Prune>()("Prune", {}) {}

/**
 * Shrinks bulky strings that nothing keeps: text past `maxChars` is clipped
 * head and tail; binary-looking text (base64, hex) is replaced by a note of its
 * size when `elideBinary` is set.
 *
 * @since 0.1.0
 * @category models
 */
export class Bulky extends Schema.TaggedClass<Bulky>()("Bulky", {
  maxChars: Schema.Int.pipe(Compat.greaterThanOrEqualTo(256)),
  elideBinary: Schema.Boolean
}) {}

/**
 * The schema of a decision.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Decision = Compat.Union([Omit, Verbatim, Keep, Cap, Clip, Prune, Bulky])

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = typeof Decision.Type

/**
 * Formats a decision as a verb phrase: `cap at 20`, `clip to 300 characters`.
 *
 * @example
 * ```ts
 * import { Decision } from "context-compressor"
 *
 * assert.strictEqual(Decision.format(new Decision.Omit()), "omit")
 * assert.strictEqual(Decision.format(new Decision.Keep()), "keep")
 * assert.match(Decision.format(new Decision.Cap({ max: 20 })), /20/)
 * ```
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (decision: Decision) => string = RuleForms.formatDecision
