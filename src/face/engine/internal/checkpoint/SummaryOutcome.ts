/**
 * The summary policy of a compaction (SPEC R2.6, R2.7): the cache first (a
 * cached summary is checked by the gate again), then the summariser, retried
 * once; an attended session is then asked Retry or Trim, an unattended one
 * trims; all within the checkpoint's deadline. A summary several compactions
 * ask for at once is made once: the others wait for it and share it
 * (`InFlight`).
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Result from "../../../../core/Result.js"
import type * as SummaryKey from "../../../../core/services/SummaryKey.js"
import * as InFlight from "./InFlight.js"

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
 * A summariser request as the policy reads it (`SummaryRequest`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestShape extends SummaryKey.RequestShape {
  readonly agentic: boolean
}

/**
 * The services the policy asks, as their `Service`s are shaped.
 *
 * @since 0.1.0
 * @category models
 */
export interface Services<Request extends RequestShape> {
  readonly summarizer: {
    /** Fails with its `SummarizerError`. */
    readonly summarize: (request: Request) => Effect.Effect<string, SummarizerFailure>
    readonly summarizeWithUsage?:
      | ((request: Request) => Effect.Effect<Reply, SummarizerFailure>)
      | undefined
    /** Who it is, as the cache key names it (absent: `SummaryKey.anonymous`). */
    readonly identity?: SummaryKey.Identity | undefined
  }
  readonly cache: {
    readonly lookup: (key: SummaryKey.Key) => Effect.Effect<Option.Option<string>>
    readonly store: (
      key: SummaryKey.Key,
      summary: string,
      options?: { readonly replacing?: string | undefined }
    ) => Effect.Effect<void>
  }
  readonly attention: {
    readonly attended: Effect.Effect<boolean>
    readonly choose: (problem: string) => Effect.Effect<"retry" | "trim">
  }
}

/**
 * What the policy works with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy<Request extends RequestShape> extends Services<Request> {
  /** How many times an attended user may choose Retry. */
  readonly maxAskedRetries: number
  /** The deadline of the automatic attempts, in milliseconds, and as `Duration.format` writes it. */
  readonly summaryDeadline: { readonly millis: number; readonly text: string }
  /** A reply as the summary it stands for (the prompt ends on the first heading, which a model may not repeat). */
  readonly restoreOpening: (reply: string) => string
  /** The quality gate: the summary, or why it is refused. */
  readonly gate: (
    summary: string,
    options: { readonly agentic: boolean }
  ) => Result.Result<string, { readonly reason: string; readonly detail: string }>
  /** The cache key of a request, and its digest (`SummaryCache.digest`, which may remember it). */
  readonly keyOf: (request: Request) => SummaryKey.Key
  readonly digest: (key: SummaryKey.Key) => string
}

/** A summariser's reply, as `Summarizer.Reply` is shaped. */
interface Reply {
  readonly text: string
  readonly usage?:
    | { readonly inputTokens?: number | undefined; readonly cachedInputTokens?: number | undefined }
    | undefined
}

/** Why a summariser call failed, as `SummarizerError` says it. */
interface SummarizerFailure {
  readonly reason: string
  readonly message: string
}

