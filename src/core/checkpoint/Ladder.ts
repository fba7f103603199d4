/**
 * The degradation ladder of a checkpoint (SPEC R2.13), the fit stage: which
 * view goes out, given the view or a compaction's plan and the budget. Under
 * the trigger, the view as it is, or with only the new messages too big for
 * any view cut; with nothing older to compact, the view degraded whole; after
 * a compaction, the summary's view if it fits, else a trim at later cuts, and
 * the rungs of `ViewFit` (tool results reduced, messages clipped, the block
 * clipped) on the view chosen. Pure: the outcome says what fits, or why
 * nothing does, and the checkpoint acts on it.
 *
 * @since 0.1.0
 */
import type * as BlockBuild from "../block/BlockBuild.js"
import * as Handles from "../block/Handles.js"
import type * as RuleData from "../reduce/RuleData.js"
import type { SettingsShape } from "../services/SettingsValues.js"
import * as Steps from "../Steps.js"
import type * as Transcript from "../transcript/TranscriptData.js"
import * as Budget from "./Budget.js"
import * as CompactionPlan from "./CompactionPlan.js"
import type * as Count from "./Count.js"
import * as TailCuts from "./TailCuts.js"
import * as ViewFit from "./ViewFit.js"
import * as ViewViolations from "./ViewViolations.js"

/**
 * What the ladder fits a view to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fit {
  /** What the messages may take (`Count.Counted.messagesTrigger`). */
  readonly trigger: number
  readonly replyReserve: number
  /** What the view may take: the trigger less the reply reserve. */
  readonly viewBudget: number
  /** The reply reserve of the settings, before a small window scaled it. */
  readonly settingsReplyReserve: number
  /** The tokens the reply has in the window with a view at the trigger (`Count.Counted.replyRoom`). */
  readonly replyRoom: number
  /** The cap tool results are reduced to on the ladder, in characters. */
  readonly capChars: number
  readonly policies: ReadonlyArray<RuleData.Policy>
  readonly firstUserMessage: Transcript.UserMessage | undefined
  readonly tokens: (message: Transcript.Message) => number
  /** The recall handle of a message the rungs reduce or clip, named in its marker (none without a readable archive). */
  readonly recall?: ((message: Transcript.Message) => string | undefined) | undefined
  /** What the rungs remember across the engine's checkpoints (`ViewFit.Memo`); none: copies are made anew. */
  readonly memo?: ViewFit.Memo | undefined
}

/**
 * The ladder's budget of a checkpoint from its count.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fitOf = (options: {
  readonly settings: SettingsShape
  readonly counted: Count.Counted
  readonly policies: ReadonlyArray<RuleData.Policy>
  readonly firstUserMessage: Transcript.UserMessage | undefined
  readonly tokens: (message: Transcript.Message) => number
  /** With a readable archive: the session and the transcript whose messages' handles the markers name. */
  readonly recall?: { readonly sessionId: string; readonly transcript: Transcript.Transcript } | undefined
  /** The engine's `ViewFit.Memo`. */
  readonly memo?: ViewFit.Memo | undefined
}): Fit => {
  const { counted, settings } = options
  return {
    trigger: counted.messagesTrigger,
    replyReserve: counted.replyReserve,
    viewBudget: counted.viewBudget,
    settingsReplyReserve: settings.replyReserveTokens,
    replyRoom: counted.replyRoom,
    capChars: Math.min(
      settings.envelopeCapChars,
      Budget.oversizedMessageTokens(counted.viewBudget) * Budget.charsPerTokenLow
    ),
    policies: options.policies,
    firstUserMessage: options.firstUserMessage,
    tokens: options.tokens,
    recall: options.recall === undefined
      ? undefined
      : Handles.byTranscript(options.recall.sessionId, options.recall.transcript),
    memo: options.memo
  }
}

/**
 * The ladder over a view: with `whole` false, only the messages too big for
 * any view; else all of it, down to `budget`. The first `frozen` messages
 * (already sent) are left as they are.
 *
 * @since 0.1.0
 * @category fitting
 */
