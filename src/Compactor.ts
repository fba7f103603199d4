/**
 * The compaction engine (SPEC R2): at each checkpoint it rebuilds the
 * outbound view from the transcript and the persisted state, and when the view
 * nears the trigger it replaces the older span by one compacted block. The
 * transcript is never modified.
 *
 * Workers may share the store and the cache: a compaction is saved only over
 * the state it started from (`CompactionStore.saveIfCurrent`), so of two that
 * compact one session at once one wins and the other rebuilds its view from
 * the winner's state; and compactions of one engine that ask for the same
 * summary at once share one summariser call.
 *
 * @since 0.1.0
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import type * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Attention } from "../services/Attention.js"
import { CompactionState, CompactionStore, type StoreError } from "../services/CompactionStore.js"
import * as Settings from "../services/Settings.js"
import { Summarizer } from "../services/Summarizer.js"
import * as SummaryCache from "../services/SummaryCache.js"
import { Tokenizer } from "../services/Tokenizer.js"
import { TranscriptArchive } from "../services/TranscriptArchive.js"
import * as Budget from "./Budget.js"
import * as CompactionPlan from "./internal/CompactionPlan.js"
import * as SummaryOutcome from "./internal/SummaryOutcome.js"
import * as SharedPrefix from "./internal/SharedPrefix.js"
import * as TailCuts from "./internal/TailCuts.js"
import * as Cooperative from "./internal/Cooperative.js"
import * as ViewFit from "./internal/ViewFit.js"
import * as ViewRepair from "./internal/ViewRepair.js"
import type * as Overflow from "./Overflow.js"
import type * as Policy from "./Policy.js"
import * as SummaryPrompt from "./SummaryPrompt.js"
import * as Transcript from "./Transcript.js"
import * as ViewCheck from "./ViewCheck.js"

/**
 * Why a checkpoint could not give a view.
 *
 * @since 0.1.0
 * @category errors
 */
export class CompactionError extends Schema.TaggedError<CompactionError>()("CompactionError", {
  reason: Schema.Literal("no-progress", "cannot-fit", "invalid-view", "store"),
  sessionId: Schema.String,
  message: Schema.String,
  violations: Schema.optionalWith(Schema.Array(ViewCheck.Violation), { exact: true }),
  /** For `cannot-fit`: the smallest context window whose view would fit (SPEC R2.13). */
  minimumWindow: Schema.optionalWith(Schema.Number, { exact: true })
}) {}

/**
 * One rung of the degradation ladder a view took (SPEC R2.13): the reply
 * reserve scaled to a small window, tool results reduced through the retention
 * policies at a smaller cap, messages clipped head and tail, the compacted
 * block clipped; with the messages changed and the view's tokens before and after.
 *
 * @since 0.1.0
 * @category models
 */
export class LadderStep extends Schema.Class<LadderStep>("LadderStep")({
  step: Schema.Literal("reply-reserve", "reduce-tool-results", "clip-messages", "clip-block"),
  messageIds: Schema.Array(Schema.String),
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  detail: Schema.String
}) {}

/**
 * A repair made in the view (never in the transcript): a lost result answered
 * by a synthetic one, a late result moved next to its call, a second result
 * for one call id left out.
 *
 * @since 0.1.0
 * @category models
 */
export class Repair extends Schema.Class<Repair>("Repair")({
  kind: Schema.Literal("lost-result", "late-result", "duplicate-result"),
  toolCallId: Schema.String,
  messageId: Schema.String,
  detail: Schema.String
}) {}

/**
 * What a compaction did, published as the `Compacted` event and returned by
 * the checkpoint that made it.
 *
 * @since 0.1.0
 * @category models
 */
export class Compacted extends Schema.Class<Compacted>("Compacted")({
  sessionId: Schema.String,
  /** What entered compaction: the trigger, a context-overflow error of the main model, or a request to compact now. */
  cause: Schema.Literal("trigger", "overflow", "manual"),
  /** The instructions a manual compaction was asked with, as the summariser request carried them. */
  instructions: Schema.optionalWith(Schema.String, { exact: true }),
  /** The session's compactions so far, this one included. */
  compactions: Schema.Int,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  trigger: Schema.Number,
  /** The first message kept verbatim. */
  boundary: Schema.Struct({ index: Schema.Int, id: Schema.String }),
  replaced: Schema.Struct({ firstId: Schema.String, lastId: Schema.String, count: Schema.Int }),
  /**
   * The summary was not made for this compaction: it was found in the cache,
   * or made by a concurrent compaction of the same engine that asked for it.
   */
  cacheHit: Schema.Boolean,
  /** Summariser calls made (cache hits and shared summaries excluded). */
  summarizerCalls: Schema.Int,
  /** The gate's verdicts, in order: "passed" or the refusal's reason. */
  gate: Schema.Array(Schema.String),
  fallback: Schema.Literal("none", "trim"),
  summaryChars: Schema.Int,
  missingFromSummary: Schema.Array(Schema.String),
  userMessagesOmitted: Schema.Int,
  /** What the retention rules did to the tool results of the span, by action. */
  rules: Schema.Record({ key: Schema.String, value: Schema.Number }),
  /** Where the messages this compaction moved out were archived verbatim, when they were. */
  archivePath: Schema.optionalWith(Schema.String, { exact: true }),
  /** The tokens reserved for the reply: the setting, scaled down in a small window. */
  replyReserve: Schema.optionalWith(Schema.Number, { exact: true }),
  /** The rungs of the degradation ladder the view took after the compaction, in order (none when it fit). */
  ladder: Schema.optionalWith(Schema.Array(LadderStep), { exact: true, default: () => [] }),
  /** Lost or duplicated tool results repaired in the view. */
  repairs: Schema.optionalWith(Schema.Array(Repair), { exact: true, default: () => [] }),
  /** The most the view may take after this compaction (`targetAfterPct` of the trigger), in tokens. */
  targetAfter: Schema.optionalWith(Schema.Number, { exact: true }),
  /** The shape of the summariser request (`summary_request`): a shared-prefix setting falls back to delimited when the engine sent no view since the last compaction. */
  summaryRequest: Schema.optionalWith(Schema.Literal("delimited", "shared-prefix"), { exact: true }),
  /** The input tokens the summariser's provider reported over this compaction's calls, and of them those its prompt cache served (absent when it reported none). */
  summarizerUsage: Schema.optionalWith(Schema.Struct({ inputTokens: Schema.Number, cachedInputTokens: Schema.Number }), { exact: true }),
  /** Facts the summary missed that the bounded block left out (the oldest first), and tokens of the summary it clipped. */
  dropped: Schema.optionalWith(Schema.Struct({ facts: Schema.Int, summaryTokens: Schema.Int }), { exact: true, default: () => ({ facts: 0, summaryTokens: 0 }) })
}) {}

