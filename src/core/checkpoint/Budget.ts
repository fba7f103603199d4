/**
 * The budgets of compaction (SPEC R2.1, R2.2, R2.3) in the shared core: when
 * to compact, how much to keep verbatim, how much room the user's own words get
 * in the block, over the settings as plain values (`SettingsValues.SettingsShape`,
 * which both faces' `CompactionSettings` classes have). `Budget` is its face.
 *
 * @since 0.1.0
 */
import type { SettingsShape } from "../services/SettingsValues.js"

/**
 * The pinned first user message is capped at this many tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const pinnedMessageTokens = 4_000

/**
 * The trigger: min(pct × context window, cap), in tokens.
 *
 * @since 0.1.0
 * @category budgets
 */
export const trigger = (settings: SettingsShape, contextWindow: number): number =>
  Math.floor(Math.min((settings.triggerPct / 100) * contextWindow, settings.capTokens))

/**
 * The keep budget: how many tokens of the newest turns stay verbatim after a compaction.
 *
 * @since 0.1.0
 * @category budgets
 */
export const keepBudget = (settings: SettingsShape, triggerTokens: number): number =>
  Math.floor(triggerTokens * settings.keepFraction)

/**
 * The budget of the user's messages in the block: 8 % of the trigger, within
 * [2,000, 20,000] — a fraction, so lowering the trigger is not undone by the block.
 *
 * @example
 * ```ts
 * import { Budget } from "context-compressor"
 *
 * // 8 % of the trigger, within [2,000, 20,000] tokens.
 * assert.strictEqual(Budget.userMessageBudget(25_600), 2_048)
 * assert.strictEqual(Budget.userMessageBudget(10_000), 2_000)
 * assert.strictEqual(Budget.userMessageBudget(400_000), 20_000)
 * ```
 *
 * @since 0.1.0
 * @category budgets
 */
export const userMessageBudget = (triggerTokens: number): number =>
  Math.min(Math.max(Math.floor(triggerTokens * 0.08), 2_000), 20_000)

/**
 * The budget of the working state in the block: 8 % of the trigger, within
 * [2,000, 16,000]; its sections fill it most valuable first (pending calls and
 * ids, files, errors, where the work stands) and say what they left out.
 *
 * @since 0.1.0
 * @category budgets
 */
export const workingStateBudget = (triggerTokens: number): number =>
  Math.min(Math.max(Math.floor(triggerTokens * 0.08), 2_000), 16_000)

/**
 * Whether a view of `tokens` must be compacted: it leaves less than the reply
 * reserve under the trigger ({@link replyReserve}; with the context window
 * given, the reserve less what the window leaves above the trigger).
 *
 * @since 0.1.0
 * @category budgets
 */
export const needsCompaction = (
  tokens: number,
  triggerTokens: number,
  settings: SettingsShape,
  contextWindow?: number
): boolean => tokens + replyReserve(settings, triggerTokens, contextWindow) > triggerTokens

/**
 * The tokens left free for the reply under the trigger: the setting, but at
 * most a quarter of the trigger, so that a small window is not mostly reserve
 * (SPEC R2.13). With the context window given, the room the window leaves above
 * the trigger is already the reply's, and only the rest is reserved under the
 * trigger: none at the default trigger (80 % of the window leaves a fifth of it,
 * at least the reserve from 20,480 tokens up and at least a quarter of the
 * trigger below), some with a trigger of 95 %.
 *
 * With the defaults: a quarter of the trigger at 8k (1,600) and the 4,096
 * setting at 128k under the trigger alone; none with the window given, whose
 * fifth above the trigger is room enough; at `triggerPct` 95 and a 32k window,
 * 2,496 (the 4,096 setting less the 1,600 tokens above the trigger of 30,400).
 *
 * @since 0.1.0
 * @category budgets
 */
export const replyReserve = (settings: SettingsShape, triggerTokens: number, contextWindow?: number): number => {
  const reserve = Math.min(settings.replyReserveTokens, Math.floor(triggerTokens / 4))
  return contextWindow === undefined ? reserve : Math.max(reserve - Math.max(contextWindow - triggerTokens, 0), 0)
}

