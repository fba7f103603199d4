/**
 * The summariser request for a span (SPEC R2.4): the instruction as the system
 * message; the span delimited, each message labelled with its role and id,
 * tool results reduced by the retention policies (SPEC R1) or clipped hard and
 * quoted as untrusted historical data with their provenance (SPEC R2.12); then
 * the instruction restated, in bold, ending on the exact first heading to
 * write. The seed's trial found that a summariser which read the session last
 * continued it ("Let me re-run the remaining checks.") instead of summarising
 * it; restating the instruction after the transcript fixed that.
 *
 * @since 0.1.0
 */
import * as internal from "../../core/summarizer/SummaryPrompt.js"
import type * as Policy from "../models/Policy.js"
import type * as Report from "../models/Report.js"
import type * as Transcript from "../models/Transcript.js"
import { SummaryRequest } from "../services/Summarizer.js"

/**
 * The sections a summary is written in, the instruction and its restatement
 * for a delimited request and for a shared-prefix one (headings such as
 * `primaryRequest`, `generalSections`, `agenticSections`, `firstHeading`;
 * `instruction`, `restatement`, `sharedPrefixInstruction`, …).
 *
 * @since 0.1.0
 */
export * from "../../core/block/SummaryInstruction.js"

/**
 * The namespace of the prompts: a short SHA-256 over both templates (the
 * instruction and its restatement, each in both variants, and the framing),
 * so a prompt change changes the summary cache key (SPEC R2.10).
 *
 * @since 0.1.0
 * @category prompts
 */
export const namespace: string = internal.namespace

/**
 * The namespace of requests built with a custom system prompt: {@link namespace}
 * folded with a SHA-256 of the prompt; without one, {@link namespace} itself.
 *
 * @since 0.1.0
 * @category prompts
 */
export const namespaceFor: (systemPrompt: string | undefined) => string = internal.namespaceFor

/**
 * The namespace of shared-prefix requests: {@link namespaceFor} folded with
 * the shared-prefix templates, so the two shapes never share a cached summary.
 *
 * @since 0.1.0
 * @category prompts
 */
export const sharedPrefixNamespaceFor: (systemPrompt: string | undefined) => string = internal.sharedPrefixNamespaceFor

/**
 * How many characters of a manual compaction's instructions a request carries.
 *
 * @since 0.1.0
 * @category constants
 */
export const instructionsMaxChars: 4_000 = internal.instructionsMaxChars

/**
 * A manual compaction's instructions as the request states them: trimmed and
 * bounded to {@link instructionsMaxChars}; blank ones are none.
 *
 * @since 0.1.0
 * @category prompts
 */
export const normalizeInstructions: (instructions: string | undefined) => string | undefined =
  internal.normalizeInstructions

/**
 * The paragraph a manual compaction's instructions add to the system message
 * and to the restatement: the user's focus, within the same sections.
 *
 * @since 0.1.0
 * @category prompts
 */
export const focus: (instructions: string) => string = internal.focus

/**
 * The tags of the span's framing: the transcript and each message in it.
 *
 * @since 0.1.0
 * @category delimiters
 */
export const framingTags: readonly ["transcript", "message", "tool_call"] = internal.framingTags

/**
 * Makes text safe to put inside the span: every opening or closing framing tag
 * it holds (`</transcript>`, `<message …>`, also with spaces, in any case, or
 * with a full-width `<`) loses its `<`, so nothing inside can close the
 * transcript or forge a message.
 *
 * @since 0.1.0
 * @category delimiters
 */
export const neutralize: (text: string) => string = internal.neutralize