export const degrade = (
  fit: Fit,
  candidate: Transcript.Transcript,
  archivePath: string | undefined,
  whole: boolean,
  budget = fit.viewBudget,
  frozen = 0
): ViewFit.Fitted => {
  const fitOptions = {
    frozen,
    budget,
    tokens: fit.tokens,
    policies: fit.policies,
    capChars: fit.capChars,
    memo: fit.memo,
    whereWhole: (message: Transcript.Message) => {
      const handle = fit.recall?.(message)
      return `the session's transcript (message ${message.id}${
        handle === undefined ? "" : `; recall handle ${handle}`
      })`
    },
    whereBlock: archivePath === undefined ? "the session's transcript" : `${archivePath} and the session's transcript`
  }
  const steady = ViewFit.fit(candidate, { ...fitOptions, oversized: Budget.oversizedMessageTokens(fit.viewBudget) })
  if (!whole || steady.tokens <= budget) return steady
  const rest = ViewFit.fit(steady.view, fitOptions)
  return { view: rest.view, tokens: rest.tokens, steps: [...steady.steps, ...rest.steps] }
}

/**
 * Hysteresis after a compaction: a view still over `targetAfter` (a newest
 * turn bigger than the verbatim tail, which no cut point divides) has the
 * messages after its block cut down to it by the ladder's rungs. The view is
 * given back as it was when that does not make it smaller or leaves it
 * invalid. The caller saves the cuts (`TailCuts`) so that a reload rebuilds
 * the same view.
 *
 * @since 0.1.0
 * @category fitting
 */
export const toTarget = (
  fit: Fit,
  degraded: ViewFit.Fitted,
  targetAfter: number,
  archivePath: string | undefined
): ViewFit.Fitted => {
  if (degraded.tokens <= targetAfter) return degraded
  const cut = degrade(fit, degraded.view, archivePath, true, targetAfter, TailCuts.tailStart(degraded.view))
  if (cut.tokens >= degraded.tokens || check(fit, cut.view, false).length > 0) return degraded
  return { view: cut.view, tokens: cut.tokens, steps: [...degraded.steps, ...cut.steps] }
}

/**
 * The violations of a view (`ViewViolations.check`), with `withFit` its fit to the
 * trigger and the reply reserve included.
 *
 * @since 0.1.0
 * @category fitting
 */
export const check = (
  fit: Fit,
  view: Transcript.Transcript,
  withFit: boolean
): ReadonlyArray<ViewViolations.Violation> =>
  ViewViolations.check(view, {
    firstUserMessage: fit.firstUserMessage,
    ...(withFit ? { fit: { trigger: fit.trigger, replyReserve: fit.replyReserve, tokens: fit.tokens } } : {})
  })

const overTrigger = (violations: ReadonlyArray<ViewViolations.Violation>): boolean =>
  violations.some((v) => v.kind === "over-trigger")

/**
 * One rung of the ladder a view took, as plain data (the face's
 * `Checkpoint.LadderStep` is made from it): the reply reserve scaled to a
 * small window, or a rung over the view (`ViewFit.Step`).
 *
 * @since 0.1.0
 * @category models
 */
export interface LadderStep {
  readonly step: "reply-reserve" | ViewFit.Step["step"]
  readonly messageIds: ReadonlyArray<string>
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly detail: string
}

/**
 * The rungs a view took as the report lists them: the reply reserve's, when a
 * small window scaled it, before the others (none when the view took none).
 *
 * @since 0.1.0
 * @category fitting
 */
export const ladderOf = (fit: Fit, steps: ReadonlyArray<ViewFit.Step>): ReadonlyArray<LadderStep> => {
  if (steps.length === 0) return []
  const reserve = fit.replyRoom < fit.settingsReplyReserve
    ? [
      {
        step: "reply-reserve",
        messageIds: [],
        tokensBefore: fit.settingsReplyReserve,
        tokensAfter: fit.replyRoom,
        detail:
          `the reply has ${fit.replyRoom} tokens in this window (${fit.replyReserve} reserved under the trigger, the rest above it) instead of ${fit.settingsReplyReserve}`
      } as const
    ]
    : []
  return [...reserve, ...steps]
}

/**
 * A view under the trigger: as it is under the target after a compaction.
 * Past it (the session heads for its next compaction), a new message too big
 * for any view is cut when it comes, never once it was sent: the prompt cache
 * holds, and the message does not force a compaction later.
 *
 * @since 0.1.0
 * @category fitting
 */
export const underTrigger = (
  fit: Fit,
  restored: { readonly view: Transcript.Transcript; readonly sent: number },
  options: {
    readonly counted: number
    readonly viewTokens: number
    readonly targetAfter: number
    readonly archivePath: string | undefined
  }
): { readonly fitted: ViewFit.Fitted; readonly violations: ReadonlyArray<ViewViolations.Violation> } => {
  const fitted: ViewFit.Fitted = options.viewTokens <= options.targetAfter
    ? { view: restored.view, tokens: options.counted, steps: [] }
    : degrade(fit, restored.view, options.archivePath, false, fit.viewBudget, restored.sent)
  return { fitted, violations: check(fit, fitted.view, false) }
}

