/**
 * The summary policy of a compaction (SPEC R2.6, R2.7): the cache first (a
 * cached summary is checked by the gate again), then the summariser, retried
 * once; an attended session is then asked Retry or Trim, an unattended one
 * trims; all within the checkpoint's deadline. A summary several compactions
 * ask for at once is made once: the others wait for it and share it.
 *
 * Written once for both faces (docs/effect4.md): a program over the face's
 * effects (`Fx`) and the structural shapes of its services.
 *
 * @since 0.1.0
 */
import * as Fx from "../Fx.js"
import type * as Result from "../Result.js"
import type * as SummaryKey from "../services/SummaryKey.js"

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
 * A summariser request as the policy reads it (each face's `SummaryRequest`).
 *
 * @since 0.1.0
 * @category models
 */
export interface RequestShape extends SummaryKey.RequestShape {
  readonly agentic: boolean
}

/**
 * The services the policy asks, as each face's `Service`s are shaped.
 *
 * @since 0.1.0
 * @category models
 */
export interface Services<Request extends RequestShape> {
  readonly summarizer: {
    /** Fails with the face's `SummarizerError`. */
    readonly summarize: (request: Request) => Fx.Op<string>
    readonly summarizeWithUsage?:
      | ((request: Request) => Fx.Op<Reply>)
      | undefined
    /** Who it is, as the cache key names it (absent: `SummaryKey.anonymous`). */
    readonly identity?: SummaryKey.Identity | undefined
  }
  readonly cache: {
    readonly lookup: (
      key: SummaryKey.Key
    ) => Fx.Op<{ readonly _tag: "Some"; readonly value: string } | { readonly _tag: "None" }>
    readonly store: (
      key: SummaryKey.Key,
      summary: string,
      options?: { readonly replacing?: string | undefined }
    ) => Fx.Op<void>
  }
  readonly attention: {
    readonly attended: Fx.Op<boolean>
    readonly choose: (problem: string) => Fx.Op<"retry" | "trim">
  }
}

/**
 * What the policy works with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy<Request extends RequestShape> extends Services<Request> {
  readonly fx: Fx.Fx
  /** How many times an attended user may choose Retry. */
  readonly maxAskedRetries: number
  /** The deadline of the automatic attempts, in milliseconds, and as the face writes a duration. */
  readonly summaryDeadline: { readonly millis: number; readonly text: string }
  /** A reply as the summary it stands for (the prompt ends on the first heading, which a model may not repeat). */
  readonly restoreOpening: (reply: string) => string
  /** The quality gate: the summary, or why it is refused. */
  readonly gate: (
    summary: string,
    options: { readonly agentic: boolean }
  ) => Result.Result<string, { readonly reason: string; readonly detail: string }>
  /** The cache key of a request, and its digest (the face's, which may remember it). */
  readonly keyOf: (request: Request) => SummaryKey.Key
  readonly digest: (key: SummaryKey.Key) => string
}

/** A summariser's reply, as both faces' `Summarizer.Reply` are shaped. */
interface Reply {
  readonly text: string
  readonly usage?:
    | { readonly inputTokens?: number | undefined; readonly cachedInputTokens?: number | undefined }
    | undefined
}

/** Why a summariser call failed, as both faces' `SummarizerError` say it. */
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
): (request: Request, sessionId: string) => Fx.Op<SummaryOutcome> => {
  const { fx } = policy
  // Summaries being made, by cache digest: a compaction asking for one already in flight waits for it.
  const inFlight = Fx.makeInFlight<SummaryOutcome>(fx)

  function* summarizeSpan(request: Request, sessionId: string, key: SummaryKey.Key): Fx.Program<SummaryOutcome> {
    const gate: Array<string> = []
    let calls = 0
    let usage: { inputTokens: number; cachedInputTokens: number } | undefined
    const { summarizeWithUsage } = policy.summarizer
    const ask = (request: Request) =>
      summarizeWithUsage === undefined
        ? fx.gen(function*(): Fx.Program<Reply> {
          return { text: yield* policy.summarizer.summarize(request) }
        })
        : summarizeWithUsage(request)
    const cached = Fx.optionValue(yield* policy.cache.lookup(key))
    if (cached !== undefined && policy.gate(cached, { agentic: request.agentic })._tag === "Ok") {
      gate.push("passed")
      return { _tag: "Summary", text: cached, cacheHit: true, calls, gate }
    }
    const attempt = fx.gen(function*(): Fx.Program<Result.Result<string, string>> {
      calls++
      const reply = yield* fx.result<Reply, SummarizerFailure>(ask(request))
      if (reply._tag === "Err") {
        gate.push(`summarizer: ${reply.error.reason}`)
        return { _tag: "Err", error: `the summariser failed (${reply.error.reason}: ${reply.error.message})` }
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
        return {
          _tag: "Err",
          error: `the summary was refused by the quality gate (${verdict.error.reason}: ${verdict.error.detail})`
        }
      }
      gate.push("passed")
      // A cached summary the gate refused is replaced, not kept as the first one stored.
      yield* policy.cache.store(key, summary, cached !== undefined ? { replacing: cached } : undefined)
      return { _tag: "Ok", value: summary }
    })
    // Retry once; then an attended user chooses, an unattended session trims (SPEC R2.7).
    const automatic = yield* fx.timeout(
      fx.gen(function*() {
        const first = yield* attempt
        return first._tag === "Err" ? yield* attempt : first
      }),
      policy.summaryDeadline.millis
    )
    let outcome: Result.Result<string, string>
    if (automatic._tag === "Done") outcome = automatic.value
    else {
      gate.push("summarizer: deadline")
      outcome = {
        _tag: "Err",
        error: `the summariser did not finish within the checkpoint's deadline of ${policy.summaryDeadline.text}`
      }
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
  }

  /** What a compaction that waited for another's summary reports: a summary it did not pay for, or the same trim. */
  const shared = (outcome: SummaryOutcome): SummaryOutcome =>
    outcome._tag === "Summary"
      ? { _tag: "Summary", text: outcome.text, cacheHit: true, calls: 0, gate: ["passed"] }
      : { _tag: "Trim", reason: outcome.reason, calls: 0, gate: [] }

  return (request, sessionId) =>
    fx.gen(function*() {
      const key = policy.keyOf(request)
      return yield* inFlight(policy.digest(key), () => fx.gen(() => summarizeSpan(request, sessionId, key)), shared)
    })
}
