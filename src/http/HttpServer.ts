/**
 * The server of `context-compressor serve`: the handlers of the HTTP API
 * (`HttpApi.ts`) over one long-lived compaction engine on the production
 * layers of a folder, the inspector page at `/`, and what every request goes
 * through first: the body size limit, JSON errors for bad JSON and unknown
 * routes, and the bearer token. See `docs/http.md`.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as Migrator from "@effect/sql/Migrator"
import type { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import type * as ConfigError from "effect/ConfigError"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as AttentionFiber from "../../layers/AttentionFiber.js"
import * as Production from "../../layers/Production.js"
import * as SettingsConfig from "../../layers/SettingsConfig.js"
import type * as SqliteFile from "../../layers/sql/SqliteFile.js"
import { builtInPolicies } from "../../rules/index.js"
import * as Settings from "../../services/Settings.js"
import type * as Summarizer from "../../services/Summarizer.js"
import * as Tokenizer from "../../services/Tokenizer.js"
import * as Installed from "../adapters/Installed.js"
import { defaultLimits, defaultMaxBodyBytes, tokenEnv } from "./ServerDefaults.js"
import * as Compactor from "../Compactor.js"
import * as Formats from "../adapters/Formats.js"
import * as Api from "./HttpApi.js"
import * as Questions from "./Questions.js"
import * as Cooperative from "../internal/Cooperative.js"
import * as JsonRead from "../internal/JsonRead.js"
import * as JsonWrite from "../internal/JsonWrite.js"
import * as Json from "../Json.js"
import * as Overflow from "../Overflow.js"
import * as Reduce from "../Reduce.js"
import * as Session from "../Session.js"
import * as Report from "../Report.js"
import * as Transcript from "../Transcript.js"

/**
 * Options of the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The folder of the databases, config file and archive (default `.context-compressor`). */
  readonly directory?: string
  /**
   * The summariser: `offline` (default), `chat-completions` (configured from the
   * environment, as `Production.layerSqlite` does), or a layer of one.
   */
  readonly summarizer?: "offline" | "chat-completions" | Layer.Layer<Summarizer.Summarizer>
  /** The session's model when a compact request names none (default `offline`). */
  readonly model?: string
  /** When set, every API route answers 401 without `Authorization: Bearer <token>`. */
  readonly token?: Redacted.Redacted<string> | undefined
  /** The largest request body accepted, in bytes (default {@link defaultMaxBodyBytes}). */
  readonly maxBodyBytes?: number
  /** How often the event stream sends a keep-alive comment (default {@link defaultKeepAliveMs}). */
  readonly keepAliveMs?: number
  /** The environment the settings are read from (default `process.env`). */
  readonly env?: () => Record<string, string | undefined>
  /** The folder of the page (default: `web/` of the package). */
  readonly webDirectory?: string
  /** How many compactions may run at once (default {@link defaultLimits}); past it `POST /v1/compact` answers 503. */
  readonly maxCompactions?: number
  /** How many event streams may be open at once (default {@link defaultLimits}); past it `GET /v1/events` answers 503. */
  readonly maxEventStreams?: number
  /** How long a client may take to send the request headers, in milliseconds (default {@link defaultLimits}). */
  readonly headersTimeoutMs?: number
  /** How long a client may take to send the whole request, in milliseconds (default {@link defaultLimits}). */
  readonly requestTimeoutMs?: number
  /** How long a question of an attended compaction waits for its answer before it is Trim (default 10 minutes). */
  readonly questionTimeout?: Duration.DurationInput
  /**
   * How long a compaction works, in the handler (decoding the transcript,
   * counting, writing the answer) and in the engine, before it gives the event
   * loop a turn, in milliseconds (default `Compactor.defaultSliceMs`, 10):
   * other requests are answered meanwhile. `Infinity` never pauses.
   */
  readonly sliceMs?: number
  /**
   * The names a token-less server answers to besides its bound address,
   * `localhost` and the loopback addresses (`serve --allowed-host`): a request
   * whose `Host` names anything else is refused (see {@link sameSiteRule}).
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
}

export {
  /**
   * The default body size limit: 16 MiB, room for a long transcript pasted whole.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultMaxBodyBytes,
  /**
   * The server's default limits: 4 compactions at once, 64 open event streams,
   * 30 s to send the headers, 120 s to send a whole request.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultLimits,
  /**
   * The environment variable the token is read from when `serve --token` is not given.
   *
   * @since 0.1.0
   * @category constants
   */
  tokenEnv
} from "./ServerDefaults.js"

/** The seconds a 503 asks the client to wait. */
const busyRetrySeconds = 2


/**
 * The default interval of the event stream's keep-alive comments: under the
 * idle timeouts of common proxies (30–60 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKeepAliveMs = 15_000


// --- the engine --------------------------------------------------------------------

/**
 * Errors building the server's services: the state database, the settings of
 * config.toml or the environment, the migrations, the summariser's config.
 *
 * @since 0.1.0
 * @category models
 */
export type StartError =
  | SqliteFile.OpenError
  | Settings.SettingsError
  | SqlError
  | Migrator.MigrationError
  | ConfigError.ConfigError

