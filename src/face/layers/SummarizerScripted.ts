/**
 * A scripted summariser for tests: it answers each request with the next step
 * of a script (a summary text or a `SummarizerError`) and records every request
 * it was given, so a test can drive the failure policy step by step and check
 * what the engine asked.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Summarizer from "../services/Summarizer.js"

/**
 * One step of a script: a summary to return, or an error to fail with.
 *
 * @since 0.1.0
 * @category models
 */
export type Step = string | Summarizer.SummarizerError

/**
 * What the summariser does once the script has run out: fail with reason
 * `"unavailable"` (the default), or repeat the last step forever.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly whenExhausted?: "fail" | "repeatLast"
}

/**
 * What a test can read back from the scripted summariser.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Every request the summariser was given, oldest first, failed calls included. */
  readonly requests: Effect.Effect<ReadonlyArray<Summarizer.SummaryRequest>>
  /** How many times `summarize` was called. */
  readonly calls: Effect.Effect<number>
}

/**
 * The inspection side of the scripted summariser.
 *
 * @since 0.1.0
 * @category tags
 */
export class ScriptedSummarizer extends Compat.Service<ScriptedSummarizer, Service>()(
  "context-compressor/layers/SummarizerScripted/ScriptedSummarizer"
) {}

const exhausted = (steps: number): Summarizer.SummarizerError =>
  new Summarizer.SummarizerError({
    reason: "unavailable",
    message: `the scripted summariser ran out of steps after ${steps}`
  })

/**
 * Who the scripted summariser is, as the summary cache key names it.
 *
 * @since 0.1.0
 * @category constants
 */
export const identity: Summarizer.Identity = { kind: "scripted" }

/**
 * Builds a scripted summariser and its inspection service over fresh state,
 * as one context to provide.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  script: ReadonlyArray<Step>,
  options?: Options
): Effect.Effect<Context.Context<Summarizer.Summarizer | ScriptedSummarizer>> =>
  Effect.gen(function*() {
    const recorded = yield* Ref.make<ReadonlyArray<Summarizer.SummaryRequest>>([])
    const repeatLast = options?.whenExhausted === "repeatLast"
    const stepAt = (index: number): Step =>
      script[index] ?? (repeatLast ? script[script.length - 1] : undefined) ?? exhausted(script.length)
    const summarizer = Summarizer.Summarizer.of({
      identity,
      summarize: (request) =>
        Ref.modify(recorded, (requests) => [stepAt(requests.length), [...requests, request]]).pipe(
          Effect.flatMap((step) => (typeof step === "string" ? Effect.succeed(step) : Effect.fail(step)))
        )
    })
    const inspection: Service = {
      requests: Ref.get(recorded),
      calls: Effect.map(Ref.get(recorded), (requests) => requests.length)
    }
    return Context.make(Summarizer.Summarizer, summarizer).pipe(Context.add(ScriptedSummarizer, inspection))
  })

/**
 * Provides a `Summarizer` that follows `script` and the `ScriptedSummarizer`
 * that reads back what it was asked.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Production, SummarizerScripted, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 * import { Summarizer } from "context-compressor/services"
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
 * // The failure policy step by step: two timeouts, then the unattended engine trims without a summary.
 * const timeout = new Summarizer.SummarizerError({ reason: "timeout", message: "no reply in 60 s" })
 * const program = Effect.gen(function*() {
 *   const compactor = yield* Compactor.Compactor
 *   const { view } = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 8_000 })
 *   const scripted = yield* SummarizerScripted.ScriptedSummarizer
 *   assert.strictEqual(yield* scripted.calls, 2)
 *   assert.strictEqual(view[0]?._tag, "Compacted")
 * })
 * const services = Testing.layer({ summarizer: SummarizerScripted.layer([timeout, timeout]) })
 * const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * await Effect.runPromise(program.pipe(Effect.provide(engine)))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  script: ReadonlyArray<Step>,
  options?: Options
): Layer.Layer<Summarizer.Summarizer | ScriptedSummarizer> => Layer.effectContext(make(script, options))

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { SummarizerScripted } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `SummarizerScripted.layer`.
 * assert.strictEqual(SummarizerScripted.layerTest, SummarizerScripted.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `SummarizerScripted.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerTest: typeof layer = layer
