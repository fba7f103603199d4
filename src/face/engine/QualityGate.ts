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
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as internal from "../../core/summarizer/QualityGate.js"

/**
 * The shortest summary the gate accepts, in characters (after trimming).
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumChars: 400 = internal.minimumChars

/**
 * Why a summary was refused.
 *
 * @since 0.1.0
 * @category models
 */
export const RefusalReason = Compat.Literals(internal.refusalReasons)

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

/**
 * Whether a summary has a section: a markdown heading line (any level, any
 * case, optionally bold) naming it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasSection: (summary: string, heading: string) => boolean = internal.hasSection

/**
 * The headings of `sections` a summary lacks, in their order.
 *
 * @since 0.1.0
 * @category getters
 */
export const missingSections: (summary: string, sections?: ReadonlyArray<string>) => ReadonlyArray<string> =
  internal.missingSections

/**
 * Whether a summary opens with the first section heading (leading whitespace allowed).
 *
 * @since 0.1.0
 * @category predicates
 */
export const opensWithFirstHeading: (summary: string) => boolean = internal.opensWithFirstHeading

/**
 * The most general sections a summary may lack: more than half missing is refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const maximumMissing: number = internal.maximumMissing

/**
 * Checks a summary: `Right` with the summary when it passes, `Left` with the
 * refusal (on Effect 4, a `Result`: `Success` and `Failure`). The checks run
 * in order: empty, too short, wrong opening, missing sections.
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
export const check = (summary: string, options: Options): Compat.Result<string, SummaryRefused> => {
  const verdict = internal.check(summary, options)
  return verdict._tag === "Ok"
    ? Compat.Result.succeed(verdict.value)
    : Compat.Result.fail(new SummaryRefused(verdict.error))
}

/**
 * {@link check} as an Effect that fails with the refusal.
 *
 * @since 0.1.0
 * @category checking
 */
export const validate = (summary: string, options: Options): Effect.Effect<string, SummaryRefused> => {
  const verdict = internal.check(summary, options)
  return verdict._tag === "Ok" ? Effect.succeed(verdict.value) : Effect.fail(new SummaryRefused(verdict.error))
}