/**
 * The compaction engine and the services the handlers read (settings and their
 * overrides, the tokenizer), on the production layers of `options.directory`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEngine = (options: Options = {}) => {
  const production = Production.layerSqlite({
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    ...(options.summarizer === "chat-completions" ? { summarizer: "chat-completions" as const } : {}),
    ...(options.env === undefined ? {} : { env: options.env })
  })
  // Each request says whether it is attended: the engine asks the compacting fiber's attention.
  const engine = Compactor.layer({ policies: builtInPolicies, ...(options.sliceMs === undefined ? {} : { sliceMs: options.sliceMs }) }).pipe(Layer.provide(AttentionFiber.layer))
  const withSummarizer = typeof options.summarizer === "object" ? engine.pipe(Layer.provide(options.summarizer)) : engine
  return withSummarizer.pipe(Layer.provideMerge(production))
}

// --- settings ----------------------------------------------------------------------

const snakeSettings = (settings: Settings.CompactionSettings): typeof Api.EffectiveSettings.Type => ({
  trigger_pct: settings.triggerPct,
  cap_tokens: settings.capTokens,
  summary_max_tokens: settings.summaryMaxTokens,
  summarizer_model: settings.summarizerModel ?? null,
  keep_fraction: settings.keepFraction,
  envelope_cap_chars: settings.envelopeCapChars,
  reply_reserve_tokens: settings.replyReserveTokens,
  target_after_pct: settings.targetAfterPct,
  summary_request: settings.summaryRequest
})

const ranges: Record<string, readonly [number, number]> = Object.fromEntries(
  Settings.names.flatMap((name) => (Settings.isNumeric(name.field) ? [[name.key, Settings.ranges[name.field]]] : []))
)

const fromSettingsError = (error: Settings.SettingsError): Api.InvalidSetting | Api.ServerError =>
  error.reason === "unreadable" || error.reason === "unwritable"
    ? new Api.ServerError({ message: error.message })
    : new Api.InvalidSetting({
      reason: error.reason,
      message: error.message,
      ...(error.key === undefined ? {} : { key: error.key }),
      ...(error.value === undefined ? {} : { value: error.value }),
      ...(error.allowed === undefined ? {} : { allowed: error.allowed })
    })

const keyList = Settings.names.map((name) => name.key).join(", ")

/**
 * The handlers of `GET` and `POST /v1/settings/compaction`. A change is checked
 * whole before anything is written: one refused value writes nothing.
 *
 * @since 0.1.0
 * @category handlers
 */
export const layerSettings = HttpApiBuilder.group(Api.Api, "settings", (handlers) =>
  Effect.gen(function*() {
    const settings = yield* Settings.Settings
    const overrides = yield* Settings.SettingsOverrides
    const view = (clamped: ReadonlyArray<typeof Api.Clamped.Type>) =>
      Effect.gen(function*() {
        const current = Settings.clamp(yield* settings.current)
        const persisted = yield* overrides.get
        return new Api.SettingsView({ settings: snakeSettings(current), overrides: persisted, ranges, clamped })
      }).pipe(Effect.mapError((error) => new Api.ServerError({ message: error.message })))
    return handlers
      .handle("get", () => view([]))
      .handle("set", ({ payload }) =>
        Effect.gen(function*() {
          const changes: Array<{ readonly name: Settings.Name; readonly value: string | number | null }> = []
          const clamped: Array<typeof Api.Clamped.Type> = []
          for (const [given, value] of Object.entries(payload)) {
            const name = Option.getOrUndefined(Settings.nameOf(given))
            if (name === undefined) {
              return yield* new Api.InvalidSetting({ reason: "unknown-key", key: given, allowed: keyList, message: `${given} is not a setting; allowed: ${keyList}` })
            }
            if (changes.some((change) => change.name.key === name.key)) {
              return yield* new Api.InvalidSetting({ reason: "unknown-key", key: given, allowed: "each setting once", message: `${name.key} is given twice (as ${given} and another name)` })
            }
            if (value !== null) {
              const checked = SettingsConfig.overrideText(given, value)
              if (Either.isLeft(checked)) return yield* fromSettingsError(checked.left)
              const number = typeof value === "number" ? value : Number(value.trim().replaceAll("_", ""))
              const stored = Number(checked.right[1])
              if (Settings.isNumeric(name.field) && stored !== number) {
                clamped.push({ key: name.key, given: number, stored, allowed: Settings.allowed(name.field) })
              }
            }
            changes.push({ name, value })
          }
          for (const change of changes) {
            yield* (change.value === null ? overrides.unset(change.name.key) : overrides.set(change.name.key, change.value)).pipe(
              Effect.mapError(fromSettingsError)
            )
          }
          return yield* view(clamped)
        })
      )
  }))

// --- exact numbers ---------------------------------------------------------------

/** What a field the schema only checks by its kind is checked as: an array or an object of the same kind, empty. */
const standIn = (value: unknown): unknown => (Array.isArray(value) ? [] : typeof value === "object" && value !== null ? {} : value)

/**
 * Reads a request's body with the project's exact JSON reader (`Json.parse`)
 * and decodes it with `schema`: an integer past 2^53, `1e400`, `-0` or a long
 * decimal is kept as written, where the platform's `JSON.parse` would round
 * it. Not JSON: `InvalidJson`; not the schema: `HttpApiDecodeError`, as the
 * other routes answer. An empty body is read as `null`, as the platform does.
 * The fields named in `verbatim` (JSON the schema only checks) are taken from
 * the body as parsed, not from the decoded copy. Of those, the ones named in
 * `checkedByKind` are fields whose schema takes any string, any array and any
 * object whatever they hold (a transcript): the schema checks an empty one of
 * the same kind, so that a 50,000-message transcript is not walked (and
 * copied) to find out. The exact reader pauses for the event loop every
 * `sliceMs` (default `Compactor.defaultSliceMs`); the platform's `JSON.parse`,
 * which a body without inexact numbers goes to, reads in one piece.
 *
 * @since 0.1.0
 * @category exact numbers
 */