/**
 * The smallest context window whose view can hold `viewTokens` with the
 * reply reserve under the trigger; `undefined` when the cap setting keeps every
 * window's trigger below it. `reserveIn` says where the engine takes the reserve
 * (`Compactor.Options.levers.replyReserveIn`): "window" (the default) counts the room
 * the window leaves above the trigger toward it.
 *
 * @since 0.1.0
 * @category budgets
 */
export const smallestWindow = (
  settings: SettingsShape,
  viewTokens: number,
  reserveIn: "window" | "trigger" = "window"
): number | undefined => {
  if (settings.capTokens < viewTokens) return undefined
  const holds = (window: number): boolean => {
    const triggerTokens = trigger(settings, window)
    return triggerTokens - replyReserve(settings, triggerTokens, reserveIn === "window" ? window : undefined) >=
      viewTokens
  }
  // Past the cap the trigger stays and the window above it grows, so the reserve under it falls to none: some window holds.
  let low = Math.max(Math.ceil((Math.max(viewTokens, 0) * 100) / settings.triggerPct) - 1, 0)
  let high = Math.max(low + 1, 1)
  while (!holds(high)) {
    low = high
    high *= 2
    if (high > Number.MAX_SAFE_INTEGER / 2) return undefined
  }
  // Holding is monotone in the window: the trigger less the reserve never shrinks as the window grows.
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2)
    if (holds(middle)) high = middle
    else low = middle
  }
  return high
}

/**
 * The tokens one message may take in a view before it counts as oversized:
 * a quarter of what the view may hold. Such a message is reduced or clipped
 * before the engine decides whether to compact, so that it does not make every
 * checkpoint compact.
 *
 * @since 0.1.0
 * @category budgets
 */
export const oversizedMessageTokens = (viewBudget: number): number => Math.max(Math.floor(viewBudget / 4), 256)

/**
 * The characters the rendered span of a summariser request may take: the
 * trigger less the summary budget (at least a quarter of the trigger), at
 * three characters a token, a low ratio for code and JSON, so that the
 * request fits a window the size of the session's. A longer span shows its
 * newest messages; the working state still covers all of it.
 *
 * @since 0.1.0
 * @category budgets
 */
export const summaryInputChars = (settings: SettingsShape, triggerTokens: number): number =>
  Math.max(triggerTokens - settings.summaryMaxTokens, Math.floor(triggerTokens / 4)) * charsPerTokenLow

/**
 * Characters a token, taken low, where a character budget stands for a token one.
 *
 * @since 0.1.0
 * @category constants
 */
export const charsPerTokenLow = 3

/**
 * The least the target after a compaction is, in tokens. A block at its
 * floors (its frame and headings, the working state's and user messages'
 * least, the pinned first message's ~600 characters) takes up to about 450
 * tokens, and the newest turn stays whole when its messages are already
 * under the ladder's floors: below this no compaction could meet the target
 * (found by the hysteresis property at windows from 1,000 tokens). It
 * matters only where `targetAfterPct` of the trigger is smaller: windows
 * under 4,500 tokens at 20 %, under 1,800 at 50 %.
 *
 * @since 0.1.0
 * @category constants
 */
export const targetFloorTokens = 720

/**
 * The most the view may take right after a compaction (hysteresis):
 * `targetAfterPct` of the trigger (50 % by default), so that the next
 * compaction is several turns away instead of one; never less than
 * {@link targetFloorTokens}, nor more than the trigger less the reply reserve
 * (`reserveTokens`: by default {@link replyReserve} under the trigger alone;
 * a checkpoint gives the one of its window).
 *
 * @since 0.1.0
 * @category budgets
 */
export const targetAfter = (
  settings: SettingsShape,
  triggerTokens: number,
  reserveTokens: number = replyReserve(settings, triggerTokens)
): number =>
  Math.min(
    Math.max(Math.floor((triggerTokens * settings.targetAfterPct) / 100), targetFloorTokens),
    Math.max(triggerTokens - reserveTokens, 0)
  )

/**
 * The share of the target after a compaction that the compacted block may
 * take (the rest is the verbatim tail and the system messages).
 *
 * @since 0.1.0
 * @category constants
 */
export const blockShare = 0.6

