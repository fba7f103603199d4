/**
 * An offline summariser that needs no model: extractive and deterministic, it
 * writes the eight general sections (and the agentic ones when the span holds
 * agentic-workspace/v1 envelopes) from the span's structure — the first
 * request, the assistant's stated decisions and intentions, the mechanically
 * extracted working state, failures, the user's messages, unfinished calls and
 * pending approvals with their exact resume calls. The default summariser of
 * `Testing.layer` and the production layers, and a realistic fake for tests.
 * Effect 4 face of `layers/SummarizerOffline`: the writing is the shared
 * core's (`src/internal/summarizer/`), so both faces give the same text for
 * the same span.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Steps from "../../src/internal/Steps.js"
import * as internal from "../../src/internal/summarizer/Offline.js"
import * as Summarizer from "../services/Summarizer.js"
import type * as Transcript from "../src/Transcript.js"

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
export const summarizeSteps: (span: Transcript.Transcript, instructions?: string) => Steps.Steps<string> =
  internal.summarizeSteps

/**
 * Runs steps in an Effect, yielding (`Effect.yieldNow`, which on Effect 4's
 * default scheduler gives the event loop a turn, and under `runSync` lets the
 * run's other fibers go) once `sliceMs` of work have passed since the last
 * pause.
 */
const runSliced = <A>(steps: Steps.Steps<A>, sliceMs: number): Effect.Effect<A> =>
  Effect.suspend(() => {
    let began = performance.now()
    const go = (): Effect.Effect<A> => {
      for (;;) {
        const next = steps.next()
        if (next.done === true) return Effect.succeed(next.value)
        if (performance.now() - began >= sliceMs) {
          return Effect.flatMap(Effect.yieldNow, () => {
            began = performance.now()
            return go()
          })
        }
      }
    }
    return go()
  })

/**
 * The offline summariser as a layer: each request is summarised from its span
 * by {@link summarize}, pausing every 10 ms of work so a long span does not
 * hold up the rest of the process; it never fails.
 *
 * @example
 * ```ts
 * import { Effect } from "effect"
 * import { Transcript } from "context-compressor/effect4"
 * import { SummarizerOffline } from "context-compressor/effect4/layers"
 * import { Summarizer } from "context-compressor/effect4/services"
 *
 * const span = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
 * const program = Effect.gen(function*() {
 *   const summarizer = yield* Summarizer.Summarizer
 *   const request = new Summarizer.SummaryRequest({
 *     model: "gpt-5", system: "", prompt: "", maxTokens: 1_000, agentic: false, namespace: "n", span
 *   })
 *   return yield* summarizer.summarize(request)
 * })
 * const summary = await Effect.runPromise(program.pipe(Effect.provide(SummarizerOffline.layer)))
 * assert.strictEqual(summary, SummarizerOffline.summarize(span))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(
  Summarizer.Summarizer,
  Summarizer.make({
    identity,
    summarize: (request) => runSliced(summarizeSteps(request.span, request.instructions), 10)
  })
)