export const exactPayload = <A, I>(
  schema: Schema.Schema<A, I>,
  options: {
    readonly verbatim?: ReadonlyArray<keyof A & string>
    readonly checkedByKind?: ReadonlyArray<keyof A & string>
    readonly sliceMs?: number
  } = {}
) =>
(request: HttpServerRequest.HttpServerRequest): Effect.Effect<A, Api.InvalidJson | HttpApiError.HttpApiDecodeError> =>
  Effect.flatMap(Effect.orDie(request.text), (text): Effect.Effect<A, Api.InvalidJson | HttpApiError.HttpApiDecodeError> =>
    Effect.flatMap(
      text === "" ? Effect.succeed(Either.right(null)) : Cooperative.run(JsonRead.parseSteps(text), Cooperative.slice(options.sliceMs ?? Compactor.defaultSliceMs)),
      (parsed): Effect.Effect<A, Api.InvalidJson | HttpApiError.HttpApiDecodeError> => {
        if (Either.isLeft(parsed)) return Effect.fail(new Api.InvalidJson({ message: `the body is not valid JSON: ${parsed.left.reason}` }))
        const body = parsed.right
        const byKind = (options.checkedByKind ?? []).filter((key) => Json.getOwn(body, key) !== undefined)
        let checked: unknown = body
        if (byKind.length > 0) {
          const copy = { ...(body as Record<string, unknown>) }
          for (const key of byKind) Json.setOwn(copy, key, standIn(Json.getOwn(body, key)))
          checked = copy
        }
        return Effect.catchAll(Schema.decodeUnknown(schema)(checked), HttpApiError.HttpApiDecodeError.refailParseError).pipe(
          // The decoded copy of a record loses a `__proto__` key: a field that is JSON as sent is taken from the body itself.
          Effect.map((decoded) => {
            const fields = (options.verbatim ?? []).filter((key) => Json.getOwn(body, key) !== undefined)
            if (fields.length === 0) return decoded
            const out = { ...decoded } as Record<string, unknown>
            for (const key of fields) out[key] = Json.getOwn(body, key)
            return out as A
          })
        )
      }
    ))

/** Every string of an encoded answer with no placeholder left: a whole one becomes the literal's text. */
const scrubStrings = (value: unknown): unknown => {
  if (typeof value === "string") return Json.rawNumberLiteral(value) ?? Json.withoutRawNumbers(value)
  if (Array.isArray(value)) return value.map(scrubStrings)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) Json.setOwn(out, key, scrubStrings((value as Record<string, unknown>)[key]))
  return out
}

/** The text of an encoded answer (see {@link exactJsonResponse}), in steps: a long array is scrubbed and written element by element. */
function* answerText(encoded: Record<string, unknown>, jsonFields: ReadonlySet<string>): Cooperative.Steps<string> {
  const answer: Record<string, unknown> = {}
  for (const key of Object.keys(encoded)) {
    const value = encoded[key]
    if (jsonFields.has(key) || !Array.isArray(value)) {
      Json.setOwn(answer, key, jsonFields.has(key) ? value : scrubStrings(value))
      continue
    }
    Json.setOwn(answer, key, yield* Cooperative.mapSteps(value, scrubStrings))
  }
  return Json.withoutRawNumbers(yield* JsonWrite.stringifySteps(answer))
}

