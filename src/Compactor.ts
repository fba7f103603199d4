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
import * as Budget from "./Budget.js"
import * as CompactionPlan from "./internal/CompactionPlan.js"
import type * as Policy from "./Policy.js"
import * as QualityGate from "./QualityGate.js"
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
  /** What entered compaction: the trigger, or a context-overflow error of the main model. */
  cause: Schema.Literal("trigger", "overflow"),
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
   * says, and fail instead of looping when that does not shrink the view.
   */
  readonly contextOverflow: (input: CheckpointInput) => Effect.Effect<Checkpoint, CompactionError>
  /** Every compaction, as it happens, from when the stream is run. */
  readonly events: Stream.Stream<Compacted>
  /** A queue of every compaction from now on, for as long as the scope lasts. */
  readonly subscribe: Effect.Effect<Queue.Dequeue<Compacted>, never, Scope.Scope>
}

/**
 * The compaction engine service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Compactor extends Context.Tag("context-compressor/Compactor")<Compactor, Service>() {}

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
   * How many times in a row a checkpoint may find that another worker saved
   * the session first before it fails with reason `"store"` (default 5).
   */
  readonly maxLostSaves?: number
}

/** Per-message token overhead of the chat format (role, separators). */
const messageOverhead = 4

interface SessionCache extends CompactionPlan.Hints {
  /** Token counts by message id, with the text length they were counted for. */
  readonly counts: Map<string, { readonly length: number; readonly tokens: number }>
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
      let outcome = yield* attempt
      if (Either.isLeft(outcome)) outcome = yield* attempt
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

  const compact = (input: CheckpointInput, cause: "trigger" | "overflow", lostSaves = 0): Effect.Effect<Checkpoint, CompactionError> =>
    Effect.gen(function*() {
      const { sessionId, transcript } = input
      const settings = Settings.clamp(yield* settingsService.current)
      const trigger = Budget.trigger(settings, input.contextWindow)
      const session = sessionCache(sessionId)
      const tokens = tokensOf(session)
      const state = yield* Effect.mapError(store.load(sessionId), storeError(sessionId))
      const firstUser = Transcript.firstUserMessage(transcript)
      const restored = CompactionPlan.restore(transcript, Option.getOrUndefined(state), session)
      const view = CompactionPlan.restoredView(transcript, restored)
      const counted = view.reduce((sum, message) => sum + tokens(message), 0)
      const viewTokens = cause === "trigger" && input.reportedContextTokens !== undefined ? input.reportedContextTokens : counted
      const fit = { trigger, replyReserve: settings.replyReserveTokens, tokens }
      const verify = (candidate: Transcript.Transcript, withFit: boolean) =>
        ViewCheck.check(candidate, { firstUserMessage: firstUser, ...(withFit ? { fit } : {}) })

      if (cause === "trigger" && !Budget.needsCompaction(viewTokens, trigger, settings)) {
        const violations = verify(view, false)
        if (violations.length > 0) {
          return yield* new CompactionError({ reason: "invalid-view", sessionId, message: violations.map((v) => v.detail).join("; "), violations })
        }
        return { view, tokens: viewTokens, trigger, compacted: Option.none() } satisfies Checkpoint
      }

      const compactions = Option.match(state, { onNone: () => 1, onSome: (s) => s.compactions + 1 })
      const plan = CompactionPlan.plan({
        transcript,
        restored,
        compactions,
        trigger,
        keepBudget: Budget.keepBudget(settings, trigger),
        tokens,
        count: tokenizer.count
      })
      const boundary = plan.boundary
      if (boundary === undefined) {
        return yield* new CompactionError({
          reason: cause === "overflow" ? "no-progress" : "cannot-fit",
          sessionId,
          message: `no turn starts after message ${transcript[restored.from]?.id ?? restored.from}: there is nothing older to compact without splitting a turn or moving a pending approval`
        })
      }

      const { request, ruleTotals } = SummaryPrompt.buildWithTotals(plan.spanFor(boundary), {
        model: settings.summarizerModel ?? input.model,
        maxTokens: settings.summaryMaxTokens,
        policies: options.policies,
        envelopeCapChars: settings.envelopeCapChars,
        maxSpanChars: Budget.summaryInputChars(settings, trigger)
      })
      const outcome = yield* summarizeOnce(request, sessionId)

      // Where a cut's moved-out messages are archived: named by what they are, so that a worker that loses
      // the race to save never overwrites the winner's archive with a different span.
      let archiveWritable = Option.isSome(archive)
      const archivePathAt = (cut: number): string | undefined =>
        archiveWritable && Option.isSome(archive)
          ? archive.value.locate({ sessionId, compaction: compactions, messages: plan.movedOutAt(cut) })
          : undefined

      const fitted = CompactionPlan.fit(plan, {
        boundary,
        summary: outcome._tag === "Summary" ? outcome.text : undefined,
        trimReason: outcome._tag === "Trim" ? outcome.reason : undefined,
        archivePathAt,
        check: (candidate) => verify(candidate, true)
      })
      const { fallbackReason } = fitted
      let built = fitted.built
      const cut = fitted.boundary
      const violations = verify(built.view, true)
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
        const written = yield* Effect.either(archive.value.write({ sessionId, compaction: compactions, messages: plan.movedOutAt(cut) }))
        if (Either.isLeft(written)) {
          yield* Effect.logWarning(`context-compressor: the transcript archive of session ${sessionId} could not be written (${written.left.path}: ${written.left.reason}); the block names the session's transcript instead`)
          archiveWritable = false
          built = plan.build(cut, { summary: usedSummary && outcome._tag === "Summary" ? outcome.text : undefined, fallbackReason, archivePath: undefined })
          tokensAfter = built.view.reduce((sum, message) => sum + tokens(message), 0)
        }
      }
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
      const report = new Compacted({
        sessionId,
        cause,
        compactions,
        tokensBefore: viewTokens,
        tokensAfter,
        trigger,
        boundary: { index: cut, id: transcript[cut]!.id },
        replaced: { firstId: built.block.firstReplacedId, lastId: built.block.lastReplacedId, count: cut - restored.prefix - built.pinned.length },
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
