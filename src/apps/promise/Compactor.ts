/**
 * `createCompactor`: the engine started once (one `ManagedRuntime` over the
 * layers of `Engine`), its calls as promises, its compactions as listeners
 * and an async iterator.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import * as Adapter from "../../face/adapters/Adapter.js"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Installed from "../../face/adapters/Installed.js"
import * as EngineCompactor from "../../face/engine/Compactor.js"
import * as Recall from "../../face/engine/Recall.js"
import * as Reduce from "../../face/engine/Reduce.js"
import * as AttentionFiber from "../../face/layers/AttentionFiber.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as Engine from "./Engine.js"
import {
  CompactionError,
  type CompressorError,
  OptionError,
  RecallError,
  StateError,
  TranscriptError
} from "./Errors.js"
import { iteratorOver } from "./Events.js"
import type {
  CompactionReport,
  CompactOptions,
  Compactor,
  CompactResult,
  CreateOptions,
  Fallback,
  LadderStep,
  RecallPage,
  Repair
} from "./Models.js"
import { checkCompactOptions, checkCreateOptions, checkRecallOptions } from "./Options.js"

const formats: ReadonlyArray<string> = ["auto", ...Adapter.Format.literals]

const encodeCompacted = Schema.encodeSync(EngineCompactor.Compacted)
const encodeLadderStep = Schema.encodeSync(EngineCompactor.LadderStep)
const encodeRepair = Schema.encodeSync(EngineCompactor.Repair)
const ladderOf = (ladder: ReadonlyArray<EngineCompactor.LadderStep>): ReadonlyArray<LadderStep> =>
  ladder.map((step) => encodeLadderStep(step))
const repairsOf = (repairs: ReadonlyArray<EngineCompactor.Repair>): ReadonlyArray<Repair> =>
  repairs.map((repair) => encodeRepair(repair))
const reportOf = (compacted: EngineCompactor.Compacted): CompactionReport => ({
  ...encodeCompacted(compacted),
  ladder: ladderOf(compacted.ladder),
  repairs: repairsOf(compacted.repairs)
})

/** The Promise API's error of a document that was not compacted: unreadable, or no view. */
const rejectionOf = ({ problem }: CompactDocument.CompactDocumentError): TranscriptError | CompactionError =>
  problem._tag === "AdapterError"
    ? new TranscriptError(problem.format, problem.index, problem.reason)
    : new CompactionError(problem.reason, problem.sessionId, problem.message, problem.violations ?? [])

/**
 * The fallback a compaction's report tells of, if it fell back to a trim.
 *
 * @since 0.1.0
 * @category getters
 */
export const fallbackOf = (report: CompactionReport): Fallback | undefined =>
  report.fallback === "trim"
    ? { sessionId: report.sessionId, reason: report.fallbackReason ?? "no summary", gate: report.gate, report }
    : undefined

/**
 * The sentence of a fallback in a call's `warnings`.
 *
 * @since 0.1.0
 * @category getters
 */
export const warningOf = (fallback: Fallback): string =>
  `compaction ${fallback.report.compactions} of session ${fallback.sessionId} fell back to a trim: ${fallback.reason} (gate: ${
    fallback.gate.length === 0 ? "not asked" : fallback.gate.join(", ")
  })`

/**
 * Starts the engine: one runtime over the layers the options choose (see
 * {@link CreateOptions}: in memory unless a `directory` or a `databaseUrl` is
 * given), built before the promise resolves, so that a wrong or unknown
 * option (a misspelt key, in a nested object too) rejects here with an
 * {@link OptionError}, and a folder that cannot be opened or an
 * invalid setting with a {@link StartError}. Call `close()` when done.
 *
 * @since 0.1.0
 * @category constructors
 */