/** An encoded answer written as JSON (see {@link exactJsonResponse}), pausing for the event loop every slice. */
const exactAnswer = (
  encoded: Cooperative.Steps<Record<string, unknown>>,
  options: { readonly status?: number; readonly jsonFields?: ReadonlyArray<string>; readonly sliceMs?: number }
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.suspend(() => {
    const jsonFields = new Set(options.jsonFields ?? [])
    const text = (function*() {
      return yield* answerText(yield* encoded, jsonFields)
    })()
    return Effect.map(
      Cooperative.run(text, Cooperative.slice(options.sliceMs ?? Compactor.defaultSliceMs)),
      (body) => HttpServerResponse.text(body, { status: options.status ?? 200, contentType: "application/json" })
    )
  })

/**
 * A JSON answer encoded with `schema` and written with `Json.stringify`: in
 * the fields named in `jsonFields` (a transcript, an envelope: JSON as the
 * request sent it) every number kept exactly comes back as its literal; in
 * the other fields (texts, reports) a placeholder becomes the literal's text,
 * so that a string stays a string; and no placeholder is left anywhere
 * (`Json.withoutRawNumbers`). For the answers of the routes that read their
 * body with {@link exactPayload}. A long array of the answer is scrubbed and
 * written element by element (`JsonWrite.stringifySteps`), pausing for the event
 * loop every `sliceMs` (default `Compactor.defaultSliceMs`).
 *
 * @since 0.1.0
 * @category exact numbers
 */
export const exactJsonResponse = <A, I>(
  schema: Schema.Schema<A, I>,
  value: A,
  options: { readonly status?: number; readonly jsonFields?: ReadonlyArray<string>; readonly sliceMs?: number } = {}
): Effect.Effect<HttpServerResponse.HttpServerResponse> =>
  Effect.flatMap(Effect.orDie(Schema.encode(schema)(value)), (encoded) =>
    exactAnswer(
      (function*() {
        return encoded as Record<string, unknown>
      })(),
      options
    ))

const encodeViewMessage = Schema.encodeSync(Api.ViewMessage)
const encodeToolResultReport = Schema.encodeSync(Api.ToolResultReport)
const encodeCompactResult = Schema.encodeSync(Api.CompactResult)

/**
 * A compaction's result encoded as `Schema.encode(Api.CompactResult)` does,
 * in steps: its view and tool-result reports message by message.
 */
function* compactResultSteps(result: Api.CompactResult): Cooperative.Steps<Record<string, unknown>> {
  const rest = encodeCompactResult(new Api.CompactResult({ ...result, view: [], toolResults: [] })) as Record<string, unknown>
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
 * HTTP API, the proxy and the Promise API share; removed in 0.3.0.
 */
export const sessionIdOf: (transcript: Transcript.Transcript) => string = Session.idOf

/** A semaphore per session, so that two requests of one session do not compact at once; the least recently used are forgotten. */
const sessionLocks = () => {
  const locks = new Map<string, Effect.Semaphore>()
  return (sessionId: string): Effect.Semaphore => {
    const known = locks.get(sessionId)
    if (known !== undefined) locks.delete(sessionId)
    else if (locks.size >= 1_024) locks.delete(locks.keys().next().value!)
    const lock = known ?? Effect.unsafeMakeSemaphore(1)
    locks.set(sessionId, lock)
    return lock
  }
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
  readonly maxEventStreams?: number
  /** Where attended compactions run: they outlive the request that started them, not the server. */
  readonly scope: Scope.Scope
  /** How long a question waits for its answer before it is Trim (default `Questions.defaultTimeout`). */
  readonly questionTimeout?: Duration.DurationInput | undefined
  /** How long the handler works on one request before it lets the others run, in milliseconds (default `Compactor.defaultSliceMs`). */
  readonly sliceMs?: number | undefined
}) =>
  HttpApiBuilder.group(Api.Api, "compaction", (handlers) =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const settings = yield* Settings.Settings
      const tokenizer = yield* Tokenizer.Tokenizer
      const adapters = yield* Installed.adapters
      const lockOf = sessionLocks()
      const questions = Questions.make({ scope: options.scope, ...(options.questionTimeout === undefined ? {} : { timeout: options.questionTimeout }) })
      // The engine's counts: the messages a checkpoint just counted are not counted again.
      const tokensOf = compactor.tokensOf
      const maxCompactions = options.maxCompactions ?? defaultLimits.maxCompactions
      const maxEventStreams = options.maxEventStreams ?? defaultLimits.maxEventStreams
      const compactions = yield* Effect.makeSemaphore(maxCompactions)
      let openStreams = 0
      const sliceMs = options.sliceMs ?? Compactor.defaultSliceMs
      // A long transcript is walked in slices of time, so that other requests are answered meanwhile.
      const mapYielding = <A, B>(items: ReadonlyArray<A>, f: (item: A, index: number) => B): Effect.Effect<Array<B>> =>
        Effect.suspend(() => Cooperative.map(items, f, Cooperative.slice(sliceMs)))

      const compact = (payload: typeof Api.CompactRequest.Type) =>
        Effect.gen(function*() {
          // Let the request that decoded this body give way before the engine starts.
          yield* Effect.yieldNow()
          const decoded = yield* Cooperative.run(Formats.decodeTranscriptSteps(adapters, payload.transcript, payload.format), Cooperative.slice(sliceMs))
          if (Either.isLeft(decoded)) {
            const error = decoded.left
            return yield* new Api.InvalidTranscript({
              format: error.format,
              reason: error.reason,
              message: error.index === undefined ? error.reason : `${error.reason} (message ${error.index})`,
              ...(error.index === undefined ? {} : { index: error.index })
            })
          }
          const { decoded: { encode, format, transcript }, document } = decoded.right
          const sessionId = payload.sessionId ?? Session.idOf(transcript)
          const finish = Effect.gen(function*() {
            const overflow = payload.cause === "overflow" && payload.overflowError !== undefined
              ? Option.getOrUndefined(Overflow.classify(payload.overflowError))
              : undefined
            const manual = payload.instructions !== undefined
            const input = {
              sessionId,
              transcript,
              model: payload.model ?? options.model,
              contextWindow: payload.window,
              ...(payload.reportedContextTokens === undefined ? {} : { reportedContextTokens: payload.reportedContextTokens })
            }
            const checkpoint = yield* (
              payload.cause === "overflow"
                ? compactor.contextOverflow({ ...input, overflow })
                : manual
                ? compactor.compactNow({ ...input, instructions: payload.instructions })
                : compactor.checkpoint(input)
            ).pipe(
              lockOf(sessionId).withPermits(1),
              Effect.mapError((error) =>
                error.reason === "store"
                  ? new Api.ServerError({ message: error.message })
                  : new Api.CompactionFailed({
                    reason: error.reason,
                    sessionId,
                    message: error.reason === "cannot-fit" && !manual ? `the window of ${payload.window} tokens is too small: ${error.message}` : error.message
                  })
              )
            )
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
            for (let index = 0; index < transcript.length; index++) if (!inView.has(transcript[index]!.id)) replacedTokens += before[index]!
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

            const toolResults = (yield* mapYielding(transcript, (message, index): ReadonlyArray<Api.ToolResultReport> => {
              if (message._tag !== "ToolResult") return []
              const reduction = Reduce.reduce(message.content, { policies: builtInPolicies, cap: current.envelopeCapChars })
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
                rules: reduction.report.rules.map((rule) => ({ rule: rule.rule, reason: rule.reason, counts: rule.counts })),
                notes: reduction.report.notes
              }]
            })).flat()

            return new Api.CompactResult({
              report: new Api.CompactReport({
                sessionId,
                format,
                messages: transcript.length,
                ...Compactor.reportFields(checkpoint),
                ...(overflow === undefined ? {} : { overflow })
              }),
              output: encode(checkpoint.view),
              container: document.container,
              view: withBlock,
              toolResults,
              tokenizer: tokenizer.name
              // Checked as it is encoded (compactResultSteps), message by message: not here in one piece as well.
            }, { disableValidation: true })
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
      const events = Stream.unwrapScoped(
        Effect.map(compactor.subscribe, (queue) =>
          Stream.concat(
            // Sent once subscribed: a client that has read it sees every compaction from then on.
            Stream.make(sse("ready", { keepAliveMs: options.keepAliveMs })),
            Stream.merge(
              Stream.fromQueue(queue).pipe(Stream.map((report) => sse("compacted", encodeCompacted(report)))),
              keepAlive,
              { haltStrategy: "left" }
            )
          ))
      ).pipe(Stream.interruptWhen(Deferred.await(options.shutdown)), Stream.encodeText)

      const busy = (limit: string, max: number) =>
        new Api.Busy({ limit, max, message: `the server is at its limit of ${max} ${limit}: retry in ${busyRetrySeconds} s` })
      const countedEvents = Stream.acquireRelease(
        Effect.sync(() => openStreams++),
        () => Effect.sync(() => openStreams--)
      ).pipe(Stream.flatMap(() => events))

      return handlers
        // Read and written exactly: a number of the transcript comes back as it was sent.
        .handleRaw("compact", ({ request }) =>
          Effect.flatMap(exactPayload(Api.CompactRequest, { verbatim: ["transcript"], checkedByKind: ["transcript"], sliceMs })(request), (payload) =>
            compactions.withPermitsIfAvailable(1)(compact(payload)).pipe(
              Effect.flatMap(Option.match({ onNone: () => Effect.fail(busy("compactions at once", maxCompactions)), onSome: compactAnswer(sliceMs) }))
            )))
        .handle("answer", ({ path, payload }) =>
          Effect.flatMap(questions.answer(path.id, payload.choice), (step): Effect.Effect<HttpServerResponse.HttpServerResponse, Api.QuestionNotFound | Api.CompactionFailed | Api.ServerError> =>
            step === undefined
              ? Effect.fail(new Api.QuestionNotFound({ id: path.id, message: `no question ${path.id.slice(0, 80)} is waiting: it was answered already, or waited past its deadline and was taken as Trim` }))
              : Effect.flatMap(stepResponse(step as Questions.Step<Api.CompactResult, Api.CompactionFailed | Api.ServerError>), compactAnswer(sliceMs))))
        .handle("events", () =>
          openStreams >= maxEventStreams ? Effect.fail(busy("open event streams", maxEventStreams)) : Effect.succeed(HttpServerResponse.stream(countedEvents, {
            contentType: "text/event-stream",
            // Not reused once it ends: a server closing does not wait for the connection to idle out.
            headers: { "cache-control": "no-cache", "x-accel-buffering": "no", connection: "close" }
          })))
    }))

// --- reduction ---------------------------------------------------------------------

/**
 * The handler of `POST /v1/reduce`: `Reduce.reduce` with the built-in policies.
 *
 * @since 0.1.0
 * @category handlers
 */
export const layerReduction = HttpApiBuilder.group(Api.Api, "reduction", (handlers) =>
  // Read and written exactly: a number of the envelope comes back as it was sent.
  handlers.handleRaw("reduce", ({ request }) =>
    Effect.flatMap(exactPayload(Api.ReduceRequest, { verbatim: ["envelope"] })(request), (payload) => {
      // A bare number kept exactly is the envelope's text, as the CLI reads a file holding only `1e400`.
      const envelope = typeof payload.envelope === "string" ? Json.rawNumberLiteral(payload.envelope) ?? payload.envelope : payload.envelope
      const reduction = Reduce.reduce(envelope, {
        policies: builtInPolicies,
        ...(payload.cap === undefined ? {} : { cap: payload.cap })
      })
      return exactJsonResponse(
        Api.ReduceResult,
        new Api.ReduceResult({
          value: reduction.value ?? null,
          text: reduction.text,
          report: reduction.report,
          totals: Report.totals(reduction.report)
        }),
        { jsonFields: ["value"] }
      )
    })))

// --- the token ---------------------------------------------------------------------

const digestOf = (text: string): Buffer => Crypto.createHash("sha256").update(text).digest()

/**
 * Whether the value of an `Authorization` header carries the token; compared
 * in constant time. Without a token, every request is authorised.
 *
 * @since 0.1.0
 * @category security
 */
export const authorizes = (token: Redacted.Redacted<string> | undefined, header: string | undefined): boolean => {
  if (token === undefined) return true
  const match = /^Bearer\s+(.+)$/i.exec(header?.trim() ?? "")
  return match !== null && Crypto.timingSafeEqual(digestOf(match[1]!), digestOf(Redacted.value(token)))
}

const unauthorizedMessage = (header: string | undefined) =>
  header === undefined || header.trim() === ""
    ? `this server needs a token: send Authorization: Bearer <token> (the token of serve --token or ${tokenEnv})`
    : "the bearer token is not this server's"

/**
 * The `Authorization` middleware: the bearer token of every API route.
 *
 * @since 0.1.0
 * @category security
 */
export const layerAuthorization = (token: Redacted.Redacted<string> | undefined) =>
  Layer.succeed(
    Api.Authorization,
    Api.Authorization.of({
      // The header itself is read: the decoded credential does not say whether its scheme was Bearer.
      bearer: () =>
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
          authorizes(token, request.headers["authorization"])
            ? Effect.void
            : Effect.fail(new Api.Unauthorized({ message: unauthorizedMessage(request.headers["authorization"]) })))
    })
  )

