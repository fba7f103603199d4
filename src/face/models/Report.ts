/**
 * What a reduction did, rule by rule: which paths each rule kept, dropped,
 * capped or clipped, and why. Serialisable (a `Schema`), so it can be written
 * next to the output (`reduce --report`) or sent to a UI.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as RuleData from "../../core/reduce/RuleData.js"

/**
 * What a rule did to one path.
 *
 * @since 0.1.0
 * @category models
 */
export const Action = Compat.Literals([
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
  counts: Compat.Record(Schema.String, Schema.Number),
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
export const Route = Compat.Literals(["envelope", "overflow", "generic"])

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
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Report, Rule } from "context-compressor"
 *
 * const tickets = Policy.make({
 *   name: "tickets/v1",
 *   description: "tool results of the tickets/v1 protocol",
 *   accepts: Condition.equals("protocol", "tickets/v1"),
 *   rule: Rule.prune("data.attachments", { name: "dropAttachments", reason: "re-fetched by ticket id" })
 * })
 * const { report } = Reduce.reduce({ protocol: "tickets/v1", data: { id: "T-1", attachments: ["a", "b"] } }, { policies: [tickets] })
 * assert.strictEqual(report.route, "envelope")
 * assert.strictEqual(Report.totals(report)["pruned"], 1)
 * ```
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