/**
 * The summary of a request, made once however many compactions ask for it
 * at the same time: a function of the request and the session it is for.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Request extends RequestShape>(
  policy: Policy<Request>
): (request: Request, sessionId: string) => Effect.Effect<SummaryOutcome> => {
  // Summaries being made, by cache digest: a compaction asking for one already in flight waits for it.
  const inFlight = InFlight.make<SummaryOutcome, never>()

  const summarizeSpan = (request: Request, sessionId: string, key: SummaryKey.Key): Effect.Effect<SummaryOutcome> =>
    Effect.gen(function*() {
      const gate: Array<string> = []
      let calls = 0
      let usage: { inputTokens: number; cachedInputTokens: number } | undefined
      const { summarizeWithUsage } = policy.summarizer
      const ask = (request: Request): Effect.Effect<Reply, SummarizerFailure> =>
        summarizeWithUsage === undefined
          ? Effect.map(policy.summarizer.summarize(request), (text) => ({ text }))
          : summarizeWithUsage(request)
      const cached = Option.getOrUndefined(yield* policy.cache.lookup(key))
      if (cached !== undefined && policy.gate(cached, { agentic: request.agentic })._tag === "Ok") {
        gate.push("passed")
        return { _tag: "Summary", text: cached, cacheHit: true, calls, gate }
      }
      const attempt = Effect.gen(function*() {
        calls++
        const reply = yield* Effect.match(ask(request), {
          onSuccess: (value) => ({ _tag: "Ok", value } as const),
          onFailure: (error) => ({ _tag: "Err", error } as const)
        })
        if (reply._tag === "Err") {
          gate.push(`summarizer: ${reply.error.reason}`)
          return Err(`the summariser failed (${reply.error.reason}: ${reply.error.message})`)
        }
        // The prompt ends on the first heading; a model that continues from it may not repeat it.
        const reported = reply.value.usage
        if (reported?.inputTokens !== undefined || reported?.cachedInputTokens !== undefined) {
          usage = {
            inputTokens: (usage?.inputTokens ?? 0) + (reported.inputTokens ?? 0),
            cachedInputTokens: (usage?.cachedInputTokens ?? 0) + (reported.cachedInputTokens ?? 0)
          }
        }
        const summary = policy.restoreOpening(reply.value.text)
        const verdict = policy.gate(summary, { agentic: request.agentic })
        if (verdict._tag === "Err") {
          gate.push(verdict.error.reason)
          return Err(`the summary was refused by the quality gate (${verdict.error.reason}: ${verdict.error.detail})`)
        }
        gate.push("passed")
        // A cached summary the gate refused is replaced, not kept as the first one stored.
        yield* policy.cache.store(key, summary, cached !== undefined ? { replacing: cached } : undefined)
        return Ok(summary)
      })
      // Retry once; then an attended user chooses, an unattended session trims (SPEC R2.7).
      const automatic = yield* Effect.timeoutOption(
        Effect.flatMap(attempt, (first) => first._tag === "Err" ? attempt : Effect.succeed(first)),
        policy.summaryDeadline.millis
      )
      let outcome: Result.Result<string, string>
      if (Option.isSome(automatic)) outcome = automatic.value
      else {
        gate.push("summarizer: deadline")
        outcome = Err(
          `the summariser did not finish within the checkpoint's deadline of ${policy.summaryDeadline.text}`
        )
      }
      let asked = 0
      while (outcome._tag === "Err" && asked < policy.maxAskedRetries && (yield* policy.attention.attended)) {
        asked++
        const choice = yield* policy.attention.choose(
          `Compaction of session ${sessionId}: ${outcome.error}. Retry, or trim the oldest turns?`
        )
        if (choice === "trim") break
        outcome = yield* attempt
      }
      return outcome._tag === "Err"
        ? { _tag: "Trim", reason: outcome.error, calls, gate, usage }
        : { _tag: "Summary", text: outcome.value, cacheHit: false, calls, gate, usage }
    })

  /** What a compaction that waited for another's summary reports: a summary it did not pay for, or the same trim. */
  const shared = (outcome: SummaryOutcome): SummaryOutcome =>
    outcome._tag === "Summary"
      ? { _tag: "Summary", text: outcome.text, cacheHit: true, calls: 0, gate: ["passed"] }
      : { _tag: "Trim", reason: outcome.reason, calls: 0, gate: [] }

  return (request, sessionId) =>
    Effect.suspend(() => {
      const key = policy.keyOf(request)
      return inFlight(policy.digest(key), () => summarizeSpan(request, sessionId, key), shared)
    })
}

const Ok = (value: string): Result.Result<string, string> => ({ _tag: "Ok", value })

const Err = (error: string): Result.Result<string, string> => ({ _tag: "Err", error })
