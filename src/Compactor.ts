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
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberId from "effect/FiberId"
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
import { Summarizer, type SummaryRequest } from "../services/Summarizer.js"
import * as SummaryCache from "../services/SummaryCache.js"
import { Tokenizer } from "../services/Tokenizer.js"
import { TranscriptArchive } from "../services/TranscriptArchive.js"
import * as Boundary from "./internal/Boundary.js"
import * as Budget from "./Budget.js"
import * as CompactedBlock from "./internal/CompactedBlock.js"
import type * as Overflow from "./Overflow.js"
import type * as Policy from "./Policy.js"
import * as QualityGate from "./QualityGate.js"
import * as SummaryPrompt from "./SummaryPrompt.js"
import * as Transcript from "./Transcript.js"
import * as ViewCheck from "./ViewCheck.js"
import * as WorkingState from "./WorkingState.js"

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
  violations: Schema.optionalWith(Schema.Array(ViewCheck.Violation), { exact: true })
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
  archivePath: Schema.optionalWith(Schema.String, { exact: true })
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
 * The default deadline of a checkpoint's automatic summariser attempts.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadline: Duration.Duration = Duration.minutes(5)

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
}

const wordLike = /^[A-Za-z0-9][A-Za-z0-9_-]*$/
const summaryWords = /[A-Za-z0-9][A-Za-z0-9_-]*/g

/** Per-message token overhead of the chat format (role, separators). */
const messageOverhead = 4

interface SessionCache {
  /** Token counts by message id, with the text length they were counted for. */
  readonly counts: Map<string, { readonly length: number; readonly tokens: number }>
  /** Where the boundary of the persisted state was found last time. */
  boundaryHint: number
  /** Where the pinned messages of the persisted state were found last time. */
  pinnedHint: ReadonlyArray<number>
}