/**
 * Options of a request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The model to summarise with. */
  readonly model: string
  /** The summary budget in tokens. */
  readonly maxTokens: number
  /** The retention policies tool results go through (SPEC R1). */
  readonly policies: ReadonlyArray<Policy.Policy>
  /** The cap, in characters, of a reduced envelope. */
  readonly envelopeCapChars: number
  /** The cap, in characters, of a tool result no policy accepts (default {@link defaultToolResultChars}). */
  readonly toolResultChars?: number
  /**
   * The most characters the rendered span may take (default: no bound). A
   * longer span shows its newest messages that fit, after the earlier summary
   * and the span's first user message, with a note of what was left out.
   */
  readonly maxSpanChars?: number
  /**
   * What the user asked this compaction to focus on (a manual compaction's
   * instructions, as `/compact <focus>`): added to the system message and
   * restated after the transcript, so they are part of the cache key.
   */
  readonly instructions?: string | undefined
  /**
   * A system message to send instead of {@link instruction}; the namespace of
   * the request is derived from it ({@link namespaceFor}), so a custom prompt
   * never reuses a summary cached for another (SPEC R2.10).
   */
  readonly systemPrompt?: string | undefined
}

/**
 * How much of a tool result that is not an envelope the prompt keeps: clipped
 * hard, head and tail.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultToolResultChars: 2_000 = internal.defaultToolResultChars

/**
 * How much of each kind of message the prompt keeps, in characters, head and tail.
 *
 * @since 0.1.0
 * @category constants
 */
export const messageChars: typeof internal.messageChars = internal.messageChars

/**
 * Whether the span holds an agentic-workspace/v1 envelope among its tool results.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isAgentic: (span: Transcript.Transcript) => boolean = internal.isAgentic

/**
 * The reduction of one tool result as the prompt shows it: the envelope's
 * protocol-aware reduction, or head-and-tail clipping for anything else.
 *
 * @since 0.1.0
 * @category rendering
 */
export const reduceToolResult: (
  content: string,
  options: Pick<Options, "policies" | "envelopeCapChars" | "toolResultChars">
) => { readonly text: string; readonly note: string; readonly report: Report.Report } = internal.reduceToolResult

/**
 * What the retention rules did to the tool results of a span, summed by
 * action (`kept`, `omitted`, `pruned`, …).
 *
 * @since 0.1.0
 * @category rendering
 */
export const ruleTotals: (
  span: Transcript.Transcript,
  options: Pick<Options, "policies" | "envelopeCapChars">
) => Record<string, number> = internal.ruleTotals

/**
 * The span as the prompt shows it, between {@link transcriptOpen} and
 * {@link transcriptClose}: each message in a `<message>` tag with its role and
 * id; tool calls with name and clipped arguments; tool results reduced or
 * clipped and labelled with their provenance; an earlier compacted block as
 * the earlier summary. Every text inside goes through {@link neutralize}.
 *
 * @since 0.1.0
 * @category rendering
 */
export const renderTranscript: (
  span: Transcript.Transcript,
  options: Pick<Options, "policies" | "envelopeCapChars" | "toolResultChars" | "maxSpanChars" | "instructions">,
  totals?: Record<string, number>
) => string = internal.renderTranscript

/**
 * The line that stands in the span for the messages left out to fit the
 * summariser's input budget.
 *
 * @since 0.1.0
 * @category rendering
 */
export const omissionNote: (left: ReadonlyArray<Transcript.Message>) => string = internal.omissionNote

/**
 * The prompt: an opening line, the delimited span, and the instruction
 * restated after it, ending on the line {@link firstHeading} and a newline;
 * the agentic variant when `agentic` says so (by default when
 * {@link isAgentic}).
 *
 * @since 0.1.0
 * @category rendering
 */
export const prompt: (
  span: Transcript.Transcript,
  options: Pick<Options, "policies" | "envelopeCapChars" | "toolResultChars" | "maxSpanChars" | "instructions">,
  agentic?: boolean,
  totals?: Record<string, number>
) => string = internal.prompt