/**
 * What a checkpoint is told about the session.
 *
 * @since 0.1.0
 * @category models
 */
export interface CheckpointInput {
  readonly sessionId: string
  /** The persisted transcript, oldest first. Never modified. */
  readonly transcript: Transcript.Transcript
  /** The session's model: the summariser's unless the settings pin another. */
  readonly model: string
  readonly contextWindow: number
  /** The context tokens the provider reported for the last call, if it did (SPEC R2.1). */
  readonly reportedContextTokens?: number | undefined
}

/**
 * What a manual compaction is told: the checkpoint's input, and what the
 * summary should focus on (as `/compact <focus>`).
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactNowInput extends CheckpointInput {
  /** What the summary should focus on; part of the summariser request and so of its cache key. */
  readonly instructions?: string | undefined
}

/**
 * What `contextOverflow` is told: the checkpoint's input and, when the main
 * model's error was classified (`Overflow.classify`), what it named.
 *
 * @since 0.1.0
 * @category models
 */
export interface OverflowInput extends CheckpointInput {
  /** The main model's overflow error: the window and the prompt tokens it names, if it names them. */
  readonly overflow?: Overflow.ContextOverflow | undefined
}

/**
 * The outbound view and what the checkpoint did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Checkpoint {
  readonly view: Transcript.Transcript
  readonly tokens: number
  readonly trigger: number
  readonly compacted: Option.Option<Compacted>
  /** The rungs of the degradation ladder this view took (also without a compaction, when nothing older was left to compact). */
  readonly ladder: ReadonlyArray<LadderStep>
  /** Lost or duplicated tool results repaired in this view. */
  readonly repairs: ReadonlyArray<Repair>
  /**
   * Every message of the view this engine gave back last for the session is
   * unchanged at the head of this one, so a provider's prompt cache serves
   * them (false after a compaction, and when the session is new to the engine).
   */
  readonly prefixStable?: boolean | undefined
  /** Messages of the transcript added since the session's last compaction by this engine (all of them before the first). */
  readonly sinceCompaction?: number | undefined
}

/**
 * The tokens of a checkpoint's view before the ladder: its tokens, plus what
 * the ladder's steps on the view took off (the reply reserve's step is not of
 * the view). For a compaction, `Compacted.tokensBefore` is the view before it.
 *
 * @since 0.1.0
 * @category getters
 */
export const tokensBeforeLadder = (checkpoint: Pick<Checkpoint, "tokens" | "ladder">): number => {
  const steps = checkpoint.ladder.filter((step) => step.step !== "reply-reserve")
  return steps.length === 0 ? checkpoint.tokens : checkpoint.tokens + steps[0]!.tokensBefore - steps[steps.length - 1]!.tokensAfter
}

/**
 * What a report of a checkpoint says of it (the command line's `--report`,
 * the HTTP service's report): the view's length, its tokens before (the
 * compaction's `tokensBefore`, else {@link tokensBeforeLadder}) and after, the
 * trigger, the compaction or `null`, the ladder's steps and the repairs.
 *
 * @since 0.1.0
 * @category getters
 */
