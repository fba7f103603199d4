/**
 * The summary policy of a compaction (SPEC R2.6, R2.7): the cache first (a
 * cached summary is checked by the gate again), then the summariser, retried
 * once; an attended session is then asked Retry or Trim, an unattended one
 * trims; all within the checkpoint's deadline. A summary several compactions
 * ask for at once is made once: the others wait for it and share it.
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberId from "effect/FiberId"
import * as Option from "effect/Option"
import type * as Attention from "../../../services/Attention.js"
import type { SummaryRequest } from "../../../services/Summarizer.js"
import type * as Summarizer from "../../../services/Summarizer.js"
import * as SummaryCache from "../../../services/SummaryCache.js"
import * as QualityGate from "../../QualityGate.js"

/**
 * What became of a compaction's summary: a summary that passed the gate
 * (made now, cached, or shared with a concurrent compaction), or a trim.
 *
 * @since 0.1.0
 * @category models
 */
export type SummaryOutcome =
  | {
    readonly _tag: "Summary"
    readonly text: string
    readonly cacheHit: boolean
    readonly calls: number
    readonly gate: ReadonlyArray<string>
    readonly usage?: Usage | undefined
  }
  | {
    readonly _tag: "Trim"
    readonly reason: string
    readonly calls: number
    readonly gate: ReadonlyArray<string>
    readonly usage?: Usage | undefined
  }

/**
 * The input tokens the provider reported over a compaction's summariser
 * calls, and of them those its prompt cache served; absent when no call reported them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Usage {
  readonly inputTokens: number
  readonly cachedInputTokens: number
}

/**
 * What the policy works with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly summarizer: Summarizer.Service
  readonly cache: SummaryCache.Service
  readonly attention: Attention.Service
  /** How many times an attended user may choose Retry. */
  readonly maxAskedRetries: number
  /** The deadline of the automatic attempts. */
  readonly summaryDeadline: Duration.Duration
  /** A reply as the summary it stands for (the prompt ends on the first heading, which a model may not repeat). */
  readonly restoreOpening: (reply: string) => string
}

/**
 * The summary of a request, made once however many compactions ask for it
 * at the same time: a function of the request and the session it is for.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (policy: Policy): (request: SummaryRequest, sessionId: string) => Effect.Effect<SummaryOutcome> => {
  // Summaries being made, by cache digest: a compaction asking for one already in flight waits for it.
  const inFlight = new Map<string, Deferred.Deferred<SummaryOutcome>>()

  const summarizeSpan = (
    request: SummaryRequest,
    sessionId: string,
    key: SummaryCache.Key
  ): Effect.Effect<SummaryOutcome> =>
    Effect.gen(function*() {
      const gate: Array<string> = []
      let calls = 0
      let usage: { inputTokens: number; cachedInputTokens: number } | undefined
      const ask = (request: SummaryRequest) =>
        policy.summarizer.summarizeWithUsage === undefined
          ? Effect.map(policy.summarizer.summarize(request), (text): Summarizer.Reply => ({ text }))
          : policy.summarizer.summarizeWithUsage(request)
      const cached = yield* policy.cache.lookup(key)
      if (Option.isSome(cached)) {
        const verdict = QualityGate.check(cached.value, { agentic: request.agentic })
        if (Either.isRight(verdict)) {
          gate.push("passed")
          return { _tag: "Summary", text: cached.value, cacheHit: true, calls, gate } as const
        }
      }
      const attempt = Effect.gen(function*() {
        calls++
        const reply = yield* Effect.either(ask(request))
        if (Either.isLeft(reply)) {
          gate.push(`summarizer: ${reply.left.reason}`)
          return Either.left(`the summariser failed (${reply.left.reason}: ${reply.left.message})`)
        }
        // The prompt ends on the first heading; a model that continues from it may not repeat it.
        const reported = reply.right.usage
        if (reported?.inputTokens !== undefined || reported?.cachedInputTokens !== undefined) {
          usage = {
            inputTokens: (usage?.inputTokens ?? 0) + (reported.inputTokens ?? 0),
            cachedInputTokens: (usage?.cachedInputTokens ?? 0) + (reported.cachedInputTokens ?? 0)
          }
        }
        const summary = policy.restoreOpening(reply.right.text)
        const verdict = QualityGate.check(summary, { agentic: request.agentic })
        if (Either.isLeft(verdict)) {
          gate.push(verdict.left.reason)
          return Either.left(
            `the summary was refused by the quality gate (${verdict.left.reason}: ${verdict.left.detail})`
          )
        }
        gate.push("passed")
        // A cached summary the gate refused is replaced, not kept as the first one stored.
        yield* policy.cache.store(key, summary, Option.isSome(cached) ? { replacing: cached.value } : undefined)
        return Either.right(summary)
      })
      // Retry once; then an attended user chooses, an unattended session trims (SPEC R2.7).
      let outcome = yield* Effect.gen(function*() {
        const first = yield* attempt
        return Either.isLeft(first) ? yield* attempt : first
      }).pipe(
        Effect.timeoutTo({
          duration: policy.summaryDeadline,
          onSuccess: (done) => done,
          onTimeout: () => {
            gate.push("summarizer: deadline")
            return Either.left(
              `the summariser did not finish within the checkpoint's deadline of ${
                Duration.format(policy.summaryDeadline)
              }`
            )
          }
        })
      )
      let asked = 0
      while (Either.isLeft(outcome) && asked < policy.maxAskedRetries && (yield* policy.attention.attended)) {
        asked++
        const choice = yield* policy.attention.choose(
          `Compaction of session ${sessionId}: ${outcome.left}. Retry, or trim the oldest turns?`
        )
        if (choice === "trim") break
        outcome = yield* attempt
      }
      return Either.match(outcome, {
        onLeft: (reason) => ({ _tag: "Trim", reason, calls, gate, usage }) as const,
        onRight: (text) => ({ _tag: "Summary", text, cacheHit: false, calls, gate, usage }) as const
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
      const key = SummaryCache.keyOf(request)
      const digest = SummaryCache.digest(key)
      const running = inFlight.get(digest)
      if (running !== undefined) {
        return Deferred.await(running).pipe(
          Effect.map(shared),
          // The compaction making it was interrupted: this one makes it instead.
          Effect.catchAllCause((cause) =>
            Cause.isInterruptedOnly(cause) ? summarizeOnce(request, sessionId) : Effect.failCause(cause)
          )
        )
      }
      // Made and registered in the same step as the lookup above, so no second compaction slips in between.
      const made = Deferred.unsafeMake<SummaryOutcome>(FiberId.none)
      inFlight.set(digest, made)
      return summarizeSpan(request, sessionId, key).pipe(
        Effect.onExit((exit) => Effect.zipRight(Effect.sync(() => inFlight.delete(digest)), Deferred.done(made, exit)))
      )
    })

  return summarizeOnce
}
