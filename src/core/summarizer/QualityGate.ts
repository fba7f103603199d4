/**
 * The quality gate's checks, written once for both faces (SPEC R2.6): a
 * summary is refused when empty, under 400 characters, not opening with the
 * first section heading, or missing more than half of the eight general
 * sections. The verdict is the core's `Result`, a refusal plain data (its
 * reason, a sentence, the length, the sections lacking), which each face's
 * `QualityGate` turns into its `Either` or `Result` and `SummaryRefused`.
 *
 * @since 0.1.0
 */
import { agenticSections, firstHeading, generalSections } from "../block/SummaryInstruction.js"
import * as Result from "../Result.js"

/**
 * The shortest summary the gate accepts, in characters (after trimming).
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumChars = 400

/**
 * Why a summary was refused, in the order the checks run.
 *
 * @since 0.1.0
 * @category models
 */
export const refusalReasons = ["empty", "too-short", "wrong-opening", "missing-sections"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type RefusalReason = typeof refusalReasons[number]

/**
 * A refusal as plain data: the fields of each face's `SummaryRefused`, in its order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly reason: RefusalReason
  readonly detail: string
  readonly chars: number
  readonly missingSections: ReadonlyArray<string>
}

/**
 * Options of the gate: whether the request was the agentic variant (its
 * sections are never required; a refusal of an agentic summary also names
 * those it lacks).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly agentic: boolean
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

const headingPattern = (heading: string): RegExp =>
  new RegExp(`^[ \\t]*#{1,6}[ \\t]+\\**[ \\t]*${escapeRegExp(heading.replace(/^#+\s*/, ""))}(?![\\w])`, "im")

// The known sections' patterns, made once; a heading of one's own gets its pattern when asked.
const patterns: Readonly<Record<string, RegExp>> = Object.fromEntries(
  [...generalSections, ...agenticSections].map((heading) => [heading, headingPattern(heading)])
)

/**
 * Whether a summary has a section: a markdown heading line (any level, any
 * case, optionally bold) naming it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const hasSection = (summary: string, heading: string): boolean =>
  (Object.hasOwn(patterns, heading) ? patterns[heading]! : headingPattern(heading)).test(summary)

/**
 * The headings of `sections` a summary lacks, in their order.
 *
 * @since 0.1.0
 * @category getters
 */
export const missingSections = (
  summary: string,
  sections: ReadonlyArray<string> = generalSections
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
  return headingPattern(firstHeading).test(firstLine)
}

/**
 * The most general sections a summary may lack: more than half missing is refused.
 *
 * @since 0.1.0
 * @category constants
 */
export const maximumMissing = Math.floor(generalSections.length / 2)

/**
 * Checks a summary: `Ok` with the summary when it passes, `Err` with the
 * refusal. The checks run in order: empty, too short, wrong opening, missing
 * sections.
 *
 * @since 0.1.0
 * @category checking
 */
export const check = (summary: string, options: Options): Result.Result<string, Refusal> => {
  const trimmed = summary.trim()
  const chars = trimmed.length
  const missing = missingSections(trimmed)
  const refuse = (reason: RefusalReason, detail: string) =>
    Result.err<Refusal>({ reason, detail, chars, missingSections: missing })
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
      } instead of the heading ${firstHeading}`
    )
  }
  if (missing.length > maximumMissing) {
    const agenticMissing = options.agentic ? missingSections(trimmed, agenticSections) : []
    return refuse(
      "missing-sections",
      `the summary lacks ${missing.length} of the ${generalSections.length} sections (at most ${maximumMissing} may be missing): ${
        missing.join(", ")
      }${agenticMissing.length === 0 ? "" : `; of the agentic sections it also lacks ${agenticMissing.join(", ")}`}`
    )
  }
  return Result.ok(summary)
}
