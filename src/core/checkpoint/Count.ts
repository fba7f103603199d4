/**
 * The count stage of a checkpoint: the view's tokens, counted once per
 * message (cached by object, then by id and text), and the budget they
 * give — the trigger, the reply reserve and the fixed overhead of the request,
 * scaled by the provider's count after an overflow (SPEC R2.1, R2.13).
 *
 * @since 0.1.0
 */
import type { SettingsShape } from "../services/SettingsValues.js"
import * as Steps from "../Steps.js"
import * as Transcript from "../transcript/TranscriptData.js"
import * as Budget from "./Budget.js"
import * as ViewFit from "./ViewFit.js"

/**
 * What entered a checkpoint: the trigger, a context-overflow error of the
 * main model, or a request to compact now.
 *
 * @since 0.1.0
 * @category models
 */
export type Cause = "trigger" | "overflow" | "manual"

/**
 * What the count reads of a checkpoint's input (the faces' `Input`): the
 * context window, the provider's reported count and the overflow's limits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly contextWindow: number
  readonly reportedContextTokens?: number | undefined
  /** Which compaction was in force in the view the report is of (`Checkpoint.CheckpointInput`). */
  readonly reportedCompactions?: number | undefined
  readonly overflow?: { readonly limit?: number | undefined; readonly promptTokens?: number | undefined } | undefined
}

/**
 * A message's token count by id, with the text it was counted for: a message
 * of that id is taken at that count only with that very text (compared whole,
 * never by its length), and the text kept is the one last seen, which the
 * session's last view holds already.
 *
 * @since 0.1.0
 * @category models
 */
export interface TokenCount {
  readonly text: string
  readonly tokens: number
}

/**
 * Per-message token overhead of the chat format (role, separators).
 *
 * @since 0.1.0
 * @category constants
 */
export const messageOverhead = 4

/**
 * The engine's token counts of messages.
 *
 * @since 0.1.0
 * @category models
 */
export interface Counter {
  /**
   * A checkpoint's count of a message: cached by object, then by id and text
   * in the session's counts (`known`) and the ones this checkpoint made
   * (`fresh`, which the session takes at the end of the checkpoint).
   */
  readonly of: (known: ReadonlyMap<string, TokenCount>) => Counting
  /** The count of a message outside any session, cached by object. */
  readonly plain: (message: Transcript.Message) => number
}

/**
 * A checkpoint's counting: the count of a message, and the counts by id it
 * made that the session did not know.
 *
 * @since 0.1.0
 * @category models
 */
export interface Counting {
  readonly tokens: (message: Transcript.Message) => number
  readonly fresh: ReadonlyMap<string, TokenCount>
}

/**
 * How many of the last texts counted a counter remembers by their text, whatever message they were of
 * ({@link counter}), and how many characters of them at most.
 *
 * @since 0.1.0
 * @category counting
 */
export const recentTexts = 64
const recentCharsMax = 1_048_576

/**
 * The engine's counter over a tokenizer's count of a text.
 *
 * @since 0.1.0
 * @category constructors
 */
export const counter = (count: (text: string) => number): Counter => {
  // Token counts are cached per message object, then per id and text (a caller may rebuild its message objects
  // at every checkpoint): a checkpoint counts only new or changed messages.
  const byObject = new WeakMap<Transcript.Message, number>()
  // The last texts counted, whatever message they were of: a caller often counts the same text as two objects
  // (the proxy counts a request's new messages before the checkpoint, which counts them again as the view's).
  const recent = new Map<string, number>()
  let recentChars = 0
  const countText = (text: string): number => {
    const known = recent.get(text)
    if (known !== undefined) return known
    const counted = count(text)
    if (text.length <= recentCharsMax) {
      for (const [oldest] of recent) {
        if (recent.size < recentTexts && recentChars + text.length <= recentCharsMax) break
        recent.delete(oldest)
        recentChars -= oldest.length
      }
      recent.set(text, counted)
      recentChars += text.length
    }
    return counted
  }
  return {
    of: (known) => {
      const fresh = new Map<string, TokenCount>()
      const tokens = (message: Transcript.Message): number => {
        const seen = byObject.get(message)
        if (seen !== undefined) return seen
        const text = Transcript.text(message)
        // A message made for the view (clipped, reduced, synthetic) never stands in the count of the id it shares.
        const byId = message._tag !== "Compacted" && !ViewFit.isDerived(message)
        const before = byId ? fresh.get(message.id) ?? known.get(message.id) : undefined
        const counted = before !== undefined && before.text === text ? before.tokens : countText(text) + messageOverhead
        if (byId) fresh.set(message.id, { text, tokens: counted })
        byObject.set(message, counted)
        return counted
      }
      return { tokens, fresh }
    },
    plain: (message) => {
      const seen = byObject.get(message)
      if (seen !== undefined) return seen
      const tokens = countText(Transcript.text(message)) + messageOverhead
      byObject.set(message, tokens)
      return tokens
    }
  }
}

/**
 * The tokens of a view, as steps that pause every few messages (a face runs
 * them letting the event loop turn: `Cooperative.run`): the counts are cached,
 * so the stages after it count nothing again.
 *
 * @since 0.1.0
 * @category counting
 */