// --- the page ----------------------------------------------------------------------

/**
 * Where the OpenAPI description of the API is served. Like the page, it needs no token.
 *
 * @since 0.1.0
 * @category page
 */
export const openApiPath = "/v1/openapi.json"


const pageFiles: Record<string, { readonly file: string; readonly contentType: string }> = {
  "/": { file: "index.html", contentType: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", contentType: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", contentType: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", contentType: "text/css; charset=utf-8" }
}

// Everything the page loads is its own: no network beyond this server.
const pageHeaders = {
  "content-security-policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache"
}

/**
 * Where the page is found by default: `web/` of the package, beside `src/`
 * two levels up from `src/http/` when run from the sources, three from `dist/src/http/` when built.
 *
 * @since 0.1.0
 * @category page
 */
export const webDirectoryCandidates = (): ReadonlyArray<string> => {
  const here = NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url))
  return [NodePath.resolve(here, "..", "..", "web"), NodePath.resolve(here, "..", "..", "..", "web")]
}

const errorResponse = <A, I>(schema: Schema.Schema<A, I>, error: A, status: number) =>
  HttpServerResponse.unsafeJson(Schema.encodeSync(schema)(error), { status })

/**
 * The routes of the page: `/` (and `/index.html`), `/app.js`, `/style.css`,
 * read from `directory` at each request. They need no token: the page holds no
 * data, and asks for the token to send with its API calls.
 *
 * @since 0.1.0
 * @category page
 */
