/**
 * The handlers of the compaction group of the HTTP API: `POST /v1/compact`
 * (a compaction in slices, one per session at a time, attended ones asking
 * through `Questions`), the events as a server-sent stream, and the questions.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import { HttpApiBuilder, HttpServerResponse } from "#compat-http"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Installed from "../../face/adapters/Installed.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Cooperative from "../../face/engine/internal/Cooperative.js"
import * as Overflow from "../../face/engine/Overflow.js"
import * as Reduce from "../../face/engine/Reduce.js"
import * as Session from "../../face/engine/Session.js"
import * as Report from "../../face/models/Report.js"
import * as Transcript from "../../face/models/Transcript.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as Settings from "../../face/services/Settings.js"
import * as Tokenizer from "../../face/services/Tokenizer.js"
import * as BodyLimits from "./BodyLimits.js"
import * as Caller from "./Caller.js"
import { exactAnswer, exactJsonResponse, exactPayload } from "./ExactJson.js"
import * as Api from "./HttpApi.js"
import * as Questions from "./Questions.js"
import { defaultLimits } from "./ServerDefaults.js"
import { busyRetrySeconds } from "./ServerDefaults.js"
import * as WaitQueue from "./WaitQueue.js"

const encodeViewMessage = Schema.encodeSync(Api.ViewMessage)
const encodeToolResultReport = Schema.encodeSync(Api.ToolResultReport)
const encodeCompactResult = Schema.encodeSync(Api.CompactResult)

/**
 * A compaction's result encoded as `Schema.encode(Api.CompactResult)` does,
 * in steps: its view and tool-result reports message by message.
 */
function* compactResultSteps(result: Api.CompactResult): Cooperative.Steps<Record<string, unknown>> {
  const rest = encodeCompactResult(new Api.CompactResult({ ...result, view: [], toolResults: [] })) as Record<
    string,
    unknown
  >
  const view = yield* Cooperative.mapSteps(result.view, (message) => encodeViewMessage(message))
  const toolResults = yield* Cooperative.mapSteps(result.toolResults, (report) => encodeToolResultReport(report))
  return { ...rest, view, toolResults }
}

/** A compaction's answer, exactly: its result (200), written in slices of `sliceMs`, or its question (202). */
const compactAnswer = (sliceMs: number) => (answer: Api.CompactResult | Api.CompactQuestion) =>
  answer instanceof Api.CompactQuestion
    ? exactJsonResponse(Api.CompactQuestion, answer, { status: 202, sliceMs })
    : exactAnswer(compactResultSteps(answer), { jsonFields: ["output"], sliceMs })

// --- compaction --------------------------------------------------------------------

const roleOf = (message: Transcript.Message): Api.ViewMessage["role"] => {
  switch (message._tag) {
    case "System":
      return "system"
    case "User":
      return "user"
    case "Assistant":
      return "assistant"
    case "ToolResult":
      return "tool"
    case "Compacted":
      return "compacted"
  }
}

/**
 * The session a transcript stands for when the request names none.
 *
 * @since 0.1.0
 * @category sessions
 * @deprecated Use `Session.idOf` (the root entry), the one definition the
 * HTTP API, the proxy and the Promise API share; removed in 0.2.0.
 */
export const sessionIdOf: (transcript: Transcript.Transcript) => string = Session.idOf

/** The answer of a document that was not compacted: unreadable (400), a store's failure (500), or no view (422). */
const failureOf = (error: CompactDocument.CompactDocumentError) => {
  const problem = error.problem
  if (problem._tag === "AdapterError") {
    return new Api.InvalidTranscript({
      format: problem.format,
      reason: problem.reason,
      message: problem.index === undefined ? problem.reason : `${problem.reason} (message ${problem.index})`,
      ...(problem.index === undefined ? {} : { index: problem.index })
    })
  }
  return problem.reason === "store"
    ? new Api.ServerError({ message: problem.message })
    : new Api.CompactionFailed({ reason: problem.reason, sessionId: problem.sessionId, message: error.message })
}

const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

const encodeCompacted = Schema.encodeSync(Compactor.Compacted)

/**
 * The handlers of `POST /v1/compact` and `GET /v1/events`, over the one
 * engine of the server. The event stream ends when `shutdown` completes, so
 * that open streams do not hold the server open when it closes.
 *
 * @since 0.1.0
 * @category handlers
 */
