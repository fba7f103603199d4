/**
 * The budgets of compaction (SPEC R2.1, R2.2, R2.3): when to compact, how much
 * to keep verbatim, how much room the user's own words get in the block.
 *
 * @since 0.1.0
 */
import * as internal from "../../core/checkpoint/Budget.js"
import type { CompactionSettings } from "../services/Settings.js"

/**
 * The pinned first user message is capped at this many tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const pinnedMessageTokens: number = internal.pinnedMessageTokens

/**
 * The trigger: min(pct × context window, cap), in tokens.
 *
 * @since 0.1.0
 * @category budgets
 */
export const trigger: (settings: CompactionSettings, contextWindow: number) => number = internal.trigger

/**
 * The keep budget: how many tokens of the newest turns stay verbatim after a compaction.
 *
 * @since 0.1.0
 * @category budgets
 */
export const keepBudget: (settings: CompactionSettings, triggerTokens: number) => number = internal.keepBudget

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
export const userMessageBudget: typeof internal.userMessageBudget = internal.userMessageBudget

/**
 * The budget of the working state in the block: 8 % of the trigger, within
 * [2,000, 16,000]; its sections fill it most valuable first (pending calls and
 * ids, files, errors, where the work stands) and say what they left out.
 *
 * @since 0.1.0
 * @category budgets
 */
export const workingStateBudget: typeof internal.workingStateBudget = internal.workingStateBudget

/**
 * Whether a view of `tokens` must be compacted: it leaves less than the reply
 * reserve under the trigger ({@link replyReserve}; with the context window
 * given, the reserve less what the window leaves above the trigger).
 *
 * @since 0.1.0
 * @category budgets
 */
export const needsCompaction: (
  tokens: number,
  triggerTokens: number,
  settings: CompactionSettings,
  contextWindow?: number
) => boolean = internal.needsCompaction

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
export const replyReserve: (settings: CompactionSettings, triggerTokens: number, contextWindow?: number) => number =
  internal.replyReserve

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
export const smallestWindow: (
  settings: CompactionSettings,
  viewTokens: number,
  reserveIn?: "window" | "trigger"
) => number | undefined = internal.smallestWindow

/**
 * The tokens one message may take in a view before it counts as oversized:
 * a quarter of what the view may hold. Such a message is reduced or clipped
 * before the engine decides whether to compact, so that it does not make every
 * checkpoint compact.
 *
 * @since 0.1.0
 * @category budgets
 */
export const oversizedMessageTokens: typeof internal.oversizedMessageTokens = internal.oversizedMessageTokens

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
export const summaryInputChars: (settings: CompactionSettings, triggerTokens: number) => number =
  internal.summaryInputChars

/**
 * Characters a token, taken low, where a character budget stands for a token one.
 *
 * @since 0.1.0
 * @category constants
 */
export const charsPerTokenLow: number = internal.charsPerTokenLow

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
export const targetFloorTokens: number = internal.targetFloorTokens

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
export const targetAfter: (settings: CompactionSettings, triggerTokens: number, reserveTokens?: number) => number =
  internal.targetAfter

/**
 * The share of the target after a compaction that the compacted block may
 * take (the rest is the verbatim tail and the system messages).
 *
 * @since 0.1.0
 * @category constants
 */
export const blockShare: number = internal.blockShare

/**
 * The block's budget: a fixed share of the target after a compaction, so the
 * block of compaction N+1 folds in N's instead of growing.
 *
 * @since 0.1.0
 * @category budgets
 */
export const blockBudget: (settings: CompactionSettings, triggerTokens: number) => number = internal.blockBudget

/**
 * The block's budget split into its parts, in tokens.
 *
 * @since 0.1.0
 * @category models
 */
export type BlockParts = internal.BlockParts

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
export type BlockLayout = internal.BlockLayout

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
export const blockParts: typeof internal.blockParts = internal.blockParts