type SummaryOutcome =
  | { readonly _tag: "Summary"; readonly text: string; readonly cacheHit: boolean; readonly calls: number; readonly gate: ReadonlyArray<string> }
  | { readonly _tag: "Trim"; readonly reason: string; readonly calls: number; readonly gate: ReadonlyArray<string> }

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
  const maxAskedRetries = options.maxAskedRetries ?? 3
  const summaryDeadline = Duration.decode(options.summaryDeadline ?? defaultSummaryDeadline)
  const maxLostSaves = options.maxLostSaves ?? 5
  // Summaries being made, by cache digest: a compaction asking for one already in flight waits for it.
  const inFlight = new Map<string, Deferred.Deferred<SummaryOutcome>>()

  const sessionCache = (sessionId: string): SessionCache => {
    let cached = sessions.get(sessionId)
    if (cached === undefined) {
      // A bounded number of sessions keep their counts; the oldest is forgotten first.
      if (sessions.size >= 256) sessions.delete(sessions.keys().next().value!)
      cached = { counts: new Map(), boundaryHint: 0, pinnedHint: [] }
      sessions.set(sessionId, cached)
    }
    return cached
  }

  // Token counts are cached per message object, then per id (a caller may rebuild
  // its message objects at every checkpoint): a checkpoint counts only new messages.
  const byObject = new WeakMap<Transcript.Message, number>()
  const tokensOf = (session: SessionCache) => (message: Transcript.Message): number => {
    const seen = byObject.get(message)
    if (seen !== undefined) return seen
    const text = Transcript.text(message)
    const known = message._tag === "Compacted" ? undefined : session.counts.get(message.id)
    const tokens = known !== undefined && known.length === text.length ? known.tokens : tokenizer.count(text) + messageOverhead
    if (message._tag !== "Compacted") session.counts.set(message.id, { length: text.length, tokens })
    byObject.set(message, tokens)
    return tokens
  }

  const storeError = (sessionId: string) => (error: StoreError) =>
    new CompactionError({ reason: "store", sessionId, message: `the compaction state could not be read or written: ${error.reason}` })

  /** The messages before the first non-system one: kept at the head of every view. */
  const systemPrefix = (transcript: Transcript.Transcript): number => {
    const index = transcript.findIndex((message) => message._tag !== "System")
    return index === -1 ? transcript.length : index
  }

  const viewOf = (
    transcript: Transcript.Transcript,
    prefix: number,
    block: Transcript.CompactedBlock | undefined,
    pinned: ReadonlyArray<number>,
    boundary: number
  ) =>
    block === undefined
      ? transcript
      : [...transcript.slice(0, prefix), block, ...pinnedMessages(transcript, pinned), ...transcript.slice(boundary)]

  // Pinned assistant messages narrowed to their pinned calls, by the message they narrow.
  const narrowed = new WeakMap<Transcript.Message, { readonly key: string; readonly message: Transcript.AssistantMessage }>()

  /** The pinned messages, each assistant message narrowed to the calls whose results are pinned with it. */
  const pinnedMessages = (transcript: Transcript.Transcript, pinned: ReadonlyArray<number>): ReadonlyArray<Transcript.Message> => {
    const answered = new Set(pinned.flatMap((index) => {
      const message = transcript[index]!
      return message._tag === "ToolResult" ? [message.toolCallId] : []
    }))
    return pinned.map((index) => {
      const message = transcript[index]!
      if (message._tag !== "Assistant" || message.toolCalls.every((call) => answered.has(call.id))) return message
      const toolCalls = message.toolCalls.filter((call) => answered.has(call.id))
      const key = toolCalls.map((call) => call.id).join("\u0000")
      // The same narrowing at every checkpoint gives the same message, so its token count is cached too.
      const known = narrowed.get(message)
      if (known !== undefined && known.key === key) return known.message
      const narrowedMessage = new Transcript.AssistantMessage({ ...message, toolCalls }, { disableValidation: true })
      narrowed.set(message, { key, message: narrowedMessage })
      return narrowedMessage
    })
  }

  /** Where the pinned messages of the state are, or `undefined` when the transcript no longer holds one. */
  const pinnedIndices = (transcript: Transcript.Transcript, ids: ReadonlyArray<string>, session: SessionCache): ReadonlyArray<number> | undefined => {
    if (ids.length === session.pinnedHint.length && ids.every((id, i) => transcript[session.pinnedHint[i]!]?.id === id)) return session.pinnedHint
    const found = ids.map((id) => transcript.findIndex((message) => message.id === id))
    if (found.includes(-1)) return undefined
    session.pinnedHint = found
    return found
  }

  const boundaryIndex = (transcript: Transcript.Transcript, state: Option.Option<CompactionState>, session: SessionCache): number | undefined =>
    Option.match(state, {
      onNone: () => systemPrefix(transcript),
      onSome: (s) => {
        // The boundary found last time is checked first: no search of the whole history per checkpoint.
        if (transcript[session.boundaryHint]?.id === s.boundaryId) return session.boundaryHint
        const index = transcript.findIndex((message) => message.id === s.boundaryId)
        if (index === -1) return undefined
        session.boundaryHint = index
        return index
      }
    })

  const summarizeSpan = (request: SummaryRequest, sessionId: string, key: SummaryCache.Key): Effect.Effect<SummaryOutcome> =>
    Effect.gen(function*() {
      const gate: Array<string> = []
      let calls = 0
      const cached = yield* cache.lookup(key)
      if (Option.isSome(cached)) {
        const verdict = QualityGate.check(cached.value, { agentic: request.agentic })
        if (Either.isRight(verdict)) {
          gate.push("passed")
          return { _tag: "Summary", text: cached.value, cacheHit: true, calls, gate } as const
        }
      }
      const attempt = Effect.gen(function*() {
        calls++
        const reply = yield* Effect.either(summarizer.summarize(request))
        if (Either.isLeft(reply)) {
          gate.push(`summarizer: ${reply.left.reason}`)
          return Either.left(`the summariser failed (${reply.left.reason}: ${reply.left.message})`)
        }
        // The prompt ends on the first heading; a model that continues from it may not repeat it.
        const summary = SummaryPrompt.restoreOpening(reply.right)
        const verdict = QualityGate.check(summary, { agentic: request.agentic })
        if (Either.isLeft(verdict)) {
          gate.push(verdict.left.reason)
          return Either.left(`the summary was refused by the quality gate (${verdict.left.reason}: ${verdict.left.detail})`)
        }
        gate.push("passed")
        // A cached summary the gate refused is replaced, not kept as the first one stored.
        yield* cache.store(key, summary, Option.isSome(cached) ? { replacing: cached.value } : undefined)
        return Either.right(summary)
      })
      // Retry once; then an attended user chooses, an unattended session trims (SPEC R2.7).
      let outcome = yield* Effect.gen(function*() {
        const first = yield* attempt
        return Either.isLeft(first) ? yield* attempt : first
      }).pipe(
        Effect.timeoutTo({
          duration: summaryDeadline,
          onSuccess: (done) => done,
          onTimeout: () => {
            gate.push("summarizer: deadline")
            return Either.left(`the summariser did not finish within the checkpoint's deadline of ${Duration.format(summaryDeadline)}`)
          }
        })
      )
      let asked = 0
      while (Either.isLeft(outcome) && asked < maxAskedRetries && (yield* attention.attended)) {
        asked++
        const choice = yield* attention.choose(`Compaction of session ${sessionId}: ${outcome.left}. Retry, or trim the oldest turns?`)
        if (choice === "trim") break
        outcome = yield* attempt
      }
      return Either.match(outcome, {
        onLeft: (reason) => ({ _tag: "Trim", reason, calls, gate }) as const,
        onRight: (text) => ({ _tag: "Summary", text, cacheHit: false, calls, gate }) as const
      })
    })

  /** What a compaction that waited for another's summary reports: a summary it did not pay for, or the same trim. */
  const shared = (outcome: SummaryOutcome): SummaryOutcome =>
    outcome._tag === "Summary"
      ? { _tag: "Summary", text: outcome.text, cacheHit: true, calls: 0, gate: ["passed"] }
      : { _tag: "Trim", reason: outcome.reason, calls: 0, gate: [] }

  /** The summary of a request, made once however many compactions ask for it at the same time. */
  const summarizeOnce = (request: SummaryRequest, sessionId: string): Effect.Effect<SummaryOutcome> =>
    Effect.suspend(() => {
      const key: SummaryCache.Key = {
        namespace: request.namespace,
        schemaVersion: SummaryCache.schemaVersion,
        model: request.model,
        request: `${request.system}\n\n${request.prompt}`
      }
      const digest = SummaryCache.digest(key)
      const running = inFlight.get(digest)
      if (running !== undefined) {
        return Deferred.await(running).pipe(
          Effect.map(shared),
          // The compaction making it was interrupted: this one makes it instead.
          Effect.catchAllCause((cause) => Cause.isInterruptedOnly(cause) ? summarizeOnce(request, sessionId) : Effect.failCause(cause))
        )
      }
      // Made and registered in the same step as the lookup above, so no second compaction slips in between.
      const made = Deferred.unsafeMake<SummaryOutcome>(FiberId.none)
      inFlight.set(digest, made)
      return summarizeSpan(request, sessionId, key).pipe(
        Effect.onExit((exit) => Effect.zipRight(Effect.sync(() => inFlight.delete(digest)), Deferred.done(made, exit)))
      )
    })

  /**
   * The facts the summary does not mention. An id must appear as a whole word
   * (`tx_ab12` is not mentioned by `tx_ab123`), looked up in the summary's words
   * at once: a long history has thousands of ids. Paths must appear exactly.
   */
  const missingFrom = (summary: string | undefined, facts: ReadonlyArray<string>): ReadonlyArray<string> => {
    if (summary === undefined) return []
    let words: ReadonlySet<string> | undefined
    return facts.filter((fact) => {
      if (!wordLike.test(fact)) return !summary.includes(fact)
      words ??= new Set(summary.match(summaryWords))
      return !words.has(fact)
    })
  }

  const compact = (input: CompactNowInput & OverflowInput, cause: "trigger" | "overflow" | "manual", lostSaves = 0): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.gen(function*() {
      const { sessionId, transcript } = input
      const settings = Settings.clamp(yield* settingsService.current)
      const overflowLimit = cause === "overflow" ? input.overflow?.limit : undefined
      const window = overflowLimit === undefined ? input.contextWindow : Math.min(input.contextWindow, overflowLimit)
      const session = sessionCache(sessionId)
      const tokens = tokensOf(session)
      const state = yield* Effect.mapError(store.load(sessionId), storeError(sessionId))
      const prefix = systemPrefix(transcript)
      const firstUser = Transcript.firstUserMessage(transcript)
      // A boundary the transcript no longer holds (a rewritten history) starts over from the whole transcript.
      const knownBoundary = boundaryIndex(transcript, state, session)
      const knownPinned = Option.match(state, { onNone: () => [], onSome: (s) => pinnedIndices(transcript, s.pinnedIds, session) })
      const restored = knownBoundary !== undefined && knownPinned !== undefined
      const block = restored ? Option.getOrUndefined(Option.map(state, (s) => s.block)) : undefined
      const from = restored ? knownBoundary : prefix
      const oldPinned = restored ? knownPinned : []
      const view = viewOf(transcript, prefix, block, oldPinned, from)
      const counted = view.reduce((sum, message) => sum + tokens(message), 0)
      const viewTokens = cause === "trigger" && input.reportedContextTokens !== undefined ? input.reportedContextTokens : counted
      // An overflow: the provider saw at least the window (its own count, when it gave one). Where the engine's
      // count says less, the trigger and the reserve shrink by the ratio, so a small session's first overflow compacts.
      const providerTokens = cause === "overflow" ? Math.max(input.overflow?.promptTokens ?? window, window) : counted
      const believed = counted > 0 && counted < providerTokens ? counted / providerTokens : 1
      const trigger = Math.floor(Budget.trigger(settings, window) * believed)
      const fit = { trigger, replyReserve: Math.floor(settings.replyReserveTokens * believed), tokens }
      const verify = (candidate: Transcript.Transcript, withFit: boolean) =>
        ViewCheck.check(candidate, { firstUserMessage: firstUser, ...(withFit ? { fit } : {}) })

      if (cause === "trigger" && !Budget.needsCompaction(viewTokens, trigger, settings)) {
        const violations = verify(view, false)
        if (violations.length > 0) {
          return yield* new CompactionError({ reason: "invalid-view", sessionId, message: violations.map((v) => v.detail).join("; "), violations })
        }
        return { view, tokens: viewTokens, trigger, compacted: Option.none() } satisfies Checkpoint
      }

      const keep = Budget.keepBudget(settings, trigger)
      const starts = Boundary.turnStarts(transcript)
      const candidates = starts.filter((start) => start > from)
      // A manual compaction keeps verbatim only the newest user message and what follows it (else the
      // newest turn): asked to compact, it compacts what it can.
      const newestUserStart = cause === "manual" ? starts.findLast((start) => start > from && transcript[start]!._tag === "User") : undefined
      let boundary = newestUserStart ?? Boundary.find(transcript, from, cause === "manual" ? 0 : keep, tokens, starts)
      if (boundary === undefined) {
        return yield* new CompactionError({
          reason: cause === "overflow" ? "no-progress" : "cannot-fit",
          sessionId,
          message: `no turn starts after message ${transcript[from]?.id ?? from}: there is nothing older to compact without splitting a turn or moving a pending approval`
        })
      }

      // A staged approval still waiting for its answer stays verbatim after the block, with its call.
      const pending = Boundary.pendingApprovals(transcript)
      const pinnedFor = (cut: number): ReadonlyArray<number> =>
        Array.from(
          new Set(pending.filter((o) => o.callIndex < cut).flatMap((o) => Boundary.obligationGroup(transcript, o.callIndex, o.toolCallId)))
        ).sort((a, b) => a - b)
      /** The messages a cut moves out of the view: pinned ones now released, and the new span. */
      const movedOutAt = (cut: number): Transcript.Transcript => {
        const pinned = new Set(pinnedFor(cut))
        const released = oldPinned.filter((index) => !pinned.has(index)).map((index) => transcript[index]!)
        const fresh = transcript.slice(from, cut).filter((_, offset) => !pinned.has(from + offset))
        return [...released, ...fresh]
      }
      const spanFor = (cut: number): Transcript.Transcript => [...(block === undefined ? [] : [block]), ...movedOutAt(cut)]
      const { request, ruleTotals } = SummaryPrompt.buildWithTotals(spanFor(boundary), {
        model: settings.summarizerModel ?? input.model,
        maxTokens: settings.summaryMaxTokens,
        policies: options.policies,
        envelopeCapChars: settings.envelopeCapChars,
        maxSpanChars: Budget.summaryInputChars(settings, trigger),
        instructions: cause === "manual" ? input.instructions : undefined,
        systemPrompt: options.summarizerSystemPrompt
      })
      const outcome = yield* summarizeOnce(request, sessionId)
      const compactions = Option.match(state, { onNone: () => 1, onSome: (s) => s.compactions + 1 })

      // The working state of the history up to a cut: the persisted state's, extended by the span from
      // the old boundary, so a compaction late in a long session reads only what it adds. A fallback builds
      // the block again at the same cut: the state is extended once per cut.
      const earlier = restored ? Option.getOrUndefined(Option.flatMap(state, (s) => Option.fromNullable(s.workingState))) : undefined
      const extendFrom = earlier === undefined ? prefix : from
      /** What the history up to a cut says of the calls an earlier state left open: their results, their approvals. */
      const historyAt = (cut: number): WorkingState.History => {
        const results = new Map<string, Transcript.ToolResult>()
        for (let index = prefix; index < cut; index++) {
          const message = transcript[index]!
          if (message._tag === "ToolResult" && !results.has(message.toolCallId)) results.set(message.toolCallId, message)
        }
        const stillPending = new Set(Boundary.pendingApprovals(transcript.slice(prefix, cut)).map((obligation) => obligation.toolCallId))
        return { stillPending, resultOf: (id) => results.get(id) }
      }
      const workingStates = new Map<number, WorkingState.WorkingState>()
      const workingStateAt = (cut: number): WorkingState.WorkingState => {
        const known = workingStates.get(cut)
        if (known !== undefined) return known
        const span = transcript.slice(extendFrom, cut)
        const working = earlier === undefined ? WorkingState.extract(span) : WorkingState.extend(earlier, span, historyAt(cut))
        workingStates.set(cut, working)
        return working
      }
      // Where a cut's moved-out messages are archived: named by what they are, so that a worker that loses
      // the race to save never overwrites the winner's archive with a different span.
      let archiveWritable = Option.isSome(archive)
      const archivePathAt = (cut: number): string | undefined =>
        archiveWritable && Option.isSome(archive)
          ? archive.value.locate({ sessionId, compaction: compactions, messages: movedOutAt(cut) })
          : undefined
      const build = (cut: number, summary: string | undefined, fallbackReason: string | undefined) => {
        const archivePath = archivePathAt(cut)
        const pinned = pinnedFor(cut)
        const history = transcript.slice(prefix, cut)
        const working = workingStateAt(cut)
        const facts = [...working.protectedIds, ...working.filesWritten, ...working.unfinishedCalls]
        const missing = missingFrom(summary, Array.from(new Set(facts)))
        const rendered = CompactedBlock.render({
          summary,
          archivePath,
          fallbackReason,
          workingState: WorkingState.render(working, { maxTokens: Budget.workingStateBudget(trigger), tokens: tokenizer.count }),
          missingFromSummary: missing,
          firstUserMessage: firstUser,
          userMessages: history.filter((m): m is Transcript.UserMessage => m._tag === "User" && m.id !== firstUser?.id),
          userMessageBudget: Budget.userMessageBudget(trigger),
          pinnedMessageTokens: Budget.pinnedMessageTokens,
          tokens: tokenizer.count,
          replaced: { firstId: transcript[prefix]?.id ?? "", lastId: transcript[cut - 1]?.id ?? "", count: cut - prefix - pinned.length }
        })
        const compactedBlock = new Transcript.CompactedBlock({
          id: `compacted-${compactions}`,
          content: rendered.content,
          firstReplacedId: transcript[prefix]?.id ?? "",
          lastReplacedId: transcript[cut - 1]?.id ?? ""
        })
        return { block: compactedBlock, missing, pinned, rendered, view: viewOf(transcript, prefix, compactedBlock, pinned, cut) }
      }

      // The summary's view, if it fits; else the trim fallback, cutting later turns until the view fits.
      let fallbackReason = outcome._tag === "Trim" ? outcome.reason : undefined
      let built = build(boundary, outcome._tag === "Summary" ? outcome.text : undefined, fallbackReason)
      if (outcome._tag === "Summary" && verify(built.view, true).length > 0) {
        fallbackReason = "the summary left the view over the trigger"
        built = build(boundary, undefined, fallbackReason)
      }
      for (const later of candidates.filter((start) => start > boundary!)) {
        if (verify(built.view, true).every((v) => v.kind !== "over-trigger")) break
        boundary = later
        fallbackReason ??= "the view did not fit the trigger"
        built = build(boundary, undefined, fallbackReason)
      }
      // After an overflow the scaled trigger is a goal: a view smaller than the refused one is still given (the guard below).
      const violations = verify(built.view, true).filter((v) => cause === "trigger" || v.kind !== "over-trigger")
      if (violations.length > 0) {
        return yield* new CompactionError({
          reason: violations.some((v) => v.kind === "over-trigger") ? "cannot-fit" : "invalid-view",
          sessionId,
          message: violations.map((v) => v.detail).join("; "),
          violations
        })
      }
      let tokensAfter = built.view.reduce((sum, message) => sum + tokens(message), 0)
      if (cause === "overflow" && tokensAfter >= counted) {
        return yield* new CompactionError({
          reason: "no-progress",
          sessionId,
          message: `compaction after a context overflow left ${tokensAfter} tokens of ${counted}: stopping instead of looping`
        })
      }
      const usedSummary = fallbackReason === undefined && outcome._tag === "Summary"
      // Written before the state that names it; a failed write costs the block its path, not the compaction.
      if (Option.isSome(archive)) {
        const written = yield* Effect.either(archive.value.write({ sessionId, compaction: compactions, messages: movedOutAt(boundary) }))
        if (Either.isLeft(written)) {
          yield* Effect.logWarning(`context-compressor: the transcript archive of session ${sessionId} could not be written (${written.left.path}: ${written.left.reason}); the block names the session's transcript instead`)
          archiveWritable = false
          built = build(boundary, usedSummary && outcome._tag === "Summary" ? outcome.text : undefined, fallbackReason)
          tokensAfter = built.view.reduce((sum, message) => sum + tokens(message), 0)
        }
      }
      const archivePath = archivePathAt(boundary)
      const updatedAt = yield* Clock.currentTimeMillis
      const saved = yield* Effect.mapError(
        store.saveIfCurrent(
          new CompactionState({
            sessionId,
            compactions,
            block: built.block,
            boundaryId: transcript[boundary]!.id,
            pinnedIds: built.pinned.map((index) => transcript[index]!.id),
            ...(archivePath === undefined ? {} : { archivePath }),
            workingState: workingStateAt(boundary),
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
      session.boundaryHint = boundary
      session.pinnedHint = built.pinned
      const report = new Compacted({
        sessionId,
        cause,
        ...(request.instructions === undefined ? {} : { instructions: request.instructions }),
        compactions,
        tokensBefore: viewTokens,
        tokensAfter,
        trigger,
        boundary: { index: boundary, id: transcript[boundary]!.id },
        replaced: { firstId: built.block.firstReplacedId, lastId: built.block.lastReplacedId, count: boundary - prefix - built.pinned.length },
        cacheHit: outcome._tag === "Summary" && outcome.cacheHit,
        summarizerCalls: outcome.calls,
        gate: [...outcome.gate],
        fallback: usedSummary ? "none" : "trim",
        summaryChars: usedSummary && outcome._tag === "Summary" ? outcome.text.length : 0,
        missingFromSummary: [...built.missing],
        userMessagesOmitted: built.rendered.userMessagesOmitted,
        rules: ruleTotals,
        ...(archivePath === undefined ? {} : { archivePath })
      })
      yield* PubSub.publish(pubsub, report)
      return { view: built.view, tokens: tokensAfter, trigger, compacted: Option.some(report) } satisfies Checkpoint
    })

  return Compactor.of({
    checkpoint: (input) => compact(input, "trigger"),
    contextOverflow: (input) => compact(input, "overflow"),
    compactNow: (input) => compact(input, "manual"),
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