export const layerPage = (directory: string | undefined) =>
  HttpApiBuilder.Router.use((router) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const found = directory !== undefined
        ? directory
        : (yield* Effect.filter(webDirectoryCandidates(), (candidate) => fs.exists(NodePath.join(candidate, "index.html")).pipe(Effect.orElseSucceed(() => false))))[0]
      for (const [path, page] of Object.entries(pageFiles)) {
        yield* router.get(
          path as `/${string}`,
          found === undefined
            ? Effect.succeed(errorResponse(Api.NotFound, new Api.NotFound({ method: "GET", path, message: "the page is not installed: no web/ folder beside the package" }), 404))
            : fs.readFile(NodePath.join(found, page.file)).pipe(
              Effect.map((body) => HttpServerResponse.uint8Array(body, { contentType: page.contentType, headers: pageHeaders })),
              Effect.orElseSucceed(() =>
                errorResponse(Api.NotFound, new Api.NotFound({ method: "GET", path, message: `the page file ${page.file} cannot be read from ${found}` }), 404)
              )
            )
        )
      }
    })
  )

// --- what every request goes through -------------------------------------------------

const isRequestError = (error: unknown): error is HttpServerError.RequestError =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RequestError"

const isRouteNotFound = (error: unknown): error is HttpServerError.RouteNotFound =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound"

/**
 * The most characters of any one string an error answer carries: a refused
 * value is named, not sent back whole.
 *
 * @since 0.1.0
 * @category constants
 */
export const errorEchoLimit = 1_000

/** How many decode issues an error answer lists. */
const issuesListed = 20

const capText = (text: string): string =>
  text.length <= errorEchoLimit ? text : `${text.slice(0, errorEchoLimit)}… (${text.length.toLocaleString("en-US")} characters in all)`

/**
 * An API error with every string field cut to {@link errorEchoLimit}
 * characters and at most 20 decode issues, and no number placeholder of the
 * exact reader left in any of them (`Json.withoutRawNumbers`): the same class,
 * so it is written with the same status and shape.
 *
 * @since 0.1.0
 * @category middleware
 */
export const capEchoes = <E>(error: E): E => {
  if (typeof error !== "object" || error === null) return error
  const fields = error as Record<string, unknown>
  const echo = (text: string) => capText(Json.withoutRawNumbers(text))
  const long = Object.keys(fields).some((key) => {
    const value = fields[key]
    return (typeof value === "string" && echo(value) !== value) || (key === "issues" && Array.isArray(value))
  })
  if (!long) return error
  const copy = Object.create(Object.getPrototypeOf(error)) as Record<string, unknown>
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    copy[key] = typeof value === "string"
      ? echo(value)
      : key === "issues" && Array.isArray(value)
      ? value.slice(0, issuesListed).map((issue) =>
        typeof issue === "object" && issue !== null && typeof (issue as { message?: unknown }).message === "string"
          ? { ...issue, message: echo((issue as { message: string }).message) }
          : issue
      )
      : value
  }
  return copy as E
}