export function* countSteps(
  view: Transcript.Transcript,
  tokens: (message: Transcript.Message) => number
): Steps.Steps<number> {
  let counted = 0
  yield* Steps.mapSteps(view, (message) => void (counted += tokens(message)))
  return counted
}

/**
 * The window of a checkpoint: the context window, or the limit an overflow
 * error named when it is smaller.
 *
 * @since 0.1.0
 * @category counting
 */
export const windowOf = (input: Input, cause: Cause): number => {
  const overflowLimit = cause === "overflow" ? input.overflow?.limit : undefined
  return overflowLimit === undefined ? input.contextWindow : Math.min(input.contextWindow, overflowLimit)
}

/**
 * A checkpoint's budget, in tokens.
 *
 * @since 0.1.0
 * @category models
 */
export interface Counted {
  /** The engine's count of the view. */
  readonly counted: number
  /** The view's tokens as believed: the provider's reported count at a trigger checkpoint, else the engine's. */
  readonly viewTokens: number
  /** What the provider refused after an overflow (the view last given back, when it was smaller), else the count. */
  readonly refused: number
  /** The ratio of the engine's count to the provider's after an overflow (1 otherwise). */
  readonly believed: number
  readonly trigger: number
  /** The tokens reserved for the reply under the trigger: what the window's room above the trigger does not already give. */
  readonly replyReserve: number
  /** The tokens the reply has in the window with a view at the trigger: the reserve under it and the window above it. */
  readonly replyRoom: number
  /** Where the reply reserve was taken (`Compactor.Options.levers.replyReserveIn`). */
  readonly replyReserveIn: "window" | "trigger"
  /** The request's fixed overhead: the provider's count above the engine's (tools, the system prompt, images). */
  readonly overhead: number
  /** The trigger less the overhead: what the messages may take. */
  readonly messagesTrigger: number
  /** What the view may take: the messages' trigger less the reply reserve. */
  readonly viewBudget: number
  /** The most the view may take after a compaction (hysteresis). */
  readonly targetAfter: number
}

/**
 * What a session's last checkpoint gave back: its view's tokens, and the
 * content digest of the transcript it was made of (a memory written before
 * the digest was kept has none: no later transcript is taken for it).
 *
 * @since 0.1.0
 * @category models
 */
export interface LastSent {
  readonly tokens: number
  readonly digest?: string | undefined
}

/**
 * The budget of a checkpoint from its count. An overflow: the provider saw at
 * least the window (its own count, when it gave one); where the engine's
 * count says less, the trigger and the reserve shrink by the ratio, so a small
 * session's first overflow compacts. What the provider refused is the view
 * last given back for this transcript, when there is one (the ladder made it
 * smaller than the view restored).
 *
 * @since 0.1.0
 * @category counting
 */
export const budget = (options: {
  readonly settings: SettingsShape
  readonly input: Input
  readonly cause: Cause
  readonly counted: number
  readonly lastSent: LastSent | undefined
  /** The digest of the transcript this checkpoint is of (`SameMessage.digestOfAll`): the last sent's if it is the same. */
  readonly transcriptDigest: string
  /** Where the reply reserve is taken (`Compactor.Options.levers.replyReserveIn`, default "window"). */
  readonly replyReserveIn?: "window" | "trigger" | undefined
}): Counted => {
  const { cause, counted, input, lastSent, settings } = options
  const window = windowOf(input, cause)
  const viewTokens = cause === "trigger" && input.reportedContextTokens !== undefined
    ? input.reportedContextTokens
    : counted
  // The provider refused the view last sent only if this is the transcript it was made of: known by its digest.
  const refused = cause === "overflow" && lastSent?.digest !== undefined && lastSent.digest === options.transcriptDigest
    ? Math.min(counted, lastSent.tokens)
    : counted
  const providerTokens = cause === "overflow" ? Math.max(input.overflow?.promptTokens ?? window, window) : refused
  const believed = refused > 0 && refused < providerTokens ? refused / providerTokens : 1
  const trigger = Math.floor(Budget.trigger(settings, window) * believed)
  // The reply reserve scales with a small window (SPEC R2.13), and with the provider's count after an overflow; the
  // room the window leaves above the trigger is the reply's already.
  const windowTrigger = Budget.trigger(settings, window)
  const underTrigger = Budget.replyReserve(
    settings,
    windowTrigger,
    options.replyReserveIn === "trigger" ? undefined : window
  )
  const replyReserve = Math.floor(underTrigger * believed)
  const replyRoom = Math.floor((underTrigger + Math.max(window - windowTrigger, 0)) * believed)
  // A provider's count above ours is the request's fixed overhead (tools, the system prompt, images): the
  // messages get the trigger less it.
  const overhead = cause === "trigger" && input.reportedContextTokens !== undefined
    ? Math.max(input.reportedContextTokens - counted, 0)
    : 0
  const messagesTrigger = trigger - overhead
  return {
    counted,
    viewTokens,
    refused,
    believed,
    trigger,
    replyReserve,
    replyRoom,
    replyReserveIn: options.replyReserveIn ?? "window",
    overhead,
    messagesTrigger,
    viewBudget: messagesTrigger - replyReserve,
    // Hysteresis: the view after a compaction takes at most the target (and the next compaction waits for the trigger).
    targetAfter: Budget.targetAfter(settings, messagesTrigger, replyReserve)
  }
}
