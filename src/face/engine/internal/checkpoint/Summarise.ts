/**
 * The summarise stage of a checkpoint: the working state up to the cut
 * (extracted pausing, so building the block finds it made), the summariser
 * request for the span the cut moves out, and its outcome under the summary
 * policy (`SummaryOutcome`: the cache, the gate, the retries, the shared
 * in-flight summaries). The request is built by the builder the engine is
 * made with (`SummaryPrompt.buildWithTotals`), which makes the
 * `SummaryRequest`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Budget from "../../../../core/checkpoint/Budget.js"
import * as CompactionPlan from "../../../../core/checkpoint/CompactionPlan.js"
import * as SharedPrefix from "../../../../core/checkpoint/SharedPrefix.js"
import type * as ViewRepair from "../../../../core/checkpoint/ViewRepair.js"
import type { SettingsShape } from "../../../../core/services/SettingsValues.js"
import type * as Transcript from "../../../../core/transcript/TranscriptData.js"
import * as Cooperative from "../Cooperative.js"
import type * as SummaryOutcome from "./SummaryOutcome.js"

/**
 * The options of a summariser request, as `SummaryPrompt.Options` has them.
 *
 * @since 0.1.0
 * @category models
 */
export interface PromptOptions<Policy> {
  readonly model: string
  readonly maxTokens: number
  readonly policies: ReadonlyArray<Policy>
  readonly envelopeCapChars: number
  readonly maxSpanChars?: number
  readonly instructions?: string | undefined
  readonly systemPrompt?: string | undefined
}

/**
 * What the stage is made with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<Request, Policy> {
  /** The summary policy of the engine (`SummaryOutcome.make`). */
  readonly summarizeOnce: (request: Request, sessionId: string) => Effect.Effect<SummaryOutcome.SummaryOutcome>
  /** The request builder, `SummaryPrompt.buildWithTotals`. */
  readonly buildRequest: (
    span: Transcript.Transcript,
    options: PromptOptions<Policy>
  ) => { readonly request: Request; readonly ruleTotals: Record<string, number> }
  /** The shared-prefix request builder, `SummaryPrompt.buildSharedPrefix`. */
  readonly buildSharedPrefix: (
    span: Transcript.Transcript,
    options: PromptOptions<Policy> & SharedPrefix.SharedPrefix
  ) => { readonly request: Request; readonly ruleTotals: Record<string, number> }
  /** The retention policies tool results are rendered with. */
  readonly policies: ReadonlyArray<Policy>
  /** A system message for the summariser instead of the built-in instruction. */
  readonly systemPrompt: string | undefined
}

/**
 * What the stage gives: the request asked, what the retention rules did to
 * the span's tool results, the outcome, and the summary if there is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summarised<Request> {
  readonly request: Request
  readonly ruleTotals: Record<string, number>
  readonly outcome: SummaryOutcome.SummaryOutcome
  readonly summary: string | undefined
}

/**
 * What a checkpoint asks the stage.
 *
 * @since 0.1.0
 * @category models
 */
export interface Asked {
  readonly sessionId: string
  readonly settings: SettingsShape
  /** The session's model, when the settings pin no summariser model. */
  readonly model: string
  /** The checkpoint's trigger: it bounds the span the summariser is shown. */
  readonly trigger: number
  /** What a manual compaction asked the summary to focus on. */
  readonly instructions: string | undefined
  /** A manual compaction's summariser instruction, in place of the engine's (`systemPrompt`). */
  readonly summaryPrompt?: string | undefined
  readonly clock: Cooperative.Slice
  /** The view as last sent, for a shared-prefix request (`summary_request`): the restored view, how much of it was sent, and the ids the repair renamed. */
  readonly sent: {
    readonly view: Transcript.Transcript
    readonly sent: number
    readonly transcriptLength: number
    readonly renamed: ViewRepair.Renamed | undefined
  }
}

/**
 * The summarise stage over a plan, at its boundary. It gives the event loop a
 * turn between its parts when `clock`'s slice is spent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Request, Policy>(options: Options<Request, Policy>) =>
(
  plan: CompactionPlan.Plan,
  /** What the checkpoint keeps of the plan's cuts: the working state extracted here is kept there. */
  cuts: CompactionPlan.Cuts,
  boundary: number,
  request: Asked
): Effect.Effect<Summarised<Request>> =>
  Effect.gen(function*() {
    const { clock, settings } = request
    yield* Cooperative.run(CompactionPlan.workingStateSteps(plan, cuts, boundary), clock)
    yield* Cooperative.breathe(clock)
    const promptOptions: PromptOptions<Policy> = {
      model: settings.summarizerModel ?? request.model,
      maxTokens: settings.summaryMaxTokens,
      policies: options.policies,
      envelopeCapChars: settings.envelopeCapChars,
      maxSpanChars: Budget.summaryInputChars(settings, request.trigger),
      instructions: request.instructions,
      systemPrompt: request.summaryPrompt ?? options.systemPrompt
    }
    // Shared prefix: the view as last sent, then the instruction (delimited when nothing was sent since the last compaction).
    const shared = settings.summaryRequest === "shared-prefix"
      ? SharedPrefix.of({ ...request.sent, cut: boundary })
      : undefined
    const { request: summaryRequest, ruleTotals } = shared === undefined
      ? options.buildRequest(CompactionPlan.spanAt(plan, boundary), promptOptions)
      : options.buildSharedPrefix(CompactionPlan.spanAt(plan, boundary), { ...promptOptions, ...shared })
    yield* Cooperative.breathe(clock)
    const outcome = yield* options.summarizeOnce(summaryRequest, request.sessionId)
    yield* Cooperative.breathe(clock)
    return {
      request: summaryRequest,
      ruleTotals,
      outcome,
      summary: outcome._tag === "Summary" ? outcome.text : undefined
    }
  })