/**
 * The rule a server without a token keeps against other sites, which a
 * browser would otherwise let write to it (SPEC: nothing persisted by a page
 * the user did not open): a request whose `Host` names neither the bound
 * address, nor `localhost` or a loopback address, nor one of `allowedHosts`
 * (with a wildcard bind, any IP address) gets 421, which defeats DNS
 * rebinding; a state-changing request (not GET, HEAD or OPTIONS) whose
 * `Origin` is present and is not the server's own (scheme, host and port of
 * its `Host`) gets 403. A request without `Origin` (curl, SDKs) passes. Gives
 * the refusal, or `undefined` to go on.
 *
 * @since 0.1.0
 * @category middleware
 */
export const sameSiteRule = (
  request: { readonly method: string; readonly headers: Readonly<Record<string, string | undefined>> },
  bound: HttpServer.Address | undefined,
  allowedHosts: ReadonlyArray<string> = []
): Api.CrossOrigin | Api.UnknownHost | undefined => {
  const hostHeader = request.headers["host"]
  if (hostHeader !== undefined) {
    const host = hostOf(hostHeader)
    const boundName = bound?._tag === "TcpAddress" ? hostnameOf(bound.hostname) : undefined
    const wildcard = boundName === undefined || boundName === "0.0.0.0" || boundName === "[::]"
    const allowed = host !== undefined && (
      loopbackNames.has(host.hostname) || host.hostname === boundName ||
      allowedHosts.some((name) => hostnameOf(name) === host.hostname) ||
      (wildcard && isIpLiteral(host.hostname))
    )
    if (!allowed) {
      return new Api.UnknownHost({
        host: hostHeader.slice(0, 200),
        message: `this server does not answer to the host ${JSON.stringify(hostHeader.slice(0, 200))}: use its address or localhost, or start it with --allowed-host NAME or a --token`
      })
    }
  }
  const origin = request.headers["origin"]
  if (origin === undefined || safeMethods.has(request.method.toUpperCase())) return undefined
  const own = hostHeader === undefined ? undefined : hostOf(hostHeader)
  const from = originOf(origin)
  if (own !== undefined && from !== undefined && from.scheme === "http" && from.host === own.host) return undefined
  return new Api.CrossOrigin({
    origin: origin.slice(0, 200),
    message: `a server without a token takes changes only from its own page, not from ${JSON.stringify(origin.slice(0, 200))} (start it with a --token to be called from elsewhere)`
  })
}

const safeMethods = new Set(["GET", "HEAD", "OPTIONS"])
const loopbackNames = new Set(["localhost", "127.0.0.1", "[::1]"])

/** A host name as URLs write it: lower case, an IPv6 address in brackets. */
const hostnameOf = (name: string): string | undefined => {
  const trimmed = name.trim().toLowerCase()
  const bracketed = trimmed.includes(":") && !trimmed.startsWith("[") ? `[${trimmed}]` : trimmed
  try {
    return new NodeUrl.URL(`http://${bracketed}`).hostname
  } catch {
    return undefined
  }
}

/** The hostname and `host:port` of a `Host` header (port 80 when it names none), or none when it is not a host. */
const hostOf = (header: string): { readonly hostname: string; readonly host: string } | undefined => {
  try {
    const url = new NodeUrl.URL(`http://${header.trim()}`)
    if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") return undefined
    return { hostname: url.hostname, host: `${url.hostname}:${url.port === "" ? "80" : url.port}` }
  } catch {
    return undefined
  }
}

/** The scheme and `host:port` of an `Origin` header, or none (`null`, not a URL). */
const originOf = (header: string): { readonly scheme: string; readonly host: string } | undefined => {
  try {
    const url = new NodeUrl.URL(header.trim())
    const scheme = url.protocol.replace(/:$/, "")
    return { scheme, host: `${url.hostname}:${url.port === "" ? (scheme === "https" ? "443" : "80") : url.port}` }
  } catch {
    return undefined
  }
}

const isIpLiteral = (hostname: string): boolean => /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname)

/**
 * What every request goes through, around the router and before errors are
 * written: a body past `maxBodyBytes` is refused with 413 before it is read
 * (by its `Content-Length`) or while it is read (chunked); a body is read as
 * JSON whatever its `Content-Type` says (`curl -d` says a form); a body that
 * is not JSON gets 400, an unknown route 404 (401 first when the token is
 * missing), anything else unexpected 500 — each with a JSON body naming the
 * problem, and the server goes on serving. A 401 says `WWW-Authenticate: Bearer`.
 *
 * @since 0.1.0
 * @category middleware
 */