/**
 * A view over the trigger with only its new messages too big for any view
 * cut: what goes out instead of a compaction when that brings it under the
 * trigger with no violation (were such messages not cut, every checkpoint
 * would compact). Messages already sent are left as they went.
 *
 * @since 0.1.0
 * @category fitting
 */
export const newMessagesCut = (
  fit: Fit,
  restored: { readonly view: Transcript.Transcript; readonly sent: number },
  options: {
    readonly settings: SettingsShape
    readonly counted: Count.Counted
    readonly archivePath: string | undefined
  }
): { readonly fitted: ViewFit.Fitted; readonly tokens: number } | undefined => {
  const { counted, viewTokens, trigger } = options.counted
  const fitted = degrade(fit, restored.view, options.archivePath, false, fit.viewBudget, restored.sent)
  const tokens = viewTokens - (counted - fitted.tokens)
  return fitted.steps.length > 0 && tokens + options.counted.replyReserve <= trigger &&
      check(fit, fitted.view, false).length === 0
    ? { fitted, tokens }
    : undefined
}

/**
 * What the ladder gives: a view that fits, or why none does.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome<A> =
  | { readonly _tag: "Fitted"; readonly fitted: A }
  /** Over the trigger with every message clipped as far as it goes (`smallest` tokens). */
  | { readonly _tag: "CannotFit"; readonly smallest: number; readonly detail: string }
  | { readonly _tag: "Invalid"; readonly violations: ReadonlyArray<ViewViolations.Violation> }

/**
 * A view with nothing older to compact: the new messages give way first, the
 * ones already sent only when that is not enough.
 *
 * @since 0.1.0
 * @category fitting
 */
export const withoutCompaction = (
  fit: Fit,
  restored: { readonly view: Transcript.Transcript; readonly sent: number },
  nothingOlder: string
): Outcome<ViewFit.Fitted> => {
  const { sent, view } = restored
  const onNew = sent > 0 ? degrade(fit, view, undefined, true, fit.viewBudget, sent) : undefined
  const degraded = onNew !== undefined && onNew.tokens <= fit.viewBudget ? onNew : degrade(fit, view, undefined, true)
  const violations = check(fit, degraded.view, true)
  if (overTrigger(violations)) {
    return { _tag: "CannotFit", smallest: degrade(fit, view, undefined, true, 0).tokens, detail: nothingOlder }
  }
  if (violations.length > 0) return { _tag: "Invalid", violations }
  return { _tag: "Fitted", fitted: degraded }
}

/**
 * A compaction to fit: its plan, the boundary it was planned at, and the
 * summary (none after a trim). Each block the plan builds carries its cut's
 * archive path, which the rungs' markers name.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compaction {
  readonly plan: CompactionPlan.Plan
  /** What the caller keeps of the plan's cuts: each cut's working state and archive path, found once. */
  readonly cuts: CompactionPlan.Cuts
  readonly boundary: number
  readonly summary: string | undefined
  /** Why the summariser gave no summary (a trim), if it gave none. */
  readonly trimReason: string | undefined
  /** The engine's count of the view before the compaction: a trim cuts at least a tenth of it. */
  readonly counted: number
  /** After a manual compaction the trigger is a goal: the view is given as small as the ladder made it. */
  readonly manual: boolean
}

/**
 * A compaction's view that fits: its cut, block and view, why the summary was
 * not used (if it was not), and the view after the rungs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fitted {
  readonly cut: number
  readonly built: BlockBuild.Built
  readonly fallbackReason: string | undefined
  readonly degraded: ViewFit.Fitted
}

/**
 * The fit stage of a compaction, as steps that pause once between choosing
 * the cut and the rungs: the summary's view if it fits; else the trim
 * fallback (no summary), moving the cut to later turn starts until the view
 * fits or none is left (a summary whose view has any violation is not used);
 * then the rest of the ladder, on the summary's view first (a tail too big is
 * no reason to lose the summary), then the trim's, then the latest cut.
 *
 * @since 0.1.0
 * @category fitting
 */
