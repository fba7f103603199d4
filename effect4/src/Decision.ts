/**
 * What a rule decides about the nodes it selects, on Effect 4 (docs/effect4.md): the same
 * decisions as `context-compressor`'s `Decision`, declared on Effect 4's Schema.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import type * as Builders from "../../src/internal/reduce/Builders.js"
import * as RuleForms from "../../src/internal/reduce/RuleForms.js"

/**
 * Removes the node, over every other decision.
 *
 * @since 0.1.0
 * @category models
 */
export class Omit extends Schema.TaggedClass<Omit>()("Omit", {}) {}

/**
 * What replaces a verbatim node whose measured part passes `maxChars`.
 *
 * @since 0.1.0
 * @category models
 */
export class VerbatimLimit extends Schema.Class<VerbatimLimit>("VerbatimLimit")({
  measure: Schema.String,
  maxChars: Schema.Int.check(Schema.isGreaterThan(0)),
  recovery: Schema.String,
  idPath: Schema.String,
  idKey: Schema.String
}) {}

/**
 * Carries the node byte for byte, optionally only up to a limit.
 *
 * @since 0.1.0
 * @category models
 */
export class Verbatim extends Schema.TaggedClass<Verbatim>()("Verbatim", {
  limit: Schema.optionalKey(VerbatimLimit)
}) {}

/**
 * Protects the node and everything under it from pruning.
 *
 * @since 0.1.0
 * @category models
 */
export class Keep extends Schema.TaggedClass<Keep>()("Keep", {}) {}

/**
 * Caps an array at `max` entries, with a sibling `…Omitted` counter.
 *
 * @since 0.1.0
 * @category models
 */
export class Cap extends Schema.TaggedClass<Cap>()("Cap", {
  max: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
}) {}

/**
 * Clips a string to at most `max` characters, head and tail.
 *
 * @since 0.1.0
 * @category models
 */
export class Clip extends Schema.TaggedClass<Clip>()("Clip", {
  max: Schema.Int.check(Schema.isGreaterThanOrEqualTo(128))
}) {}

/**
 * Removes the node unless something keeps it.
 *
 * @since 0.1.0
 * @category models
 */
export class Prune extends Schema.TaggedClass<Prune>()("Prune", {}) {}

/**
 * Shrinks bulky strings that nothing keeps.
 *
 * @since 0.1.0
 * @category models
 */
export class Bulky extends Schema.TaggedClass<Bulky>()("Bulky", {
  maxChars: Schema.Int.check(Schema.isGreaterThanOrEqualTo(256)),
  elideBinary: Schema.Boolean
}) {}

/**
 * The schema of a decision.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Decision = Schema.Union([Omit, Verbatim, Keep, Cap, Clip, Prune, Bulky])

/**
 * @since 0.1.0
 * @category models
 */
export type Decision = typeof Decision.Type

/**
 * The constructors of this face's decisions, by tag, which the core's builders build with.
 *
 * @since 0.1.0
 * @category constructors
 */
export const kit: Builders.DecisionKit = {
  Omit: () => new Omit({}),
  // The core's verbatim limits here are this face's: built with this kit.
  Verbatim: (fields) => new Verbatim(fields as { readonly limit?: VerbatimLimit }),
  VerbatimLimit: (fields) => new VerbatimLimit(fields),
  Keep: () => new Keep({}),
  Cap: (fields) => new Cap(fields),
  Clip: (fields) => new Clip(fields),
  Prune: () => new Prune({}),
  Bulky: (fields) => new Bulky(fields)
}

/**
 * Formats a decision as a verb phrase: `cap at 20`, `clip to 300 characters`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format: (decision: Decision) => string = RuleForms.formatDecision