/**
 * The block's budget: a fixed share of the target after a compaction, so the
 * block of compaction N+1 folds in N's instead of growing.
 *
 * @since 0.1.0
 * @category budgets
 */
export const blockBudget = (settings: SettingsShape, triggerTokens: number): number =>
  Math.floor(targetAfter(settings, triggerTokens) * blockShare)

/**
 * The block's budget split into its parts, in tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface BlockParts {
  /** The whole block, its headings and notes included. */
  readonly budget: number
  /** The pinned first user message. */
  readonly pinned: number
  /** The user's other messages. */
  readonly userMessages: number
  /** The working state and the facts the summary did not mention. */
  readonly workingState: number
  /** The summary. */
  readonly summary: number
}

/** The least the pinned first message shrinks to, in tokens. */
const pinnedFloorTokens = 160

/** Below this room a block's working state starts from 45 % of it instead of 32 % (8k windows and under). */
const smallBlockTokens = 2_000

/** The block's headings, notes and the sentence naming what it stands for, in tokens, taken high. */
const blockFrameTokens = 160

/**
 * How a block spends its room: `"reuse"` (the default) on what a
 * resumed agent reuses (the working state keeps more in a small block and
 * shrinks after the pinned first message, its files go on one line when short
 * of room, and it gives back what the summary and the handle list cannot);
 * `"summary"`, the older layout: the working state shrinks before the pinned
 * message and keeps 32 % of any block at most.
 *
 * @since 0.1.0
 * @category models
 */
export type BlockLayout = "reuse" | "summary"

/**
 * The parts of a block of `budget` tokens whose first user message takes
 * `firstMessageTokens`. Each starts from the seed's budget: the pinned first
 * message up to {@link pinnedMessageTokens}, the user's other messages
 * {@link userMessageBudget} (at most 32 % of the block), the working state
 * {@link workingStateBudget} (at most 32 % of the block, 45 % of a block
 * under 2,000 tokens: 8k windows and under), the summary at
 * least a fifth of the block and all that the others leave. Where the block
 * cannot hold them, they shrink in this order: the user's other messages (to
 * a twentieth of the block), the summary (to 8 %), the pinned first message
 * (clipped head and tail with a marker, to about 600 characters: its whole
 * text is one recall away), and the working state last (to a quarter: files
 * written, test commands, ids and the newest error are what a resumed agent
 * reuses). With `layout` "summary": 32 % for
 * the working state in any block, and it shrinks before the pinned message.
 *
 * @since 0.1.0
 * @category budgets
 */
export const blockParts = (
  budget: number,
  triggerTokens: number,
  firstMessageTokens: number,
  layout: BlockLayout = "reuse"
): BlockParts => {
  const reuse = layout === "reuse"
  const room = Math.max(budget - blockFrameTokens, 0)
  let pinned = Math.min(pinnedMessageTokens, Math.max(firstMessageTokens, 0))
  let userMessages = Math.min(userMessageBudget(triggerTokens), Math.floor(room * 0.32))
  // A small block's summary can say little; the working state is what a resumed agent reuses.
  let workingState = Math.min(
    workingStateBudget(triggerTokens),
    Math.floor(room * (reuse && room < smallBlockTokens ? 0.45 : 0.32))
  )
  let summary = Math.floor(room * 0.2)
  const over = () => pinned + userMessages + workingState + summary - room
  const shrink = (value: number, floor: number): number => Math.max(value - Math.max(over(), 0), Math.min(value, floor))
  userMessages = shrink(userMessages, Math.floor(room * 0.05))
  summary = shrink(summary, Math.floor(room * 0.08))
  // The pinned message keeps enough of its head for a reader (and ViewCheck) to know it: about 600 characters.
  // Its whole text is one recall away; the working state (files, commands, ids, errors) is what the agent reuses.
  if (!reuse) workingState = shrink(workingState, Math.floor(room * 0.25))
  pinned = Math.max(pinned - Math.max(over(), 0), Math.min(pinned, pinnedFloorTokens))
  if (reuse) workingState = shrink(workingState, Math.floor(room * 0.25))
  // What the others leave is the summary's.
  summary += Math.max(-over(), 0)
  return { budget, pinned, userMessages, workingState, summary }
}
