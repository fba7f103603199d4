/**
 * Reduces one tool result: through the first policy that accepts it (the
 * envelope route), its overflow when the reduced envelope still passes the cap
 * (the overflow route), or head-and-tail clipping for anything no policy
 * accepts (the generic route). Total: every input gets an output and a report.
 * The work is in `core/reduce/Reduce.ts`; this module is its documented face.
 *
 * @since 0.1.0
 */
import * as internal from "../../core/reduce/Reduce.js"
import * as BuiltInRules from "../models/internal/BuiltInRules.js"
import type * as Json from "../models/Json.js"
import type * as Policy from "../models/Policy.js"
import type * as Report from "../models/Report.js"
import * as Rule from "../models/Rule.js"

/**
 * Removes every path the envelope lists in `retention.omit_when_summarizing`,
 * over every other rule, the staged approval included (SPEC R1.2, R1.11). The
 * list only grants omission: its paths are literal (no globs), resolve against
 * the envelope's own keys, and may not name the header or the retention block.
 * The built-in policy composes it first (`src/face/rules/Omissions.ts`).
 *
 * @since 0.1.0
 * @category rules
 */
export const omitDeclared: Rule.Rule = BuiltInRules.omissions.omitDeclared

/**
 * A value without the paths its envelope declares omitted ({@link omitDeclared}),
 * everything else as it is (the same object when nothing is omitted): what a
 * reader of raw tool results (the working state, the offline summariser, the
 * view's ladder) reads instead of the envelope, so a declared omission reaches
 * no output (SPEC R1.2).
 *
 * @since 0.1.0
 * @category reducing
 */
export const withoutDeclaredOmissions: <A>(value: A) => A = internal.withoutDeclaredOmissions

/**
 * The default cap, in characters of compact JSON: about 8,000 tokens, room for
 * every example envelope of the protocol to take the envelope route.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCap: 32_000 = internal.defaultCap

/**
 * The smallest cap accepted: below it the overflow list's own header would not fit.
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumCap: 1_000 = internal.minimumCap

/**
 * Options of a reduction.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The policies to try, in order; the first that accepts the input applies. */
  readonly policies: ReadonlyArray<Policy.Policy>
  /** The cap in characters (default {@link defaultCap}, at least {@link minimumCap}). */
  readonly cap?: number
  /** Depth limit of the interpreter (default 256). */
  readonly maxDepth?: number
}

/**
 * The outcome of a reduction: the output as JSON (`value`, absent when the
 * output is clipped text or plain text, and for a bare JSON `true`, `false`
 * or `null`), as text (`text`, what to send on), and the report.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reduction {
  readonly value: Json.Json | undefined
  readonly text: string
  readonly report: Report.Report
}

/**
 * The cap a reduction uses: the given one, at least {@link minimumCap}; the
 * default where none (or NaN) is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolveCap: (cap: number | undefined) => number = internal.resolveCap

/**
 * Reduces a tool result. A string is read as JSON text (text that is not JSON
 * takes the generic route); any other value is taken as parsed JSON. Never
 * throws: a failure inside the rules falls back to the generic route, with a
 * note saying so.
 *
 * @example
 * ```ts
 * import { Condition, Policy, Reduce, Rule } from "context-compressor"
 *
 * const ticketing = Policy.make({
 *   name: "ticketing/v2",
 *   description: "tool results of the ticketing/v2 protocol",
 *   accepts: Condition.equals("protocol", "ticketing/v2"),
 *   rule: Rule.prune("data.attachments", { name: "dropAttachments", reason: "re-fetched by ticket id" })
 * })
 * const result = { protocol: "ticketing/v2", data: { id: "T-1000", attachments: ["A".repeat(50_000)] } }
 * const reduction = Reduce.reduce(result, { policies: [ticketing] })
 * assert.strictEqual(reduction.report.policy, "ticketing/v2")
 * assert.ok(reduction.text.length < JSON.stringify(result).length)
 * ```
 *
 * @since 0.1.0
 * @category reducing
 */
export const reduce: (input: unknown, options: Options) => Reduction = internal.reduce
