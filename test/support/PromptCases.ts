/**
 * What both faces' summary prompts and quality gates are compared on (`Effect3Prompts.ts`,
 * `test-effect4/test/prompt.test.ts`): requests for several spans of a history, delimited and in
 * the shared-prefix shape, with and without instructions, a custom system prompt, a span budget
 * and small caps, so the tool results take the envelope, overflow and generic routes; and
 * summaries the gate accepts or refuses for each of its reasons. Plain data only, so it loads on
 * either Effect.
 */
import { firstHeading, generalSections } from "../../src/core/block/SummaryInstruction.js"

/** A request to build: messages `start` to `end` of the history (after `earlier` when given), and its options. */
export interface PromptCase {
  readonly name: string
  readonly start: number
  readonly end: number
  readonly earlier?: {
    readonly id: string
    readonly content: string
    readonly firstReplacedId: string
    readonly lastReplacedId: string
  }
  readonly options: {
    readonly model: string
    readonly maxTokens: number
    readonly envelopeCapChars: number
    readonly toolResultChars?: number
    readonly maxSpanChars?: number
    readonly instructions?: string
    readonly systemPrompt?: string
  }
  /** The shared-prefix shape: the view sent is messages `start` to `prefixEnd`, its newest `kept` stay. */
  readonly sharedPrefix?: { readonly prefixEnd: number; readonly kept: number }
}

const options = { model: "summary-model", maxTokens: 2_500, envelopeCapChars: 8_000 } as const

/** The requests built for a history of `length` messages. */
export const promptCases = (length: number): ReadonlyArray<PromptCase> => {
  const third = Math.floor(length / 3)
  const half = Math.floor(length / 2)
  return [
    { name: "whole", start: 0, end: length, options },
    { name: "first third", start: 0, end: third, options },
    {
      name: "middle third, small caps and a span budget",
      start: third,
      end: 2 * third,
      options: { ...options, maxTokens: 1_200.7, envelopeCapChars: 1_000, toolResultChars: 300, maxSpanChars: 12_000 }
    },
    {
      name: "second half, with instructions",
      start: half,
      end: length,
      options: { ...options, instructions: "  Focus on the failing tests and the </transcript> files changed.  " }
    },
    {
      name: "last third, a custom system prompt",
      start: 2 * third,
      end: length,
      options: { ...options, systemPrompt: "You write terse summaries of coding sessions." }
    },
    {
      name: "second half, after a compacted block",
      start: half,
      end: length,
      earlier: {
        id: "block-1",
        content: `${firstHeading}\nFix the failing parser tests.\n\n## Key decisions\n- The tokenizer's lookahead.`,
        firstReplacedId: "m0",
        lastReplacedId: "m1"
      },
      options
    },
    {
      name: "shared prefix, the first two thirds, with instructions",
      start: 0,
      end: 2 * third,
      options: { ...options, instructions: "Keep every command." },
      sharedPrefix: { prefixEnd: length, kept: length - 2 * third }
    },
    {
      name: "shared prefix, the whole view, a custom system prompt",
      start: 0,
      end: length,
      options: { ...options, systemPrompt: "You write terse summaries." },
      sharedPrefix: { prefixEnd: length, kept: 0 }
    }
  ]
}

const body = (heading: string) =>
  `${heading}\nThe work of this section, with paths such as src/parser.ts and the command npm test -- parser.`

/** The summaries the gate judges, each with whether the request was agentic, and the reply `restoreOpening` gets. */
export const gateCases: ReadonlyArray<{ readonly name: string; readonly summary: string; readonly agentic: boolean }> =
  [
    { name: "good", summary: generalSections.map(body).join("\n\n"), agentic: false },
    {
      name: "good, bold and deeper headings",
      summary: generalSections.map((h) => body(h.replace("## ", "### **"))).join("\n\n"),
      agentic: true
    },
    { name: "empty", summary: " \n\t ", agentic: false },
    { name: "too short", summary: `${firstHeading}\nFix the parser.`, agentic: false },
    {
      name: "wrong opening",
      summary: `Here is the summary of the span you asked for.\n${generalSections.map(body).join("\n\n")}`,
      agentic: false
    },
    {
      name: "missing sections",
      summary: [generalSections[0], generalSections[7]].map(body).join("\n\n").repeat(3),
      agentic: false
    },
    {
      name: "missing sections, agentic",
      summary: generalSections.slice(0, 3).map(body).join("\n\n").repeat(2),
      agentic: true
    },
    {
      name: "half the sections",
      summary: generalSections.slice(0, 4).map(body).join("\n\n").repeat(2),
      agentic: false
    },
    {
      name: "no heading, restored",
      summary: `The user asked to fix the parser. ${generalSections.slice(1).map(body).join("\n\n")}`,
      agentic: false
    }
  ]

type Encoded = null | boolean | number | string | ReadonlyArray<Encoded> | { readonly [key: string]: Encoded }

/**
 * An encoded value as JSON text with every object's keys sorted: the two faces' Schemas encode a
 * tagged class's `_tag` in different places (last on Effect 3, first on Effect 4), which is their
 * libraries' doing and no part of the request; every string, number and array stays as it is.
 */
export const canonicalJson = (value: unknown): string => {
  const sorted = (v: Encoded): Encoded =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === "object"
      ? Object.fromEntries(Object.keys(v).sort().map((key) => [key, sorted((v as Record<string, Encoded>)[key]!)]))
      : v
  return JSON.stringify(sorted(value as Encoded))
}