export const layerCompaction = (options: {
  readonly model: string
  readonly keepAliveMs: number
  readonly shutdown: Deferred.Deferred<void>
  readonly maxCompactions?: number
  /** How many compactions may wait for a place beyond those running (default `defaultLimits.maxQueue`). */
  readonly maxQueue?: number
  /** How long a compaction waits for a place, in milliseconds (default `defaultLimits.queueTimeoutMs`). */
  readonly queueTimeoutMs?: number
  /** The most bytes of bodies the queue lets in at once (default `WaitQueue.defaultQueueBytes`). */
  readonly maxQueueBytes?: number
  /** The largest request body: what a chunked body reserves of the queue's bytes. */
  readonly maxBodyBytes: number
  readonly maxEventStreams?: number
  /** Where attended compactions run: they outlive the request that started them, not the server. */
  readonly scope: Scope.Scope
  /** How long a question waits for its answer before it is Trim (default `Questions.defaultTimeout`). */
  readonly questionTimeout?: Compat.DurationInput | undefined
  /** How long the handler works on one request before it lets the others run, in milliseconds (default `Compactor.defaultSliceMs`). */
  readonly sliceMs?: number | undefined
}) =>
  HttpApiBuilder.group(Api.Api, "compaction", (handlers) =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const settings = yield* Settings.Settings
      const tokenizer = yield* Tokenizer.Tokenizer
      const adapters = yield* Installed.adapters
      const questions = Questions.make({
        scope: options.scope,
        ...(options.questionTimeout === undefined ? {} : { timeout: options.questionTimeout })
      })
      // The engine's counts: the messages a checkpoint just counted are not counted again.
      const tokensOf = compactor.tokensOf
      const maxCompactions = options.maxCompactions ?? defaultLimits.maxCompactions
      const maxEventStreams = options.maxEventStreams ?? defaultLimits.maxEventStreams
      const compactions = yield* WaitQueue.forCompactions(options, options.maxBodyBytes)
      let openStreams = 0
      const sliceMs = options.sliceMs ?? Compactor.defaultSliceMs
      // A long transcript is walked in slices of time, so that other requests are answered meanwhile.
      const mapYielding = <A, B>(items: ReadonlyArray<A>, f: (item: A, index: number) => B): Effect.Effect<Array<B>> =>
        Effect.suspend(() => Cooperative.map(items, f, Cooperative.slice(sliceMs)))

      const compact = (payload: typeof Api.CompactRequest.Type, caller: string | undefined) =>
        Effect.gen(function*() {
          // Let the request that decoded this body give way before the engine starts.
          yield* Compat.yieldNow
          const session = {
            model: payload.model ?? options.model,
            contextWindow: payload.window,
            reportedContextTokens: payload.reportedContextTokens
          }
          const source = { document: payload.transcript, format: payload.format, adapters, sliceMs }
          const read = yield* Effect.mapError(Caller.read(caller, source, payload.sessionId), failureOf)
          const { decoded: { format, transcript }, sessionId } = read
          const finish = Effect.gen(function*() {
            const overflow = payload.cause === "overflow" && payload.overflowError !== undefined
              ? Option.getOrUndefined(Overflow.classify(payload.overflowError))
              : undefined
            const cause: CompactDocument.Cause = payload.cause === "overflow"
              ? { _tag: "Overflow", overflow }
              : payload.instructions !== undefined
              ? { _tag: "Manual", instructions: payload.instructions }
              : CompactDocument.trigger
            const compaction = yield* CompactDocument.compactDocument({ document: read, session, cause }).pipe(
              Effect.provideService(Compactor.Compactor, compactor),
              Effect.mapError(failureOf)
            )
            const checkpoint = compaction.checkpoint
            const current = Settings.clamp(yield* settings.current)

            const indexOf = new Map<string, number>()
            const before = yield* mapYielding(transcript, (message, index) => {
              indexOf.set(message.id, index)
              return tokensOf(message)
            })
            const inView = new Set<string>()
            for (const message of checkpoint.view) if (message._tag !== "Compacted") inView.add(message.id)
            // The block stands for every message of the transcript the view no longer holds.
            let replacedTokens = 0
            for (let index = 0; index < transcript.length; index++) {
              if (!inView.has(transcript[index]!.id)) replacedTokens += before[index]!
            }
            const withBlock = yield* mapYielding(checkpoint.view, (message): Api.ViewMessage => {
              const tokens = tokensOf(message)
              if (message._tag === "Compacted") {
                return {
                  id: message.id,
                  role: "compacted",
                  text: message.content,
                  tokens,
                  tokensBefore: replacedTokens,
                  transcriptIndex: null,
                  replaced: { firstId: message.firstReplacedId, lastId: message.lastReplacedId }
                }
              }
              const index = indexOf.get(message.id) ?? null
              return {
                id: message.id,
                role: roleOf(message),
                text: Transcript.text(message),
                tokens,
                tokensBefore: index === null ? tokens : before[index]!,
                transcriptIndex: index,
                ...(message._tag === "ToolResult" ? { toolCallId: message.toolCallId } : {}),
                ...(message._tag === "ToolResult" && message.name !== undefined ? { name: message.name } : {})
              }
            })

            const toolResults =
              (yield* mapYielding(transcript, (message, index): ReadonlyArray<Api.ToolResultReport> => {
                if (message._tag !== "ToolResult") return []
                const reduction = Reduce.reduce(message.content, {
                  policies: builtInPolicies,
                  cap: current.envelopeCapChars
                })
                return [{
                  transcriptIndex: index,
                  id: message.id,
                  toolCallId: message.toolCallId,
                  ...(message.name === undefined ? {} : { name: message.name }),
                  inView: inView.has(message.id),
                  tokensBefore: tokenizer.count(message.content),
                  tokensAfter: tokenizer.count(reduction.text),
                  route: reduction.report.route,
                  policy: reduction.report.policy,
                  capChars: reduction.report.cap,
                  inputChars: reduction.report.inputChars,
                  outputChars: reduction.report.outputChars,
                  totals: Report.totals(reduction.report),
                  rules: reduction.report.rules.map((rule) => ({
                    rule: rule.rule,
                    reason: rule.reason,
                    counts: rule.counts
                  })),
                  notes: reduction.report.notes
                }]
              })).flat()

            return new Api.CompactResult({
              report: new Api.CompactReport({
                sessionId: checkpoint.sessionId ?? sessionId,
                format,
                messages: transcript.length,
                ...Compactor.reportFields(checkpoint),
                ...(overflow === undefined ? {} : { overflow })
              }),
              output: compaction.output,
              container: read.container,
              view: withBlock,
              toolResults,
              tokenizer: tokenizer.name
              // Checked as it is encoded (compactResultSteps), message by message: not here in one piece as well.
            }, Compat.disableChecks)
          })
          if (!payload.attended) return yield* finish
          return yield* stepResponse(yield* questions.run(sessionId, finish))
        })

      /** An attended compaction's step as the answer: its question (202), or how it ended. */
      const stepResponse = <A, E>(step: Questions.Step<A, E>): Effect.Effect<A | Api.CompactQuestion, E> =>
        step._tag === "Ended"
          ? step.exit
          : Effect.succeed(
            new Api.CompactQuestion({
              id: step.question.id,
              sessionId: step.question.sessionId,
              problem: step.question.problem,
              choices: [...step.question.choices],
              expiresAt: new Date(step.question.expiresAtMs).toISOString(),
              answerPath: `/v1/questions/${step.question.id}`
            })
          )

      const keepAlive = Stream.fromSchedule(Schedule.spaced(options.keepAliveMs)).pipe(Stream.as(": keep-alive\n\n"))
      const events = Http.streamUnwrapScoped(
        Effect.map(compactor.subscribe, (queue) =>
          Stream.concat(
            // Sent once subscribed: a client that has read it sees every compaction from then on.
            Stream.make(sse("ready", { keepAliveMs: options.keepAliveMs })),
            Stream.merge(
              Http.streamFromSubscription(queue).pipe(
                Stream.map((report) => sse("compacted", encodeCompacted(report)))
              ),
              keepAlive,
              { haltStrategy: "left" }
            )
          ))
      ).pipe(Stream.interruptWhen(Deferred.await(options.shutdown)), Stream.encodeText)

      const busy = (limit: string, max: number) =>
        new Api.Busy({
          limit,
          max,
          message: `the server is at its limit of ${max} ${limit}: retry in ${busyRetrySeconds} s`
        })
      // The seconds come from the queue's drain rate; the guard's fixed Retry-After is written before this one.
      const retryAfter = (seconds: number) =>
        Http.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(seconds)))
        )
      const queueBusy = (refused: WaitQueue.Refused) => {
        switch (refused.reason) {
          case "full":
            return new Api.Busy({
              limit: "compactions waiting",
              max: refused.limits.waiting,
              message:
                `the server is at its limit of ${maxCompactions} compactions at once and ${refused.limits.waiting} waiting: retry in ${refused.retryAfterSeconds} s`
            })
          case "bytes":
            return new Api.Busy({
              limit: "bytes of bodies queued",
              max: refused.limits.bytes,
              message: `the compaction queue is ${refused.message}`
            })
          case "deadline":
            return new Api.Busy({
              limit: "milliseconds a compaction waits",
              max: refused.limits.maxWaitMs,
              message: `the compaction ${refused.message}`
            })
        }
      }
      /**
       * A compaction let into the queue before its body is read, then run in
       * its turn; the answer says how long it waited for its place
       * (`Server-Timing: queue;dur=MS`, from its arrival).
       */
      const queued = <A, E, R>(
        admitted: WaitQueue.Admitted,
        arrived: number,
        effect: Effect.Effect<A, E, R>
      ) =>
        admitted.run(Effect.andThen(
          Effect.flatMap(Clock.currentTimeMillis, (started) =>
            Http.appendPreResponseHandler((_, response) =>
              Effect.succeed(
                HttpServerResponse.setHeader(response, "server-timing", `queue;dur=${started - arrived}`)
              )
            )),
          effect
        ))
      const countedEvents = Stream.suspend(() => {
        openStreams++
        return events.pipe(Stream.ensuring(Effect.sync(() => openStreams--)))
      })

      return handlers
        // Read and written exactly: a number of the transcript comes back as it was sent.
        // Let into the queue before the body is read: past its bound the body is never read (503 at once,
        // the connection closed once the client has read it), so the queue holds at most its bound of bodies.
        .handleRaw("compact", ({ request }) =>
          Effect.scoped(Effect.gen(function*() {
            const arrived = yield* Clock.currentTimeMillis
            const admitted = yield* compactions.admit(BodyLimits.reservedBytes(request.headers, options.maxBodyBytes))
              .pipe(
                Effect.tapError(() =>
                  Effect.andThen(
                    BodyLimits.discardBody(request),
                    Http.appendPreResponseHandler((_, response) =>
                      Effect.succeed(HttpServerResponse.setHeader(response, "connection", "close"))
                    )
                  )
                )
              )
            const payload = yield* exactPayload(Api.CompactRequest, {
              verbatim: ["transcript"],
              checkedByKind: ["transcript"],
              sliceMs
            })(request)
            return yield* Effect.flatMap(
              queued(admitted, arrived, compact(payload, Caller.of(request.headers, Caller.serveCredentials))),
              compactAnswer(sliceMs)
            )
          })).pipe(
            Effect.catchTag(
              "WaitQueueRefused",
              (refused) => Effect.andThen(retryAfter(refused.retryAfterSeconds), Effect.fail(queueBusy(refused)))
            )
          ))
        // A question is answered by the caller whose compaction asked it only: to another, it is not there.
        .handle("answer", (answer) =>
          Effect.flatMap(
            questions.answer(
              Http.params(answer).id,
              answer.payload.choice,
              (question) =>
                Session.belongsTo(Caller.of(answer.request.headers, Caller.serveCredentials), question.sessionId)
            ),
            (
              step
            ): Effect.Effect<
              HttpServerResponse.HttpServerResponse,
              Api.QuestionNotFound | Api.CompactionFailed | Api.ServerError
            > =>
              step === undefined
                ? Effect.fail(
                  new Api.QuestionNotFound({
                    id: Http.params(answer).id,
                    message: `no question ${
                      Http.params(answer).id.slice(0, 80)
                    } is waiting: it was answered already, or waited past its deadline and was taken as Trim`
                  })
                )
                : Effect.flatMap(
                  stepResponse(step as Questions.Step<Api.CompactResult, Api.CompactionFailed | Api.ServerError>),
                  compactAnswer(sliceMs)
                )
          ))
        .handle("events", () =>
          openStreams >= maxEventStreams ?
            Effect.fail(busy("open event streams", maxEventStreams)) :
            Effect.succeed(HttpServerResponse.stream(countedEvents, {
              contentType: "text/event-stream",
              // Not reused once it ends: a server closing does not wait for the connection to idle out.
              headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "close" }
            })))
    }))
