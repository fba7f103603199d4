/**
 * An offline summariser that needs no model: extractive and deterministic, it
 * writes the eight general sections (and the agentic ones when the span holds
 * agentic-workspace/v1 envelopes) from the span's structure — the first
 * request, the assistant's stated decisions and intentions, the mechanically
 * extracted working state, failures, the user's messages, unfinished calls and
 * pending approvals with their exact resume calls. It is the command-line
 * program's default summariser and a realistic fake for tests: what it writes
 * passes the quality gate because it is complete, not because it is padded.
 * Its writing is the shared core's (`src/core/summarizer/`); this is the
 * Effect 3 face, which runs it in an Effect that pauses for the event loop.
 *
 * @since 0.1.0
 */
import * as Layer from "effect/Layer"
import * as internal from "../../core/summarizer/Offline.js"
import * as Cooperative from "../engine/internal/Cooperative.js"
import type * as Transcript from "../models/Transcript.js"
import * as Summarizer from "../services/Summarizer.js"

/**
 * Who the offline summariser is, as the summary cache key names it:
 * `{ kind: "offline", promptVersion }`, the version of its writing.
 *
 * @since 0.1.0
 * @category constants
 */
export const identity: Summarizer.Identity = internal.identity

/**
 * What a section says when the span has nothing for it.
 *
 * @since 0.1.0
 * @category constants
 */
export const none: typeof internal.none = internal.none

/**
 * How many decisions the summary lists (the newest); the rest are counted,
 * with the messages that hold them.
 *
 * @since 0.1.0
 * @category constants
 */
export const decisionLimit: typeof internal.decisionLimit = internal.decisionLimit

/**
 * The assistant's decisions: statements of a choice, a cause found or a plan
 * ("The issue is…", "I'll change X because…", "Plan:"), never exploration
 * narration ("Let me look at…"); the newest {@link decisionLimit}, each once,
 * and how many more there are in which messages.
 *
 * @since 0.1.0
 * @category summarising
 */
export const keyDecisions: (
  assistants: ReadonlyArray<{ readonly id: string; readonly content: string }>
) => { readonly shown: ReadonlyArray<string>; readonly more: number; readonly moreIn: ReadonlyArray<string> } =
  internal.keyDecisions

/**
 * The call to re-issue once the user accepts a staged approval: the resume
 * record's tool and arguments, byte for byte; past `Envelope.resumeLimitChars`
 * characters of arguments, the recovery route that lists it.
 *
 * @since 0.1.0
 * @category agentic
 */
export const resumeCall: (resume: unknown, approvalId: string) => string = internal.resumeCall

/**
 * Writes the summary of a span, extractively: the eight general sections in
 * order, then the agentic sections that have something to say when the span
 * holds agentic-workspace/v1 envelopes. Pure and deterministic; a section with
 * nothing to say says so.
 *
 * @since 0.1.0
 * @category summarising
 */
export const summarize: (span: Transcript.Transcript, instructions?: string) => string = internal.summarize

/**
 * {@link summarize} as steps that pause every few messages, for the layer to
 * let the event loop run while a long span is summarised.
 *
 * @since 0.1.0
 * @category summarising
 */
export const summarizeSteps: (span: Transcript.Transcript, instructions?: string) => Cooperative.Steps<string> =
  internal.summarizeSteps

/**
 * The offline summariser as a layer: each request is summarised from its span
 * by {@link summarize}; it never fails.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, SummarizerOffline, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Effect } from "effect"
 *
 * // Four rounds of failing test output: more than an 8,000-token window holds.
 * const call = (n: number) => new Transcript.ToolCall({ id: `c${n}`, name: "bash", arguments: "{}" })
 * const transcript = [1, 2, 3, 4].flatMap((n) => [
 *   new Transcript.UserMessage({ id: `u${n}`, content: `Round ${n}: run the parser tests.` }),
 *   new Transcript.AssistantMessage({ id: `a${n}`, content: "", toolCalls: [call(n)] }),
 *   new Transcript.ToolResult({ id: `r${n}`, toolCallId: `c${n}`, name: "bash", content: "FAIL\n".repeat(3000) })
 * ])
 *
 * // Summaries without a model (Testing's default): extractive, from the span's calls, results and messages.
 * const services = Testing.layer({ summarizer: SummarizerOffline.layer })
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   assert.strictEqual(view[0]?._tag, "Compacted")
 *   console.log(view[0]?.content)
 * })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(
  Summarizer.Summarizer,
  Summarizer.Summarizer.of({
    identity,
    // Pausing every 10 ms of work: a long span does not hold up the rest of the process.
    summarize: (request) => Cooperative.run(summarizeSteps(request.span, request.instructions), Cooperative.slice(10))
  })
)
