/**
 * The quality gate a summary passes before it replaces a span (SPEC R2.6). The
 * seed's trial let a 61-character next-action sentence become an agent's whole
 * memory of 75 turns because "not empty" was the only test; the gate refuses
 * an empty summary, one under 400 characters, one that does not open with the
 * first section heading, and one missing more than half of the eight general
 * sections, each with a typed reason the failure policy acts on.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as SummaryPrompt from "./SummaryPrompt.js"

/**
 * The shortest summary the gate accepts, in characters (after trimming).
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumChars = 400

/**
 * Why a summary was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const RefusalReason = Schema.Literal("empty", "too-short", "wrong-opening", "missing-sections")

/**
 * @since 0.1.0
 * @category models
 */
export type RefusalReason = typeof RefusalReason.Type

/**
 * A summary the gate refused: the reason, a sentence saying what was wrong,
 * the summary's length, and the general sections it lacks.
 *
 * @since 0.1.0
 * @category errors
 */
export class SummaryRefused extends Schema.TaggedError<SummaryRefused>()("SummaryRefused", {
  reason: RefusalReason,
  detail: Schema.String,
  chars: Schema.Int,
  missingSections: Schema.Array(Schema.String)
}) {}

/**
 * Options of the gate.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Whether the request was the agentic variant. The agentic sections are
   * asked for only when the span has something for them, so they are never
   * required; a refusal of an agentic summary also names those it lacks.
   */
  readonly agentic: boolean
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const headingPattern = (heading: string): RegExp =>
  new RegExp(`^[ \\t]*#{1,6}[ \\t]+\\**[ \\t]*${escapeRegExp(heading.replace(/^#+\s*/, ""))}(?![\\w])`, "im")

const patterns = new Map<string, RegExp>(
  [...SummaryPrompt.generalSections, ...SummaryPrompt.agenticSections].map((
    heading
  ) => [heading, headingPattern(heading)])
)

/**
 * Whether a summary has a section: a markdown heading line (any level, any
 * case, optionally bold) naming it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasSection = (summary: string, heading: string): boolean =>
  (patterns.get(heading) ?? headingPattern(heading)).test(summary)

/**
 * The headings of `sections` a summary lacks, in their order.
 *
 * @since 0.1.0
 * @category getters
 */
export const missingSections = (
  summary: string,
  sections: ReadonlyArray<string> = SummaryPrompt.generalSections
): ReadonlyArray<string> => sections.filter((heading) => !hasSection(summary, heading))

/**
 * Whether a summary opens with the first section heading (leading whitespace allowed).
 *
 * @since 0.1.0
 * @category predicates
 */
export const opensWithFirstHeading = (summary: string): boolean => {
  const trimmed = summary.trimStart()
  const firstLine = trimmed.slice(0, trimmed.indexOf("\n") === -1 ? trimmed.length : trimmed.indexOf("\n"))
  return headingPattern(SummaryPrompt.firstHeading).test(firstLine)
}

/**
 * The most general sections a summary may lack: more than half missing is refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const maximumMissing = Math.floor(SummaryPrompt.generalSections.length / 2)

/**
 * Checks a summary: `Right` with the summary when it passes, `Left` with the
 * refusal. The checks run in order: empty, too short, wrong opening, missing
 * sections.
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { QualityGate } from "context-compressor"
 *
 * const refused = QualityGate.check("Done.", { agentic: false })
 * assert.ok(Either.isLeft(refused))
 * assert.strictEqual(refused.left.reason, "too-short")
 * ```
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (summary: string, options: Options): Either.Either<string, SummaryRefused> => {
  const trimmed = summary.trim()
  const chars = trimmed.length
  const missing = missingSections(trimmed)
  const refuse = (reason: RefusalReason, detail: string) =>
    Either.left(new SummaryRefused({ reason, detail, chars, missingSections: missing }))
  if (chars === 0) return refuse("empty", "the summary is empty")
  if (chars < minimumChars) {
    return refuse("too-short", `the summary has ${chars} characters, under the minimum of ${minimumChars}`)
  }
  if (!opensWithFirstHeading(trimmed)) {
    const firstLine = trimmed.split("\n", 1)[0]!
    return refuse(
      "wrong-opening",
      `the summary opens with ${
        JSON.stringify(firstLine.length > 80 ? firstLine.slice(0, 79) + "…" : firstLine)
      } instead of the heading ${SummaryPrompt.firstHeading}`
    )
  }
  if (missing.length > maximumMissing) {
    const agenticMissing = options.agentic ? missingSections(trimmed, SummaryPrompt.agenticSections) : []
    return refuse(
      "missing-sections",
      `the summary lacks ${missing.length} of the ${SummaryPrompt.generalSections.length} sections (at most ${maximumMissing} may be missing): ${
        missing.join(", ")
      }${agenticMissing.length === 0 ? "" : `; of the agentic sections it also lacks ${agenticMissing.join(", ")}`}`
    )
  }
  return Either.right(summary)
}

/**
 * {@link check} as an Effect that fails with the refusal.
 *
 * @since 0.1.0
 * @category checking
 */
export const validate = (summary: string, options: Options): Effect.Effect<string, SummaryRefused> =>
  Either.match(check(summary, options), { onLeft: Effect.fail, onRight: Effect.succeed })