export const reportFields = (checkpoint: Checkpoint) => {
  const compacted = Option.getOrNull(checkpoint.compacted)
  return {
    viewMessages: checkpoint.view.length,
    tokensBefore: compacted?.tokensBefore ?? tokensBeforeLadder(checkpoint),
    tokensAfter: checkpoint.tokens,
    trigger: checkpoint.trigger,
    compacted,
    ladder: [...checkpoint.ladder],
    repairs: [...checkpoint.repairs]
  }
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /**
   * A checkpoint: the view, compacted first when it nears the trigger. When
   * another worker saved a compaction of the session first, its state stands:
   * the view is rebuilt from it, as a reload would, and `compacted` is none
   * (unless that view does not fit this transcript, which is compacted then).
   */
  readonly checkpoint: (input: CheckpointInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * The main model refused the view as too long: compact whatever the count
   * says, and fail with `no-progress` instead of looping when that does not
   * shrink the view. The provider is believed over the tokenizer: the view
   * counts as at least the window (the error's limit when it names one, and
   * its prompt tokens when it names them), and the trigger and reply reserve
   * shrink by the ratio of the engine's count to that. The view returned is
   * the smallest the ladder reached, smaller than the one refused, even when
   * it is still over that scaled trigger.
   */
  readonly contextOverflow: (input: OverflowInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * Compacts now, whatever the trigger says (a manual compaction, as
   * `/compact <focus>`), with the summary asked to follow `instructions`. The
   * newest user message and what follows it stay verbatim (the newest turn,
   * when no user message comes after the last block) and everything before is
   * compacted; a view with nothing before it fails with `"cannot-fit"`.
   */
  readonly compactNow: (input: CompactNowInput) => Effect.Effect<Checkpoint, CompactionError>
  /**
   * The engine's count of a message: its text's tokens and the per-message
   * overhead, as a checkpoint counts it. A message object a checkpoint has
   * counted is not counted again (what a caller reporting per-message tokens
   * after a checkpoint uses, instead of a tokenizer of its own).
   */
  readonly tokensOf: (message: Transcript.Message) => number
  /** Every compaction, as it happens, from when the stream is run. */
  readonly events: Stream.Stream<Compacted>
  /** A queue of every compaction from now on, for as long as the scope lasts. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<Compacted>, never, Scope.Scope>
}

/**
 * The compaction engine service.
 *
 * @example
 * ```ts
 * import { Compactor, Transcript } from "context-compressor"
 * import { Effect } from "effect"
 *
 * // An agent runtime asks for its outbound view at every turn; the engine
 * // compacts when the transcript no longer fits (given a layer of the services).
 * const turn = (transcript: Transcript.Transcript) =>
 *   Effect.gen(function*() {
 *     const compactor = yield* Compactor.Compactor
 *     const checkpoint = yield* compactor.checkpoint({ sessionId: "s1", transcript, model: "gpt-5", contextWindow: 200_000 })
 *     return checkpoint.view
 *   })
 * ```
 *
 * @since 0.1.0
 * @category tags
 */
export class Compactor extends Context.Tag("context-compressor/Compactor")<Compactor, Service>() {}

/**
 * The default deadline of a checkpoint's automatic summariser attempts: 120
 * seconds, the two attempts of the chat-completions summariser's default
 * timeout (`SummarizerChatCompletions.defaultTimeout`, 60 s) included.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadline: Duration.Duration = Duration.seconds(120)

/**
 * Options of the engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The retention policies tool results are rendered with in the summariser request. */
  readonly policies: ReadonlyArray<Policy.Policy>
  /** How many times an attended user may choose Retry before the engine trims (default 3). */
  readonly maxAskedRetries?: number
  /**
   * How long the summariser's two automatic attempts of one checkpoint may take
   * together, waits for `Retry-After` included (default 5 minutes); past it the
   * checkpoint goes on as if both had failed.
   */
  readonly summaryDeadline?: Duration.DurationInput
  /**
   * How many times in a row a checkpoint may find that another worker saved
   * the session first before it fails with reason `"store"` (default 5).
   */
  readonly maxLostSaves?: number
  /**
   * A system message for the summariser instead of the built-in instruction;
   * the cache namespace is derived from it (`SummaryPrompt.namespaceFor`).
   */
  readonly summarizerSystemPrompt?: string
  /**
   * How many milliseconds of work a checkpoint does before it gives the event
   * loop a turn (default {@link defaultSliceMs}): other requests and fibers run
   * during a long checkpoint. `Infinity` never yields.
   */
  readonly sliceMs?: number
  /**
   * The most memory, in bytes (estimated), that the engine's per-session
   * caches may take (token counts, the last view given back, the repair
   * scan), default {@link defaultSessionCacheBytes}: past it, the sessions
   * used least recently are forgotten first. A forgotten session loses
   * nothing but time: its next checkpoint counts its messages again.
   */
  readonly sessionCacheBytes?: number
}

/**
 * The default bound of the per-session caches: 128 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSessionCacheBytes = 128 * 1024 * 1024

/** What one session's caches take, estimated: a count entry, a view message's text (UTF-16) and a few references. */
const sessionBytes = (session: SessionCache): number => {
  let bytes = 512 + session.counts.size * 96 + session.clean.calls.size * 48
  if (session.lastView !== undefined) {
    for (const message of session.lastView.sent) bytes += 64 + Transcript.text(message).length * 2
  }
  return bytes
}

/**
 * How long a checkpoint works before it yields, by default: 10 ms.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSliceMs = 10

/** Per-message token overhead of the chat format (role, separators). */
const messageOverhead = 4

interface SessionCache extends CompactionPlan.Hints {
  /** How far the transcript was found to need no repair. */
  clean: ViewRepair.Clean
  /** The tokens of the last view given back, and the length of the transcript it was made of. */
  lastSent: { readonly length: number; readonly tokens: number } | undefined
  /** The last view given back (`sent`), and the view it was made from before the ladder (`base`), message for message. */
  lastView: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
  /** The transcript's length at the session's last compaction. */
  compactedAt: number
  /** Token counts by message id, with the text length they were counted for. */
  readonly counts: Map<string, { readonly length: number; readonly tokens: number }>
}

/**
 * The view with the head that matches the last view's base taken as it was
 * sent: position by position while the message is the one the last view was
 * made from (the same object, else the same id, kind and text length); and
 * how many messages at its head were sent as they are (the whole last view,
 * or none), which the ladder leaves alone between compactions.
 */
const sentPrefix = (
  view: Transcript.Transcript,
  last: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
): { readonly view: Transcript.Transcript; readonly sent: number } => {
  if (last === undefined) return { view, sent: 0 }
  const length = Math.min(view.length, last.base.length)
  let same = 0
  while (same < length && sameMessage(view[same]!, last.base[same]!)) same++
  // Only a whole last view is a sent prefix: one that lost messages (a new compaction's state) is not.
  const sent = same === last.base.length ? same : 0
  if (same === 0 || last.sent.slice(0, same).every((message, index) => message === view[index])) return { view, sent }
  return { view: [...last.sent.slice(0, same), ...view.slice(same)], sent }
}

const sameMessage = (a: Transcript.Message, b: Transcript.Message): boolean =>
  a === b || (a._tag === b._tag && a.id === b.id && (a._tag === "Compacted" ? a.content === b.content : Transcript.text(a).length === Transcript.text(b).length))

/**
 * Makes the engine from its services.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Compactor.make")(function*(options: Options) {
  const summarizer = yield* Summarizer
  const cache = yield* SummaryCache.SummaryCache
  const settingsService = yield* Settings.Settings
  const tokenizer = yield* Tokenizer
  const store = yield* CompactionStore
  const attention = yield* Attention
  // Optional: without an archive, the block says the session's transcript keeps the moved-out messages.
  const archive = yield* Effect.serviceOption(TranscriptArchive)
  const pubsub = yield* PubSub.unbounded<Compacted>()
  const sessions = new Map<string, SessionCache>()
  const maxLostSaves = options.maxLostSaves ?? 5
  const sliceMs = options.sliceMs ?? defaultSliceMs

  const maxCacheBytes = options.sessionCacheBytes ?? defaultSessionCacheBytes
  // The estimated bytes of each session's caches, as last measured; their sum.
  const measured = new Map<string, number>()
  let cachedBytes = 0
  const sessionCache = (sessionId: string): SessionCache => {
    let cached = sessions.get(sessionId)
    if (cached === undefined) {
      cached = { counts: new Map(), boundaryHint: 0, pinnedHint: [], clean: ViewRepair.empty, lastSent: undefined, lastView: undefined, compactedAt: 0 }
    } else {
      // Used now: the most recent in the map's order, the last to be forgotten.
      sessions.delete(sessionId)
    }
    sessions.set(sessionId, cached)
    return cached
  }
  /** Measures a session's caches after a checkpoint, and forgets the least recently used sessions past the bound. */
  const measure = (sessionId: string, session: SessionCache): void => {
    // A session forgotten while its checkpoint ran is not counted again.
    if (sessions.get(sessionId) !== session) return
    const bytes = sessionBytes(session)
    cachedBytes += bytes - (measured.get(sessionId) ?? 0)
    measured.set(sessionId, bytes)
    for (const [oldest] of sessions) {
      if (cachedBytes <= maxCacheBytes || oldest === sessionId) break
      sessions.delete(oldest)
      cachedBytes -= measured.get(oldest) ?? 0
      measured.delete(oldest)
    }
  }

  // Token counts are cached per message object, then per id (a caller may rebuild
  // its message objects at every checkpoint): a checkpoint counts only new messages.
  const byObject = new WeakMap<Transcript.Message, number>()
  const tokensOf = (session: SessionCache) => (message: Transcript.Message): number => {
    const seen = byObject.get(message)
    if (seen !== undefined) return seen
    const text = Transcript.text(message)
    // A message made for the view (clipped, reduced, synthetic) never stands in the count of the id it shares.
    const byId = message._tag !== "Compacted" && !ViewFit.isDerived(message)
    const known = byId ? session.counts.get(message.id) : undefined
    const tokens = known !== undefined && known.length === text.length ? known.tokens : tokenizer.count(text) + messageOverhead
    if (byId) session.counts.set(message.id, { length: text.length, tokens })
    byObject.set(message, tokens)
    return tokens
  }

  const storeError = (sessionId: string) => (error: StoreError) =>
    new CompactionError({ reason: "store", sessionId, message: `the compaction state could not be read or written: ${error.reason}` })

  const summarizeOnce = SummaryOutcome.make({
    summarizer,
    cache,
    attention,
    maxAskedRetries: options.maxAskedRetries ?? 3,
    summaryDeadline: Duration.decode(options.summaryDeadline ?? defaultSummaryDeadline),
    restoreOpening: SummaryPrompt.restoreOpening
  })

  // A view found invalid after the repair scan trusted an earlier scan's prefix (the same objects, or
  // rebuilt ones with the same fingerprints) is made again from a whole scan: a caller that changed
  // messages in place costs a rescan, never a wrong view.
  const compact = (input: CompactNowInput & OverflowInput, cause: "trigger" | "overflow" | "manual", lostSaves = 0): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.suspend(() => {
      const session = sessionCache(input.sessionId)
      return compactOnce(input, cause, lostSaves).pipe(
        Effect.catchIf(
          (error) => error.reason === "invalid-view" && session.clean.trusted,
          () => {
            session.clean = ViewRepair.empty
            return compactOnce(input, cause, lostSaves)
          }
        )
      )
    })

  const compactOnce = (input: CompactNowInput & OverflowInput, cause: "trigger" | "overflow" | "manual", lostSaves = 0): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.gen(function*() {
      const { sessionId } = input
      const settings = Settings.clamp(yield* settingsService.current)
      const overflowLimit = cause === "overflow" ? input.overflow?.limit : undefined
      const window = overflowLimit === undefined ? input.contextWindow : Math.min(input.contextWindow, overflowLimit)
      const session = sessionCache(sessionId)
      const tokens = tokensOf(session)
      // A long checkpoint gives the event loop a turn every slice of work (the loops below pause; `breathe` between them).
      const clock = Cooperative.slice(sliceMs)
      const breathe = Effect.suspend(() => (clock.spent() ? clock.pause : Effect.void))
      const state = yield* Effect.mapError(store.load(sessionId), storeError(sessionId))

      // Lost and duplicated results are repaired in the view's copy of the transcript, never in the transcript.
      const scanned = ViewRepair.scan(input.transcript, session.clean)
      let transcript = input.transcript
      let repairs: ReadonlyArray<Repair> = []
      let renamed: ViewRepair.Renamed | undefined
      if (scanned !== undefined) {
        session.clean = scanned
      } else {
        session.clean = ViewRepair.empty
        const repaired = ViewRepair.repair(input.transcript)
        if ("malformed" in repaired) {
          return yield* new CompactionError({
            reason: "invalid-view",
            sessionId,
            message: `the transcript is malformed at message ${repaired.malformed.messageId}: ${repaired.malformed.problem}`
          })
        }
        transcript = repaired.transcript
        renamed = repaired.renamed
        repairs = repaired.repairs.map((repair) => new Repair(repair))
      }

      yield* breathe
      const firstUser = Transcript.firstUserMessage(transcript)
      const restored = CompactionPlan.restore(transcript, Option.getOrUndefined(state), session)
      const restoredView = CompactionPlan.restoredView(transcript, restored)
      // Between compactions the messages already sent go out as they went (clipped or not): the prompt cache holds.
      const { view, sent: sentMessages } = sentPrefix(restoredView, session.lastView)
      yield* breathe
      // Counted here, pausing: the counts are cached, so the planning below counts nothing again.
      let counted = 0
      yield* Cooperative.forEach(view, (message) => void (counted += tokens(message)), clock)
      const viewTokens = cause === "trigger" && input.reportedContextTokens !== undefined ? input.reportedContextTokens : counted
      // An overflow: the provider saw at least the window (its own count, when it gave one). Where the engine's
      // count says less, the trigger and the reserve shrink by the ratio, so a small session's first overflow compacts.
      // What the provider refused is the view last given back for this transcript, when there is one (the ladder made it
      // smaller than the view restored here).
      const sentCount = cause === "overflow" && session.lastSent !== undefined && session.lastSent.length === input.transcript.length
        ? Math.min(counted, session.lastSent.tokens)
        : counted
      const providerTokens = cause === "overflow" ? Math.max(input.overflow?.promptTokens ?? window, window) : sentCount
      const believed = sentCount > 0 && sentCount < providerTokens ? sentCount / providerTokens : 1
      const trigger = Math.floor(Budget.trigger(settings, window) * believed)
      // The reply reserve scales with a small window (SPEC R2.13), and with the provider's count after an overflow.
      const replyReserve = Math.floor(Budget.replyReserve(settings, Budget.trigger(settings, window)) * believed)
      // A provider's count above ours is the request's fixed overhead (tools, the system prompt, images): the
      // messages get the trigger less it.
      const overhead = cause === "trigger" && input.reportedContextTokens !== undefined ? Math.max(input.reportedContextTokens - counted, 0) : 0
      const messagesTrigger = trigger - overhead
      if (overhead > 0 && overhead + replyReserve >= trigger && Budget.needsCompaction(viewTokens, trigger, settings)) {
        return yield* new CompactionError({
          reason: "cannot-fit",
          sessionId,
          message: `the request's fixed overhead of ${overhead} tokens (the provider's count of ${viewTokens} less the engine's ${counted} for the messages) ` +
            `with ${replyReserve} reserved for the reply passes the trigger of ${trigger}: no compaction of the messages can fit`
        })
      }
      const viewBudget = messagesTrigger - replyReserve
      const fit = { trigger: messagesTrigger, replyReserve, tokens }
      const verify = (candidate: Transcript.Transcript, withFit: boolean) =>
        ViewCheck.check(candidate, { firstUserMessage: firstUser, ...(withFit ? { fit } : {}) })
      const reserveSteps: ReadonlyArray<LadderStep> = replyReserve < settings.replyReserveTokens
        ? [new LadderStep({ step: "reply-reserve", messageIds: [], tokensBefore: settings.replyReserveTokens, tokensAfter: replyReserve, detail: `the reply reserve is ${replyReserve} tokens in this window (a quarter of the trigger) instead of ${settings.replyReserveTokens}` })]
        : []
      const ladderOf = (steps: ReadonlyArray<ViewFit.Step>): ReadonlyArray<LadderStep> =>
        steps.length === 0 ? [] : [...reserveSteps, ...steps.map((step) => new LadderStep(step))]
      const done = (checkpoint: Omit<Checkpoint, "repairs">, base: Transcript.Transcript = restoredView): Checkpoint => {
        const last = session.lastView?.sent
        const prefixStable = Option.isNone(checkpoint.compacted) && last !== undefined && last.length <= checkpoint.view.length &&
          last.every((message, index) => checkpoint.view[index] === message)
        if (Option.isSome(checkpoint.compacted)) session.compactedAt = input.transcript.length
        session.lastSent = { length: input.transcript.length, tokens: checkpoint.tokens }
        session.lastView = base.length === checkpoint.view.length ? { base, sent: checkpoint.view } : undefined
        measure(sessionId, session)
        return {
          ...checkpoint,
          view: ViewRepair.restoreIds(checkpoint.view, renamed),
          repairs,
          prefixStable,
          sinceCompaction: Math.max(input.transcript.length - session.compactedAt, 0)
        }
      }

      /** The ladder over a view: with `oversized`, only the messages too big for any view; else all of it. */
      const degrade = (candidate: Transcript.Transcript, archivePath: string | undefined, whole: boolean, budget = viewBudget, frozen = 0): ViewFit.Fitted => {
        const fitOptions = {
          frozen,
          budget,
          tokens,
          policies: options.policies,
          capChars: Math.min(settings.envelopeCapChars, Budget.oversizedMessageTokens(viewBudget) * Budget.charsPerTokenLow),
          whereWhole: (message: Transcript.Message) => `the session's transcript (message ${message.id})`,
          whereBlock: archivePath === undefined ? "the session's transcript" : `${archivePath} and the session's transcript`
        }
        const steady = ViewFit.fit(candidate, { ...fitOptions, oversized: Budget.oversizedMessageTokens(viewBudget) })
        if (!whole || steady.tokens <= budget) return steady
        const rest = ViewFit.fit(steady.view, fitOptions)
        return { view: rest.view, tokens: rest.tokens, steps: [...steady.steps, ...rest.steps] }
      }
      const cannotFit = (fullyDegraded: number, detail: string) => {
        // After an overflow, in the provider's count: ours scaled by the ratio believed.
        // With a fixed overhead (the provider's count above ours), the request takes it on top of the messages.
        const smallest = Budget.smallestWindow(settings, Math.ceil(fullyDegraded / believed) + overhead)
        return new CompactionError({
          reason: cause === "overflow" ? "no-progress" : "cannot-fit",
          sessionId,
          message: `${detail}; with every message clipped as far as it goes the view takes ${fullyDegraded} tokens` +
            (overhead > 0 ? ` and the request's fixed overhead ${overhead} more (the provider's count of ${viewTokens} less the engine's ${counted})` : "") +
            `, with ${replyReserve} reserved for the reply, over the trigger of ${trigger}: ` +
            (smallest === undefined
              ? `no window works under the cap of ${settings.capTokens} tokens`
              : `the smallest context window that works is ${smallest} tokens`),
          ...(smallest === undefined ? {} : { minimumWindow: smallest })
        })
      }

      // After an overflow the fit guarantee holds against the provider's window (the trigger scaled above), so a
      // view given back is smaller than the one refused as the provider counts; the guard below ends a loop of a
      // provider whose count is not proportional to ours.
      const refused = sentCount

      const statePath = state.pipe(Option.flatMap((s) => Option.fromNullable(s.archivePath)), Option.getOrUndefined)
      // Hysteresis: the view after a compaction takes at most the target (and the next compaction waits for the trigger).
      const targetAfter = Budget.targetAfter(settings, messagesTrigger)

      if (cause === "trigger" && !Budget.needsCompaction(viewTokens, trigger, settings)) {
        // Under the target after a compaction a view is sent as it is. Past it (the session heads for its next
        // compaction), a new message too big for any view is cut when it comes, never once it was sent: the
        // prompt cache holds, and the message does not force a compaction later.
        const steady: ViewFit.Fitted = viewTokens <= targetAfter
          ? { view, tokens: counted, steps: [] }
          : degrade(view, statePath, false, viewBudget, sentMessages)
        const violations = verify(steady.view, false)
        if (violations.length > 0) {
          return yield* new CompactionError({ reason: "invalid-view", sessionId, message: violations.map((v) => v.detail).join("; "), violations })
        }
        return done({ view: steady.view, tokens: viewTokens - (counted - steady.tokens), trigger, compacted: Option.none(), ladder: ladderOf(steady.steps) })
      }

      // Messages too big for any view are reduced or clipped first: were they not, every checkpoint would compact.
      if (cause === "trigger") {
        // Messages already sent are left as they went: the ladder takes only from the new ones, else the session compacts.
        const steady = degrade(view, statePath, false, viewBudget, sentMessages)
        const steadyTokens = viewTokens - (counted - steady.tokens)
        if (steady.steps.length > 0 && !Budget.needsCompaction(steadyTokens, trigger, settings) && verify(steady.view, false).length === 0) {
          return done({ view: steady.view, tokens: steadyTokens, trigger, compacted: Option.none(), ladder: ladderOf(steady.steps) })
        }
      }

      const compactions = Option.match(state, { onNone: () => 1, onSome: (s) => s.compactions + 1 })
      // The block takes a fixed share of the target, the verbatim tail what the block and the system messages
      // leave (never more than the keep fraction).
      const blockBudget = Budget.blockBudget(settings, messagesTrigger)
      const systemTokens = view.reduce((sum, message) => sum + (message._tag === "System" ? tokens(message) : 0), 0)
      const blockParts = Budget.blockParts(blockBudget, messagesTrigger, firstUser === undefined ? 0 : tokens(firstUser))
      const plan = CompactionPlan.plan({
        transcript,
        restored,
        compactions,
        trigger: messagesTrigger,
        blockParts,
        keepBudget: Math.max(Math.min(Budget.keepBudget(settings, messagesTrigger), targetAfter - blockBudget - systemTokens), 0),
        manual: cause === "manual",
        tokens,
        count: tokenizer.count
      })
      const boundary = plan.boundary
      yield* breathe
      if (boundary === undefined) {
        const nothing = `no turn starts after message ${transcript[restored.from]?.id ?? restored.from}: there is nothing older to compact without splitting a turn or moving a pending approval`
        // Asked to compact, a manual compaction with nothing to compact says so.
        if (cause === "manual") return yield* new CompactionError({ reason: "cannot-fit", sessionId, message: nothing })
        // Nothing older to compact: the ladder works on the view as it is.
        // Nothing to compact: the new messages give way first, the ones already sent only when that is not enough.
        const onNew = sentMessages > 0 ? degrade(view, undefined, true, viewBudget, sentMessages) : undefined
        const degraded = onNew !== undefined && onNew.tokens <= viewBudget ? onNew : degrade(view, undefined, true)
        const violations = verify(degraded.view, true)
        if (violations.some((v) => v.kind === "over-trigger")) return yield* cannotFit(degrade(view, undefined, true, 0).tokens, nothing)
        if (violations.length > 0) {
          return yield* new CompactionError({ reason: "invalid-view", sessionId, message: violations.map((v) => v.detail).join("; "), violations })
        }
        if (cause === "overflow" && degraded.tokens >= refused) {
          return yield* new CompactionError({ reason: "no-progress", sessionId, message: `${nothing}, and the view of ${counted} tokens cannot be made smaller: stopping instead of looping` })
        }
        return done({ view: degraded.view, tokens: degraded.tokens, trigger, compacted: Option.none(), ladder: ladderOf(degraded.steps) })
      }

      // The working state of the cut, extracted pausing: building the block below finds it made.
      yield* Cooperative.run(plan.workingStateSteps(boundary), clock)
      yield* breathe
      const promptOptions: SummaryPrompt.Options = {
        model: settings.summarizerModel ?? input.model,
        maxTokens: settings.summaryMaxTokens,
        policies: options.policies,
        envelopeCapChars: settings.envelopeCapChars,
        maxSpanChars: Budget.summaryInputChars(settings, trigger),
        instructions: cause === "manual" ? input.instructions : undefined,
        systemPrompt: options.summarizerSystemPrompt
      }
      // Shared prefix: the view as last sent, then the instruction (delimited when nothing was sent since the last compaction).
      const shared = settings.summaryRequest === "shared-prefix"
        ? SharedPrefix.of({ view, sent: sentMessages, transcriptLength: transcript.length, cut: boundary, renamed })
        : undefined
      const { request, ruleTotals } = shared === undefined
        ? SummaryPrompt.buildWithTotals(plan.spanFor(boundary), promptOptions)
        : SummaryPrompt.buildSharedPrefix(plan.spanFor(boundary), { ...promptOptions, ...shared })
      yield* breathe
      const outcome = yield* summarizeOnce(request, sessionId)
      yield* breathe
      const summary = outcome._tag === "Summary" ? outcome.text : undefined

      // Where a cut's moved-out messages are archived: named by what they are, so that a worker that loses
      // the race to save never overwrites the winner's archive with a different span. Synthetic results are not archived.
      let archiveWritable = Option.isSome(archive)
      const movedOut = (cut: number) => ViewRepair.restoreIds(plan.movedOutAt(cut).filter((message) => !ViewFit.isDerived(message)), renamed)
      const archivePathAt = (cut: number): string | undefined =>
        archiveWritable && Option.isSome(archive) ? archive.value.locate({ sessionId, compaction: compactions, messages: movedOut(cut) }) : undefined

      // Compact the older span (a summary, else a trim, at later cuts while the view does not fit) ...
      let { boundary: cut, built, fallbackReason } = CompactionPlan.fit(plan, {
        boundary,
        summary,
        trimReason: outcome._tag === "Trim" ? outcome.reason : undefined,
        trimCut: outcome._tag === "Trim" ? plan.trimCut(counted, viewBudget) : undefined,
        archivePathAt,
        check: (candidate) => verify(degrade(candidate, undefined, false).view, true)
      })
      yield* breathe
      let degraded = degrade(built.view, archivePathAt(cut), false)
      // ... then the rest of the ladder, on the summary's view first (a tail too big is no reason to lose the summary).
      if (verify(degraded.view, true).some((v) => v.kind === "over-trigger")) {
        const tries: Array<{ readonly cut: number; readonly summary: string | undefined; readonly reason: string | undefined }> = [
          ...(summary === undefined ? [] : [{ cut: boundary, summary, reason: undefined }]),
          { cut, summary: undefined, reason: fallbackReason ?? "the view did not fit the trigger" },
          ...(plan.candidates.length > 0 ? [{ cut: plan.candidates[plan.candidates.length - 1]!, summary: undefined, reason: fallbackReason ?? "the view did not fit the trigger" }] : [])
        ]
        let smallest = Number.POSITIVE_INFINITY
        for (const attempt of tries) {
          const candidate = attempt.cut === cut && attempt.summary === undefined && fallbackReason !== undefined
            ? built
            : plan.build(attempt.cut, { summary: attempt.summary, fallbackReason: attempt.reason, archivePath: archivePathAt(attempt.cut) })
          const whole = degrade(candidate.view, archivePathAt(attempt.cut), true)
          smallest = Math.min(smallest, degrade(candidate.view, archivePathAt(attempt.cut), true, 0).tokens)
          if (verify(whole.view, true).some((v) => v.kind === "over-trigger")) continue
          cut = attempt.cut
          built = candidate
          fallbackReason = attempt.reason
          degraded = whole
          break
        }
        if (cause !== "manual" && verify(degraded.view, true).some((v) => v.kind === "over-trigger")) {
          return yield* cannotFit(smallest, "compacting the older span was not enough")
        }
      }
      // After a manual compaction the trigger is a goal: the view is given as small as the ladder made it.
      const violations = verify(degraded.view, true).filter((v) => cause !== "manual" || v.kind !== "over-trigger")
      if (violations.length > 0) {
        return yield* new CompactionError({ reason: "invalid-view", sessionId, message: violations.map((v) => v.detail).join("; "), violations })
      }
      let tokensAfter = degraded.tokens
      // A compaction that does not make the view smaller is none: reported as one, it would only cost a summary.
      if (cause === "trigger" && tokensAfter >= counted) {
        return yield* new CompactionError({
          reason: "cannot-fit",
          sessionId,
          message: `compacting the older span left ${tokensAfter} tokens of the ${counted} the view had` +
            (overhead > 0 ? `, with a fixed overhead of ${overhead} tokens (the provider's count of ${viewTokens} less the engine's ${counted})` : "") +
            `: the view cannot be made to fit the trigger of ${trigger}`
        })
      }
      if (cause === "overflow" && tokensAfter >= refused) {
        return yield* new CompactionError({
          reason: "no-progress",
          sessionId,
          message: `compaction after a context overflow left ${tokensAfter} tokens of ${refused}: stopping instead of looping`
        })
      }
      const usedSummary = fallbackReason === undefined && outcome._tag === "Summary"
      // Written before the state that names it; a failed write costs the block its path, not the compaction.
      if (Option.isSome(archive)) {
        const written = yield* Effect.either(archive.value.write({ sessionId, compaction: compactions, messages: movedOut(cut) }))
        if (Either.isLeft(written)) {
          yield* Effect.logWarning(`context-compressor: the transcript archive of session ${sessionId} could not be written (${written.left.path}: ${written.left.reason}); the block names the session's transcript instead`)
          archiveWritable = false
          built = plan.build(cut, { summary: usedSummary ? summary : undefined, fallbackReason, archivePath: undefined })
          degraded = degrade(built.view, undefined, true)
          tokensAfter = degraded.tokens
        }
      }
      // Hysteresis: a newest turn bigger than the verbatim tail is cut to the target by the ladder (after the
      // block); the cut is saved with the state, so a reload rebuilds this view. A manual compaction keeps its tail verbatim.
      if (cause !== "manual" && tokensAfter > targetAfter) {
        const toTarget = degrade(degraded.view, archivePathAt(cut), true, targetAfter, TailCuts.tailStart(degraded.view))
        if (toTarget.tokens < tokensAfter && verify(toTarget.view, false).length === 0) {
          degraded = { view: toTarget.view, tokens: toTarget.tokens, steps: [...degraded.steps, ...toTarget.steps] }
          tokensAfter = toTarget.tokens
        }
      }
      const cutMessages = TailCuts.cutsOf(built.view, degraded.view)
      const archivePath = archivePathAt(cut)
      const updatedAt = yield* Clock.currentTimeMillis
      const saved = yield* Effect.mapError(
        store.saveIfCurrent(
          new CompactionState({
            sessionId,
            compactions,
            block: built.block,
            boundaryId: transcript[cut]!.id,
            pinnedIds: built.pinned.map((index) => transcript[index]!.id),
            ...(archivePath === undefined ? {} : { archivePath }),
            workingState: plan.workingStateAt(cut),
            ...(cutMessages.length === 0 ? {} : { cutMessages }),
            updatedAt
          }),
          compactions - 1
        ),
        storeError(sessionId)
      )
      if (saved._tag === "Conflict") {
        if (lostSaves + 1 >= maxLostSaves) {
          return yield* new CompactionError({
            reason: "store",
            sessionId,
            message: `other workers saved a compaction of the session first ${lostSaves + 1} times in a row (it now has ${saved.current.compactions})`
          })
        }
        // Another worker compacted the session first: its state stands. The view is rebuilt from it as a
        // reload would; the reported context tokens were of the view before, so they are not used.
        yield* Effect.logDebug(`context-compressor: session ${sessionId} was compacted by another worker first (compaction ${saved.current.compactions}); its state is used`)
        return yield* compact({ ...input, reportedContextTokens: undefined }, "trigger", lostSaves + 1)
      }
      session.boundaryHint = cut
      session.pinnedHint = built.pinned
      const ladder = ladderOf(degraded.steps)
      const report = new Compacted({
        sessionId,
        cause,
        ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
        compactions,
        tokensBefore: viewTokens,
        tokensAfter: tokensAfter + overhead,
        trigger,
        boundary: { index: cut, id: transcript[cut]!.id },
        replaced: { firstId: built.block.firstReplacedId, lastId: built.block.lastReplacedId, count: cut - restored.prefix - built.pinned.length },
        cacheHit: outcome._tag === "Summary" && outcome.cacheHit,
        summarizerCalls: outcome.calls,
        gate: [...outcome.gate],
        fallback: usedSummary ? "none" : "trim",
        summaryChars: usedSummary && summary !== undefined ? summary.length : 0,
        missingFromSummary: [...built.missing],
        userMessagesOmitted: built.rendered.userMessagesOmitted,
        rules: ruleTotals,
        ...(archivePath === undefined ? {} : { archivePath }),
        replyReserve,
        ladder: [...ladder],
        repairs: [...repairs],
        targetAfter,
        summaryRequest: request.prefix === undefined ? "delimited" : "shared-prefix",
        ...(outcome.usage === undefined ? {} : { summarizerUsage: outcome.usage }),
        dropped: { facts: built.rendered.factsDropped, summaryTokens: built.rendered.summaryTokensDropped }
      })
      yield* PubSub.publish(pubsub, report)
      return done({ view: degraded.view, tokens: tokensAfter + overhead, trigger, compacted: Option.some(report), ladder }, TailCuts.apply(built.view, cutMessages))
    })

  return Compactor.of({
    checkpoint: (input) => compact(input, "trigger"),
    contextOverflow: (input) => compact(input, "overflow"),
    compactNow: (input) => compact(input, "manual"),
    tokensOf: (message) => {
      const seen = byObject.get(message)
      if (seen !== undefined) return seen
      const tokens = tokenizer.count(Transcript.text(message)) + messageOverhead
      byObject.set(message, tokens)
      return tokens
    },
    events: Stream.fromPubSub(pubsub),
    subscribe: PubSub.subscribe(pubsub)
  })
})

/**
 * The engine as a layer over its six services.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) => Layer.effect(Compactor, make(options))