export const createCompactor = async (options: CreateOptions = {}): Promise<Compactor> => {
  const values = checkCreateOptions(options)
  const listeners = new Set<(report: CompactionReport) => void>()
  const endings = new Set<() => void>()
  const dispatch = (report: CompactionReport) => {
    for (const listener of listeners) {
      try {
        listener(report)
      } catch (error) {
        process.stderr.write(
          `context-compressor: a compaction listener threw: ${error instanceof Error ? error.message : String(error)}\n`
        )
      }
    }
  }
  // The engine's events are forwarded to the listeners by one fiber, subscribed before the first call.
  const forwarding = Layer.scopedDiscard(
    Effect.gen(function*() {
      const engine = yield* EngineCompactor.Compactor
      const queue = yield* engine.subscribe
      yield* Effect.forkScoped(Effect.forever(Effect.map(Queue.take(queue), (event) => dispatch(reportOf(event)))))
    })
  )
  // The engine's warnings (an unusable cache, say) go to stderr: stdout is the program's.
  const stderrLogger = Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
  const runtime = ManagedRuntime.make(
    Layer.provideMerge(forwarding, Engine.layer(options, values)).pipe(Layer.provide(stderrLogger))
  )
  const started = await runtime.runtimeEffect.pipe(Effect.either, Effect.runPromiseExit)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    throw Engine.rejection(started.cause)
  }
  if (Either.isLeft(started.value)) {
    await runtime.dispose()
    throw Engine.startError(started.value.left)
  }
  let closed = false
  const defaultModel = options.model ?? "offline"

  const run = <A>(
    effect: Effect.Effect<A, CompressorError, EngineCompactor.Compactor>,
    signal: AbortSignal | undefined
  ): Promise<A> => {
    if (closed) return Promise.reject(new StateError("closed", "the compactor is closed"))
    if (signal?.aborted === true) {
      return Promise.reject(new StateError("aborted", "the call was abandoned before it started"))
    }
    return runtime.runPromiseExit(effect, signal === undefined ? undefined : { signal }).then((exit) =>
      Exit.isSuccess(exit) ? exit.value : Promise.reject(Engine.rejection(exit.cause))
    )
  }

  const checkpoint = <History>(history: History, call: CompactOptions, cause: "trigger" | "overflow") =>
    Effect.gen(function*() {
      if (typeof call !== "object" || call === null) {
        return yield* Effect.fail(new OptionError("options", "expected an object with a contextWindow"))
      }
      yield* Effect.try({
        try: () => checkCompactOptions(call as unknown as Record<string, unknown>),
        catch: (error) => error as OptionError
      })
      if (typeof call.contextWindow !== "number" || !Number.isFinite(call.contextWindow) || call.contextWindow <= 0) {
        return yield* Effect.fail(
          new OptionError("contextWindow", `expected a positive number of tokens, not ${String(call.contextWindow)}`)
        )
      }
      if (
        call.reportedContextTokens !== undefined &&
        (typeof call.reportedContextTokens !== "number" || !(call.reportedContextTokens >= 0))
      ) {
        return yield* Effect.fail(
          new OptionError(
            "reportedContextTokens",
            `expected a number of tokens, not ${String(call.reportedContextTokens)}`
          )
        )
      }
      const format = call.format ?? "auto"
      if (!formats.includes(format)) {
        return yield* Effect.fail(
          new OptionError("format", `expected one of ${formats.join(", ")}, not ${String(format)}`)
        )
      }
      const session = {
        sessionId: call.sessionId,
        model: call.model ?? defaultModel,
        contextWindow: call.contextWindow,
        reportedContextTokens: call.reportedContextTokens
      }
      const adapters = yield* Installed.adapters
      const source = { document: history, format: format as Adapter.Format | "auto", adapters }
      const read = yield* Effect.mapError(CompactDocument.read(source, call.sessionId), rejectionOf)
      if (call.instructions !== undefined && typeof call.instructions !== "string") {
        return yield* Effect.fail(new OptionError("instructions", `expected text, not ${typeof call.instructions}`))
      }
      const ask = call.onQuestion ?? options.onQuestion
      const sessionId = read.sessionId
      const compaction = yield* CompactDocument.compactDocument({
        document: read,
        session,
        cause: cause === "overflow"
          ? { _tag: "Overflow" }
          : call.instructions !== undefined
          ? { _tag: "Manual", instructions: call.instructions }
          : CompactDocument.trigger
      }).pipe(
        Effect.locally(
          AttentionFiber.currentAttention,
          ask === undefined ? Option.none() : Option.some(Engine.attentionOf(sessionId, ask))
        ),
        Effect.mapError(rejectionOf)
      )
      const result = compaction.checkpoint
      const report = Option.getOrUndefined(Option.map(result.compacted, reportOf))
      const fallback = report === undefined ? undefined : fallbackOf(report)
      // Told before the call resolves; a callback that throws is reported on stderr, not made the call's failure.
      if (fallback !== undefined && options.onFallback !== undefined) {
        try {
          options.onFallback(fallback)
        } catch (error) {
          process.stderr.write(
            `context-compressor: the onFallback callback threw: ${
              error instanceof Error ? error.message : String(error)
            }\n`
          )
        }
      }
      const messages = (typeof history === "string" ? CompactDocument.text(compaction) : compaction.output) as History
      return {
        messages,
        format: read.decoded.format,
        sessionId: result.sessionId ?? sessionId,
        tokens: result.tokens,
        trigger: result.trigger,
        report,
        ladder: ladderOf(result.ladder),
        repairs: repairsOf(result.repairs),
        warnings: fallback === undefined ? [] : [warningOf(fallback)]
      } satisfies CompactResult<History>
    })

  const subscribe = (push: (report: CompactionReport) => void, end: () => void) => {
    listeners.add(push)
    endings.add(end)
    return () => {
      listeners.delete(push)
      endings.delete(end)
    }
  }

  return {
    compact: (history, call) => run(checkpoint(history, call, "trigger"), call?.signal),
    contextOverflow: (history, call) => run(checkpoint(history, call, "overflow"), call?.signal),
    reduce: (toolResult, reduceOptions = {}) => {
      const reduction = Reduce.reduce(toolResult, {
        policies: builtInPolicies,
        ...(typeof reduceOptions.cap === "number" ? { cap: reduceOptions.cap } : {})
      })
      return Promise.resolve({ text: reduction.text, value: reduction.value, report: reduction.report })
    },
    recall: (call) =>
      run(
        typeof call !== "object" || call === null || typeof call.sessionId !== "string"
          ? Effect.fail(new OptionError("sessionId", "expected the session's id as text"))
          : Effect.try({
            try: () => checkRecallOptions(call as unknown as Record<string, unknown>),
            catch: (error) => error as OptionError
          }).pipe(Effect.zipRight(
            Recall.recall(call).pipe(
              Effect.map((page): RecallPage => ({ ...page })),
              Effect.mapError((error) => new RecallError(error.reason, error.sessionId, error.handle, error.message))
            )
          )),
        call?.signal
      ),
    events: () => iteratorOver(subscribe),
    onCompacted: (listener) => {
      const wrapped = (report: CompactionReport) => listener(report)
      listeners.add(wrapped)
      return () => {
        listeners.delete(wrapped)
      }
    },
    close: async () => {
      if (closed) return
      closed = true
      for (const end of Array.from(endings)) end()
      listeners.clear()
      await runtime.dispose()
    }
  }
}
