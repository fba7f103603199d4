/**
 * What a reduction did, rule by rule, on Effect 4 (docs/effect4.md): the same `Report` as
 * `context-compressor`'s, declared on Effect 4's Schema.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as RuleData from "../../src/internal/reduce/RuleData.js"

/**
 * What a rule did to one path.
 *
 * @since 0.1.0
 * @category models
 */
export const Action = Schema.Literals([
  "kept",
  "verbatim",
  "replaced",
  "omitted",
  "pruned",
  "capped",
  "clipped",
  "elided",
  "refused",
  "depth-cut"
])

/**
 * @since 0.1.0
 * @category models
 */
export type Action = typeof Action.Type

/**
 * One decision on one path. `before`/`after` are sizes: characters for
 * strings and verbatim values, entries for arrays.
 *
 * @since 0.1.0
 * @category models
 */
export const Entry = Schema.Struct({
  action: Action,
  path: Schema.String,
  before: Schema.optional(Schema.Number),
  after: Schema.optional(Schema.Number),
  detail: Schema.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Entry = typeof Entry.Type

/**
 * Everything one rule decided. `entries` lists the first decisions in document
 * order; `entriesOmitted` counts the rest, `counts` counts all of them.
 *
 * @since 0.1.0
 * @category models
 */
export const RuleReport = Schema.Struct({
  rule: Schema.String,
  reason: Schema.String,
  counts: Schema.Record(Schema.String, Schema.Number),
  entries: Schema.Array(Entry),
  entriesOmitted: Schema.Number
})

/**
 * @since 0.1.0
 * @category models
 */
export type RuleReport = typeof RuleReport.Type

/**
 * Which way an input went: reduced as an envelope, replaced by the overflow
 * recovery list, or clipped by the generic path.
 *
 * @since 0.1.0
 * @category models
 */
export const Route = Schema.Literals(["envelope", "overflow", "generic"])

/**
 * @since 0.1.0
 * @category models
 */
export type Route = typeof Route.Type

/**
 * The report of one reduction.
 *
 * @since 0.1.0
 * @category models
 */
export const Report = Schema.Struct({
  route: Route,
  policy: Schema.NullOr(Schema.String),
  cap: Schema.Number,
  inputChars: Schema.Number,
  outputChars: Schema.Number,
  /** Characters of the values carried verbatim beyond the cap (a staged approval). */
  carriedChars: Schema.Number,
  rules: Schema.Array(RuleReport),
  notes: Schema.Array(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Report = typeof Report.Type

/**
 * How many decisions each rule lists in full.
 *
 * @since 0.1.0
 * @category constants
 */
export const entriesPerRule: number = RuleData.entriesPerRule

/**
 * Counts the decisions of a report by action, over all rules.
 *
 * @since 0.1.0
 * @category getters
 */
export const totals = (report: Report): Record<string, number> => {
  const totals: Record<string, number> = {}
  for (const rule of report.rules) {
    for (const [action, count] of Object.entries(rule.counts)) totals[action] = (totals[action] ?? 0) + count
  }
  return totals
}