/**
 * Builds the summariser request for a span: the agentic variant when any tool
 * result of the span is an agentic-workspace/v1 envelope.
 *
 * @example
 * ```ts
 * import { SummaryPrompt, Transcript } from "context-compressor"
 *
 * const span = [
 *   new Transcript.UserMessage({ id: "m1", content: "Fix the failing parser test." }),
 *   new Transcript.AssistantMessage({ id: "m2", content: "Fixed the off-by-one in parser.ts.", toolCalls: [] })
 * ]
 * const request = SummaryPrompt.build(span, { model: "gpt-4o-mini", maxTokens: 2_000, policies: [], envelopeCapChars: 8_000 })
 * assert.strictEqual(request.agentic, false)
 * assert.ok(request.prompt.includes("Fix the failing parser test."))
 * assert.ok(request.prompt.trimEnd().endsWith(SummaryPrompt.firstHeading))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const build = (span: Transcript.Transcript, options: Options): SummaryRequest =>
  buildWithTotals(span, options).request

/**
 * {@link build}, also returning what the retention rules did to the span's
 * tool results while rendering them (the totals of {@link ruleTotals}, without
 * reducing anything twice).
 *
 * @since 0.1.0
 * @category constructors
 */
export const buildWithTotals = (
  span: Transcript.Transcript,
  options: Options
): { readonly request: SummaryRequest; readonly ruleTotals: Record<string, number> } => {
  const { fields, ruleTotals } = internal.requestFields(span, options)
  return { request: new SummaryRequest(fields), ruleTotals }
}

/**
 * The last message of a shared-prefix request: the opening line, the
 * instruction (a custom system prompt in its place when one is given), which
 * messages to summarise, a manual compaction's focus, and the restatement
 * ending on the line {@link firstHeading} and a newline.
 *
 * @since 0.1.0
 * @category rendering
 */
export const sharedPrefixPrompt: (
  options: {
    readonly agentic: boolean
    readonly kept: number
    readonly instructions?: string | undefined
    readonly systemPrompt?: string | undefined
  }
) => string = internal.sharedPrefixPrompt

/**
 * The shared-prefix summariser request for a span (the `summary_request`
 * setting `"shared-prefix"`): `prefix` is the view exactly as it was last
 * sent to the provider, whose newest `kept` messages stay verbatim after the
 * compaction; the request is those messages and one user message after them
 * ({@link sharedPrefixPrompt}), so the provider's prompt cache serves its
 * head. `span` is what the summary stands for (what the offline summariser
 * reads); the retention rules' totals are those of rendering it.
 *
 * @example
 * ```ts
 * import { SummaryPrompt, Transcript } from "context-compressor"
 *
 * const sent = [
 *   new Transcript.UserMessage({ id: "m1", content: "Fix the failing parser test." }),
 *   new Transcript.AssistantMessage({ id: "m2", content: "Fixed the off-by-one in parser.ts.", toolCalls: [] }),
 *   new Transcript.UserMessage({ id: "m3", content: "Now the lexer." })
 * ]
 * const { request } = SummaryPrompt.buildSharedPrefix(sent.slice(0, 2), { prefix: sent, kept: 1, model: "gpt-4o-mini", maxTokens: 2_000, policies: [], envelopeCapChars: 8_000 })
 * assert.deepStrictEqual(request.prefix, sent)
 * assert.ok(request.prompt.trimEnd().endsWith(SummaryPrompt.firstHeading))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const buildSharedPrefix = (
  span: Transcript.Transcript,
  options: Options & { readonly prefix: Transcript.Transcript; readonly kept: number }
): { readonly request: SummaryRequest; readonly ruleTotals: Record<string, number> } => {
  const { fields, ruleTotals } = internal.sharedPrefixRequestFields(span, options)
  return { request: new SummaryRequest(fields), ruleTotals }
}

/**
 * A reply that starts with the first section's text rather than its heading
 * (the prompt ended on that heading, and some models continue after it) gets
 * the heading back. A reply that holds the heading anywhere, or opens with
 * another heading, is returned unchanged for the quality gate to judge.
 *
 * @since 0.1.0
 * @category rendering
 */
export const restoreOpening: (reply: string) => string = internal.restoreOpening
