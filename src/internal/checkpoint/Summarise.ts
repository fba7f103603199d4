/**
 * The summarise stage of a checkpoint: the working state up to the cut
 * (extracted pausing, so building the block finds it made), the summariser
 * request for the span the cut moves out, and its outcome under the summary
 * policy (`SummaryOutcome`: the cache, the gate, the retries, the shared
 * in-flight summaries). The request is built by the builder the engine is
 * made with (`SummaryPrompt.buildWithTotals`), so this module needs no public
 * orchestration module at run time.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type { CompactionSettings } from "../../../services/Settings.js"
import type { SummaryRequest } from "../../../services/Summarizer.js"
import * as Budget from "../../Budget.js"
import type * as Policy from "../../Policy.js"
import type * as SummaryPrompt from "../../SummaryPrompt.js"
import * as Cooperative from "../Cooperative.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as CompactionPlan from "./CompactionPlan.js"
import * as SharedPrefix from "./SharedPrefix.js"
import type * as SummaryOutcome from "./SummaryOutcome.js"
import type * as ViewRepair from "./ViewRepair.js"

/**
 * What the stage is made with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The summary policy of the engine (`SummaryOutcome.make`). */
  readonly summarizeOnce: (request: SummaryRequest, sessionId: string) => Effect.Effect<SummaryOutcome.SummaryOutcome>
  /** The request builder, `SummaryPrompt.buildWithTotals`. */
  readonly buildRequest: typeof SummaryPrompt.buildWithTotals
  /** The shared-prefix request builder, `SummaryPrompt.buildSharedPrefix`. */
  readonly buildSharedPrefix: typeof SummaryPrompt.buildSharedPrefix
  /** The retention policies tool results are rendered with. */
  readonly policies: ReadonlyArray<Policy.Policy>
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
export interface Summarised {
  readonly request: SummaryRequest
  readonly ruleTotals: Record<string, number>
  readonly outcome: SummaryOutcome.SummaryOutcome
  readonly summary: string | undefined
}

/**
 * The summarise stage over a plan, at its boundary. It gives the event loop a
 * turn between its parts when `clock`'s slice is spent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options) =>
(
  plan: CompactionPlan.Plan,
  /** What the checkpoint keeps of the plan's cuts: the working state extracted here is kept there. */
  cuts: CompactionPlan.Cuts,
  boundary: number,
  request: {
    readonly sessionId: string
    readonly settings: CompactionSettings
    /** The session's model, when the settings pin no summariser model. */
    readonly model: string
    /** The checkpoint's trigger: it bounds the span the summariser is shown. */
    readonly trigger: number
    /** What a manual compaction asked the summary to focus on. */
    readonly instructions: string | undefined
    readonly clock: Cooperative.Slice
    /** The view as last sent, for a shared-prefix request (`summary_request`): the restored view, how much of it was sent, and the ids the repair renamed. */
    readonly sent: {
      readonly view: Transcript.Transcript
      readonly sent: number
      readonly transcriptLength: number
      readonly renamed: ViewRepair.Renamed | undefined
    }
  }
): Effect.Effect<Summarised> =>
  Effect.gen(function*() {
    const { clock, settings } = request
    const breathe = Effect.suspend(() => (clock.spent() ? clock.pause : Effect.void))
    yield* Cooperative.run(CompactionPlan.workingStateSteps(plan, cuts, boundary), clock)
    yield* breathe
    const promptOptions: SummaryPrompt.Options = {
      model: settings.summarizerModel ?? request.model,
      maxTokens: settings.summaryMaxTokens,
      policies: options.policies,
      envelopeCapChars: settings.envelopeCapChars,
      maxSpanChars: Budget.summaryInputChars(settings, request.trigger),
      instructions: request.instructions,
      systemPrompt: options.systemPrompt
    }
    // Shared prefix: the view as last sent, then the instruction (delimited when nothing was sent since the last compaction).
    const shared = settings.summaryRequest === "shared-prefix"
      ? SharedPrefix.of({ ...request.sent, cut: boundary })
      : undefined
    const { request: summaryRequest, ruleTotals } = shared === undefined
      ? options.buildRequest(CompactionPlan.spanAt(plan, boundary), promptOptions)
      : options.buildSharedPrefix(CompactionPlan.spanAt(plan, boundary), { ...promptOptions, ...shared })
    yield* breathe
    const outcome = yield* options.summarizeOnce(summaryRequest, request.sessionId)
    yield* breathe
    return {
      request: summaryRequest,
      ruleTotals,
      outcome,
      summary: outcome._tag === "Summary" ? outcome.text : undefined
    }
  })