export function* fitSteps(compaction: Compaction, fit: Fit): Steps.Steps<Outcome<Fitted>> {
  const { boundary, plan, summary } = compaction
  const build = (
    cut: number,
    block: { readonly summary: string | undefined; readonly fallbackReason: string | undefined }
  ) => CompactionPlan.build(plan, compaction.cuts, cut, { ...block, archived: true })
  const verified = (view: Transcript.Transcript) => check(fit, degrade(fit, view, undefined, false).view, true)
  // A trim removes the oldest turns only (SPEC R2.7: "Trim oldest 10 %"), not the summary's whole span.
  const trimCut = compaction.trimReason !== undefined
    ? CompactionPlan.trimCut(plan, fit.tokens, compaction.counted, fit.viewBudget)
    : undefined
  let cut = summary === undefined && trimCut !== undefined ? trimCut : boundary
  let fallbackReason = compaction.trimReason
  let built = build(cut, { summary, fallbackReason })
  if (summary !== undefined && verified(built.view).length > 0) {
    fallbackReason = "the summary left the view over the trigger"
    built = build(cut, { summary: undefined, fallbackReason })
  }
  for (const later of plan.candidates.filter((start) => start > cut)) {
    if (!overTrigger(verified(built.view))) break
    cut = later
    fallbackReason ??= "the view did not fit the trigger"
    built = build(cut, { summary: undefined, fallbackReason })
  }
  yield
  let degraded = degrade(fit, built.view, built.archivePath, false)
  if (overTrigger(check(fit, degraded.view, true))) {
    const tries: Array<
      { readonly cut: number; readonly summary: string | undefined; readonly reason: string | undefined }
    > = [
      ...(summary === undefined ? [] : [{ cut: boundary, summary, reason: undefined }]),
      { cut, summary: undefined, reason: fallbackReason ?? "the view did not fit the trigger" },
      ...(plan.candidates.length > 0
        ? [{
          cut: plan.candidates[plan.candidates.length - 1]!,
          summary: undefined,
          reason: fallbackReason ?? "the view did not fit the trigger"
        }]
        : [])
    ]
    let smallest = Number.POSITIVE_INFINITY
    for (const attempt of tries) {
      const candidate = attempt.cut === cut && attempt.summary === undefined && fallbackReason !== undefined
        ? built
        : build(attempt.cut, { summary: attempt.summary, fallbackReason: attempt.reason })
      const whole = degrade(fit, candidate.view, candidate.archivePath, true)
      smallest = Math.min(smallest, degrade(fit, candidate.view, candidate.archivePath, true, 0).tokens)
      if (overTrigger(check(fit, whole.view, true))) continue
      cut = attempt.cut
      built = candidate
      fallbackReason = attempt.reason
      degraded = whole
      break
    }
    if (!compaction.manual && overTrigger(check(fit, degraded.view, true))) {
      return { _tag: "CannotFit", smallest, detail: "compacting the older span was not enough" }
    }
  }
  const violations = check(fit, degraded.view, true).filter((v) => !compaction.manual || v.kind !== "over-trigger")
  if (violations.length > 0) return { _tag: "Invalid", violations }
  return { _tag: "Fitted", fitted: { cut, built, fallbackReason, degraded } }
}

/**
 * The fitted compaction as it is saved, once its archive was written or not:
 * when the archive could not be written, the block of the cut is built again
 * without the archive's path and its view degraded again; then (but after a
 * manual compaction, which keeps its tail verbatim) the hysteresis cuts the
 * messages after the block to the target (`toTarget`). The last fitting of a
 * compaction: the save stage only saves what this gives.
 *
 * @since 0.1.0
 * @category fitting
 */
export const afterArchive = (
  compaction: Compaction,
  fit: Fit,
  fitted: Fitted,
  options: {
    /** Whether the archive holds what the cut moves out (none written without an archive: its path is none too). */
    readonly archived: boolean
    readonly targetAfter: number
  }
): Fitted => {
  let settled = fitted
  if (!options.archived) {
    const { cut, fallbackReason } = fitted
    const built = CompactionPlan.build(compaction.plan, compaction.cuts, cut, {
      summary: fallbackReason === undefined ? compaction.summary : undefined,
      fallbackReason,
      archived: false
    })
    settled = { ...settled, built, degraded: degrade(fit, built.view, undefined, true) }
  }
  // Hysteresis: past the target, the messages after the block are cut to it; the cuts are saved with the state,
  // so a reload rebuilds this view. A manual compaction keeps its tail verbatim.
  if (compaction.manual) return settled
  return { ...settled, degraded: toTarget(fit, settled.degraded, options.targetAfter, settled.built.archivePath) }
}

/**
 * The fit stage of a compaction at once (see {@link fitSteps}).
 *
 * @since 0.1.0
 * @category fitting
 */
export const fit = (compaction: Compaction, budget: Fit): Outcome<Fitted> => Steps.runSync(fitSteps(compaction, budget))