export const guard = (options: {
  readonly maxBodyBytes: number
  readonly token: Redacted.Redacted<string> | undefined
  /** Where the server listens: with no token, {@link sameSiteRule} holds against it. */
  readonly bound?: HttpServer.Address | undefined
  readonly allowedHosts?: ReadonlyArray<string> | undefined
}) => {
  const limit = `${(options.maxBodyBytes / 1_048_576).toLocaleString("en-US", { maximumFractionDigits: 2 })} MiB`
  const tooLarge = (given: string) =>
    errorResponse(
      Api.PayloadTooLarge,
      new Api.PayloadTooLarge({ limitBytes: options.maxBodyBytes, message: `the body${given} is past the limit of ${limit} (${options.maxBodyBytes} bytes)` }),
      413
    ).pipe(HttpServerResponse.setHeader("connection", "close"))
  const challenge = HttpApp.appendPreResponseHandler((_, response) =>
    Effect.succeed(
      response.status === 401
        ? HttpServerResponse.setHeader(response, "www-authenticate", "Bearer")
        : response.status === 503
        ? HttpServerResponse.setHeader(response, "retry-after", String(busyRetrySeconds))
        : response
    )
  )
  return (app: HttpApp.Default): HttpApp.Default =>
    Effect.gen(function*() {
      const original = yield* HttpServerRequest.HttpServerRequest
      yield* challenge
      if (options.token === undefined) {
        const refused = sameSiteRule(original, options.bound, options.allowedHosts)
        if (refused !== undefined) {
          return refused._tag === "CrossOrigin"
            ? errorResponse(Api.CrossOrigin, refused, 403)
            : errorResponse(Api.UnknownHost, refused, 421)
        }
      }
      const declared = Number(original.headers["content-length"] ?? 0)
      if (declared > options.maxBodyBytes) return tooLarge(` of ${declared} bytes`)
      const contentType = original.headers["content-type"]
      const request = original.method === "GET" || original.method === "HEAD" || contentType?.toLowerCase().includes("application/json") === true
        ? original
        : original.modify({ headers: { ...original.headers, "content-type": "application/json" } })
      return yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Effect.provideService(HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(options.maxBodyBytes))),
        Effect.catchAllCause((cause) => {
          if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
          const error = Cause.squash(cause)
          if (isRouteNotFound(error)) {
            const header = request.headers["authorization"]
            if (!authorizes(options.token, header)) {
              return Effect.succeed(errorResponse(Api.Unauthorized, new Api.Unauthorized({ message: unauthorizedMessage(header) }), 401))
            }
            const path = request.url.split("?")[0] ?? request.url
            return Effect.succeed(errorResponse(
              Api.NotFound,
              new Api.NotFound({ method: request.method, path, message: `no route ${request.method} ${path}: the API is under /v1 (see docs/http.md), the page at /` }),
              404
            ))
          }
          if (isRequestError(error)) {
            const reason = error.cause instanceof Error ? error.cause.message : String(error.cause)
            if (reason.includes("maxBytes exceeded")) return Effect.succeed(tooLarge(""))
            const problem = error.cause instanceof SyntaxError ? `the body is not valid JSON: ${reason}` : `the body could not be read: ${reason}`
            return Effect.succeed(errorResponse(Api.InvalidJson, new Api.InvalidJson({ message: problem }), 400))
          }
          // The API's own errors (a refused setting, a decode error, 401) are written by HttpApiBuilder after this.
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure)) return Effect.fail(capEchoes(failure.value))
          return Effect.as(
            Effect.logError("context-compressor serve: a request failed", cause),
            errorResponse(Api.ServerError, new Api.ServerError({ message: "the server failed on this request; its log has the cause" }), 500)
          )
        })
      )
    })
}

// --- the server --------------------------------------------------------------------

/**
 * The whole server on the current `HttpServer` over an engine given to it (the
 * services of {@link layerEngine}): the API, its OpenAPI description, the page,
 * the guard. `proxy --admin-port` serves it over the proxy's own engine, so its
 * events and page show the proxy's sessions. Open event streams end when the
 * layer is released, before the server closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOver = (options: Options = {}) =>
  Layer.unwrapScoped(
    Effect.gen(function*() {
      const shutdown = yield* Deferred.make<void>()
      yield* Effect.addFinalizer(() => Deferred.succeed(shutdown, undefined))
      const scope = yield* Effect.scope
      const bound = (yield* HttpServer.HttpServer).address
      const handlers = Layer.mergeAll(
        layerSettings,
        layerCompaction({
          model: options.model ?? "offline",
          keepAliveMs: options.keepAliveMs ?? defaultKeepAliveMs,
          shutdown,
          scope,
          questionTimeout: options.questionTimeout,
          sliceMs: options.sliceMs,
          ...(options.maxCompactions === undefined ? {} : { maxCompactions: options.maxCompactions }),
          ...(options.maxEventStreams === undefined ? {} : { maxEventStreams: options.maxEventStreams })
        }),
        layerReduction
      ).pipe(Layer.provide(layerAuthorization(options.token)))
      const api = HttpApiBuilder.api(Api.Api).pipe(Layer.provide(handlers))
      return HttpApiBuilder.serve().pipe(
        Layer.provide(HttpApiBuilder.middleware(guard({
          maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
          token: options.token,
          bound,
          allowedHosts: options.allowedHosts
        }))),
        Layer.provide(layerPage(options.webDirectory)),
        Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: openApiPath })),
        Layer.provide(api)
      )
    })
  )

/**
 * The whole server on the current `HttpServer`: the API, its OpenAPI
 * description, the page, the guard, over the engine of `options.directory`.
 * Open event streams end when the layer is released, before the server closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<never, StartError, HttpServer.HttpServer | HttpRouter.HttpRouter.DefaultServices> =>
  layerOver(options).pipe(Layer.provide(layerEngine(options)))

/**
 * The server on a Node HTTP server listening on `host` (default `127.0.0.1`)
 * and `port` (0: any free port; read it from `HttpServer.HttpServer`'s address).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (
  options: Options & { readonly port: number; readonly host?: string }
): Layer.Layer<HttpServer.HttpServer, StartError | HttpServerError.ServeError> =>
  layer(options).pipe(
    Layer.provideMerge(NodeHttpServer.layer(() =>
      Http.createServer({
        headersTimeout: options.headersTimeoutMs ?? defaultLimits.headersTimeoutMs,
        requestTimeout: options.requestTimeoutMs ?? defaultLimits.requestTimeoutMs
      }), { port: options.port, host: options.host ?? "127.0.0.1" }))
  )
