/**
 * What the proxy does to the body of a chat request before it goes upstream:
 * its messages compacted through the one request path (`CompactDocument`,
 * the signal of the session's last reported count), the view written back in
 * the request's format; or the body as it came, with why. What was done is
 * the `Outcome` its report header tells.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as SameMessage from "../../core/checkpoint/SameMessage.js"
import * as JsonContinuation from "../../core/json/JsonContinuation.js"
import * as Result from "../../core/Result.js"
import type * as Adapter from "../../face/adapters/Adapter.js"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Compactor from "../../face/engine/Compactor.js"
import type * as Overflow from "../../face/engine/Overflow.js"
import * as Session from "../../face/engine/Session.js"
import * as JsonRead from "../../face/models/internal/JsonRead.js"
import * as Json from "../../face/models/Json.js"
import * as BodyLimits from "./BodyLimits.js"
import * as Caller from "./Caller.js"
import type * as ProxyReported from "./ProxyReported.js"
import { record, type Route } from "./ProxyRoutes.js"
import * as ProxyUsage from "./ProxyUsage.js"
import { defaultWindow, sessionHeader, windowHeader } from "./ServerDefaults.js"

/** The counts a request sent: its messages (`messages` of its body), those the upstream got, and their tokens. */
interface Sent {
  readonly received: number
  readonly sent: number
  readonly tokens: number
  readonly basis: ProxyUsage.Basis
}

/**
 * What the proxy did to one request, for its report header. Message counts
 * are the request's own (`messages` of its body: an Anthropic system prompt is
 * not one), `sent` those of the body the upstream received.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Compacted"; readonly event: Compactor.Compacted } & Sent
  | { readonly _tag: "Restored" } & Sent
  | { readonly _tag: "Unchanged" } & Sent
  | { readonly _tag: "PassedThrough"; readonly reason: string }
  /** Anthropic's context management emulated (`ProxyNativeCompaction`): what it did, in the header's words. */
  | { readonly _tag: "Emulated"; readonly description: string }

const messageCounts = (received: number, sent: number): string =>
  received === sent ? `messages=${sent}` : `messages=${received}->${sent}`

/**
 * An outcome in the words of the report header: `compacted; cause=trigger;
 * messages=371->14; tokens=236399->15851`, `restored; from=saved-compaction;
 * …`, `unchanged; …`, `passed-through; reason=…`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describeOutcome = (outcome: Outcome): string => {
  switch (outcome._tag) {
    case "Compacted":
      return `compacted; cause=${outcome.event.cause}; messages=${outcome.received}->${outcome.sent}; ` +
        `tokens=${outcome.event.tokensBefore}->${outcome.tokens}`
    case "Restored":
      return `restored; from=saved-compaction; ${
        messageCounts(outcome.received, outcome.sent)
      }; tokens=${outcome.tokens}`
    case "Unchanged":
      return `unchanged; ${messageCounts(outcome.received, outcome.sent)}; tokens=${outcome.tokens}`
    case "PassedThrough":
      // A header value is one line of visible ASCII.
      return `passed-through; reason=${outcome.reason.replace(/[^\x20-\x7e]+/g, " ").slice(0, 300)}`
    case "Emulated":
      return `emulated; ${outcome.description.replace(/[^\x20-\x7e]+/g, " ").slice(0, 300)}`
  }
}

/**
 * A request ready to send: its body and what was done.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prepared {
  readonly body: string
  /** The body is the request's as it came: it goes on as the bytes it came as (its text decoded only when read). */
  readonly asItCame?: boolean | undefined
  readonly outcome: Outcome
  /** Present when the body was compacted: how to compact harder after an overflow. */
  readonly overflow?: (error: Overflow.ContextOverflow) => Effect.Effect<Prepared, CompactDocument.CompactDocumentError>
}

/** Why a request goes on as it came: its messages unreadable, or the engine gave no view. */
const sentAsItCame = ({ problem }: CompactDocument.CompactDocumentError): string =>
  problem._tag === "AdapterError"
    ? problem.index === undefined ? problem.reason : `${problem.reason} (message ${problem.index})`
    : `compaction failed (${problem.reason}): ${problem.message}`

/**
 * A chat request as the proxy received it: its route, its body, the session
 * its header names and the window of a model (none: the header's window is
 * not a positive integer).
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly route: Route
  /** The body's text (decoded from its bytes when first read: see `BodyLimits.bodyOfBytes`). */
  readonly text: string
  /** Whether the body opens with a byte-order mark (then a view of it goes as new text, without one). */
  readonly byteOrderMark: boolean
  /**
   * The body as `Json.parse` reads it: parsed at the first call (once the request's turn in the queue came),
   * then the same value for every step that looks at the request.
   */
  readonly parsed: () => ReturnType<typeof Json.parse>
  /** The session the request named (`x-session-id`), before it is scoped to the caller. */
  readonly sessionId: string | undefined
  /** The request's caller (`Caller.of`): the session, named or derived, is scoped to it. */
  readonly caller: string | undefined
  readonly windowOf: (model: string) => number | undefined
}

/**
 * The last body each session sent, as read, so that the session's next body
 * decodes and parses only what it adds: the new messages and the members
 * after them (`JsonContinuation.continueAfter`). A body is found by
 * {@link bodyKey} and used only when the new body repeats its bytes up to the
 * end of its history's last element; at most `maxBytes` bytes of bodies are
 * kept, the least recently sent forgotten first.
 *
 * @since 0.1.0
 * @category models
 */
export interface Bodies {
  /**
   * Why a body is refused for its depth (`BodyLimits.depthRefusal`), if it is: for a body that repeats
   * the key's last one, only what follows its history is scanned (the rest was, and nests as deep).
   */
  readonly depthRefusal: (key: string, body: BodyLimits.Body) => string | undefined
  /** A body parsed, as the continuation of the key's last one when it repeats it; the body kept as the last. */
  readonly parse: (key: string, body: BodyLimits.Body, history: string) => ReturnType<typeof Json.parse>
}

/**
 * How many bytes of the sessions' last bodies a proxy keeps by default (32 MB).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultBodyBytes = 32_000_000

/**
 * Where a body's session keeps its last one: the route's format, the caller
 * and the session its header names (a caller that names none: its last body
 * of the format). Only a candidate: a body continues it only when its bytes
 * repeat that body's.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bodyKey = (route: Route, headers: Readonly<Record<string, string | undefined>>): string =>
  JSON.stringify([
    route.adapter.format,
    Caller.of(headers, Caller.proxyCredentials) ?? null,
    headers[sessionHeader]?.trim() || null
  ])

/**
 * A body kept: its value, its bytes, the byte past its history's last element, and how deeply its
 * bytes before that one nest (a body that repeats them nests as deeply there).
 */
interface Kept {
  readonly read: Pick<JsonContinuation.Read, "value" | "key" | "before">
  readonly bytes: Uint8Array
  readonly lastEndByte: number
  readonly headDepth: number
}

/** Where a body's bytes stop repeating a kept body's: past its history's last element, or nowhere. */
const repeatedTo = (kept: Kept | undefined, bytes: Uint8Array | undefined): number | undefined => {
  if (kept === undefined || bytes === undefined) return undefined
  const at = kept.lastEndByte
  return bytes.byteLength > at && Buffer.compare(bytes.subarray(0, at), kept.bytes.subarray(0, at)) === 0
    ? at
    : undefined
}

/**
 * An empty {@link Bodies} of at most `maxBytes` bytes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bodies = (maxBytes: number = defaultBodyBytes): Bodies => {
  const last = new Map<string, Kept>()
  let bytesKept = 0
  const forget = (key: string) => {
    const kept = last.get(key)
    if (kept === undefined) return
    last.delete(key)
    bytesKept -= kept.bytes.byteLength
  }
  const keep = (key: string, kept: Kept) => {
    if (kept.bytes.byteLength > maxBytes) return
    last.set(key, kept)
    bytesKept += kept.bytes.byteLength
    for (const [oldest] of last) {
      if (bytesKept <= maxBytes) break
      forget(oldest)
    }
  }
  // Of each body asked about: the kept body it was compared with and where it stops repeating it, and its depth
  // (its depth check, then its parse, compare it once).
  const checked = new WeakMap<BodyLimits.Body, { readonly kept: Kept | undefined; readonly at: number | undefined }>()
  const depths = new WeakMap<BodyLimits.Body, number>()
  const repeats = (kept: Kept | undefined, body: BodyLimits.Body): number | undefined => {
    const known = checked.get(body)
    if (known !== undefined && known.kept === kept) return known.at
    const at = repeatedTo(kept, body.bytes)
    checked.set(body, { kept, at })
    return at
  }
  const depthOf = (kept: Kept | undefined, body: BodyLimits.Body): number => {
    const known = depths.get(body)
    if (known !== undefined) return known
    const at = repeats(kept, body)
    // Past the last body's history the text is two deep (its object, the history's array).
    const depth = body.bytes === undefined
      ? Json.nestingDepth(body.text, BodyLimits.maxJsonDepth)
      : at === undefined
      ? BodyLimits.depthOfBytes(body.bytes)
      : Math.max(kept!.headDepth, BodyLimits.depthOfBytes(body.bytes, at, body.bytes.byteLength, 2))
    depths.set(body, depth)
    return depth
  }
  /** The body as the continuation of `kept`: its bytes repeat them up to the history's end, the rest read. */
  const continued = (kept: Kept | undefined, body: BodyLimits.Body, history: string) => {
    const at = repeats(kept, body)
    if (kept === undefined || at === undefined || kept.read.key !== history) return undefined
    const bytes = body.bytes!
    // The repeated bytes end just past an element's last character, which is ASCII: the rest decodes on its own.
    const tail = BodyLimits.textOfBytes(bytes, at)
    const next = JsonContinuation.continueAfter(tail, kept.read)
    if (next === undefined) return undefined
    const lastEndByte = at + Buffer.byteLength(tail.slice(0, next.lastEnd), "utf8")
    return {
      value: next.value,
      kept: {
        read: { value: next.value, key: history, before: kept.read.before },
        bytes,
        lastEndByte,
        headDepth: Math.max(kept.headDepth, BodyLimits.depthOfBytes(bytes, at, lastEndByte, 2))
      }
    }
  }
  return {
    depthRefusal: (key, body) => BodyLimits.refusalOfDepth(depthOf(last.get(key), body)),
    parse: (key, body, history) => {
      const next = continued(last.get(key), body, history)
      forget(key)
      if (next !== undefined) {
        keep(key, next.kept)
        return JsonRead.toResult(Result.ok(next.value))
      }
      const text = body.text
      const outcome = JsonContinuation.read(text, history)
      const read = outcome.read
      if (read !== undefined && body.bytes !== undefined) {
        const lastEndByte = body.bytes.byteLength - Buffer.byteLength(text.slice(read.lastEnd), "utf8")
        keep(key, {
          read,
          bytes: body.bytes,
          lastEndByte,
          headDepth: BodyLimits.depthOfBytes(body.bytes, 0, lastEndByte)
        })
      }
      return JsonRead.toResult(outcome.value)
    }
  }
}

/**
 * The {@link Request}s of the bodies the proxy reads: of each, the session its
 * `x-session-id` names, its caller (`Caller.of` over the proxy's
 * credentials), the window of a model as {@link windowOf} gives it, and the
 * body parsed when a step first reads it, that value for every later step
 * (through `bodies`, when given: parsed as the continuation of the
 * session's last body).
 *
 * @since 0.1.0
 * @category constructors
 */
export const requestOf = (options: Parameters<typeof windowOf>[0], bodies?: Bodies | undefined) =>
(
  route: Route,
  body: BodyLimits.Body,
  headers: Readonly<Record<string, string | undefined>>
): Request => {
  let parsed: ReturnType<typeof Json.parse> | undefined
  return {
    route,
    get text() {
      return body.text
    },
    byteOrderMark: BodyLimits.byteOrderMark(body),
    parsed: () => (parsed ??= bodies === undefined
      ? Json.parse(body.text)
      : bodies.parse(bodyKey(route, headers), body, route.history)),
    sessionId: headers[sessionHeader]?.trim() || undefined,
    caller: Caller.of(headers, Caller.proxyCredentials),
    windowOf: (model) => windowOf(options, headers, model)
  }
}

/**
 * A request's body prepared to go on as it came, with its outcome: sent as
 * the bytes it came as; its text (`body`) decoded only when read.
 *
 * @since 0.1.0
 * @category constructors
 */
export const asItCame = <O extends Outcome>(
  request: Request,
  outcome: O,
  overflow?: Prepared["overflow"]
): Prepared & { readonly outcome: O } => ({
  get body() {
    return request.text
  },
  asItCame: true,
  outcome,
  ...(overflow === undefined ? {} : { overflow })
})

/**
 * The proxy's preparation of a request's body over an engine and the counts
 * the upstream reported. It never fails: a request the engine cannot read, or
 * of which it gives no view, goes on as it came.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (compactor: Compactor.Service, reported: ProxyReported.Reported) => {
  // Each route's adapter as one that keeps its last decodings: a session's next body, which repeats the last one's
  // message values (`Bodies`), decodes only its new messages.
  const continuing = new Map<Adapter.Adapter, Adapter.Adapter>()
  // Each message's content digest, once per message object: a report's basis names the whole history by them.
  const digests = SameMessage.digests()
  const adapterOf = (adapter: Adapter.Adapter): Adapter.Adapter => {
    let kept = continuing.get(adapter)
    if (kept === undefined) {
      kept = adapter.continuing?.() ?? adapter
      continuing.set(adapter, kept)
    }
    return kept
  }
  return (request: Request): Effect.Effect<{ readonly prepared: Prepared; readonly sessionId?: string }> =>
    Effect.gen(function*() {
      const passThrough = (reason: string) => ({
        prepared: asItCame(request, { _tag: "PassedThrough", reason } as const)
      })
      const parsed = request.parsed()
      if (Http.isFailure(parsed)) return passThrough("the body is not JSON")
      const body = record(Http.successOf(parsed))
      const history = request.route.history
      const held = body === undefined ? undefined : request.route.passesThrough?.(body)
      if (held !== undefined) return passThrough(held)
      if (body === undefined || !Array.isArray(body[history])) return passThrough(`the body has no ${history} array`)
      const adapter = adapterOf(request.route.adapter)
      const read = yield* Compat.result(
        Caller.read(request.caller, { document: body, format: adapter.format, adapters: [adapter] }, request.sessionId)
      )
      if (Http.isFailure(read)) return passThrough(sentAsItCame(Http.failureOf(read)))
      const { decoded: { transcript }, sessionId, sessionIdDerived } = Http.successOf(read)
      const model = typeof body["model"] === "string" ? body["model"] : "unknown-model"
      const contextWindow = request.windowOf(model)
      if (contextWindow === undefined) return passThrough(`${windowHeader} is not a positive integer`)
      const received = (body[history] as ReadonlyArray<unknown>).length
      // The provider's count last reported for this history: the session's, or for a derived id whose report is
      // of another history that opens alike, the one of the branch this history was kept under (Session.branchOf).
      let report: ProxyUsage.Report | undefined
      let signal: number | undefined
      for (const id of sessionIdDerived === true ? Session.branchesOf(sessionId) : [sessionId]) {
        report = yield* reported.get(id)
        signal = report === undefined ? undefined : ProxyUsage.signalOf(report, transcript, compactor.tokensOf, digests)
        if (report === undefined || signal !== undefined) break
      }
      // The report names the compaction its view held: the engine uses it only for a view of the same one.
      const session = {
        sessionId,
        model,
        contextWindow,
        reportedContextTokens: signal,
        ...(signal === undefined || report?.basis.compactions === undefined
          ? {}
          : { reportedCompactions: report.basis.compactions })
      }
      // The server runs a handler uninterruptibly; the engine's deadlines (the summariser's) need to interrupt.
      const compact = (cause: CompactDocument.Cause) =>
        CompactDocument.compactDocument({ document: Http.successOf(read), session, cause }).pipe(
          Effect.provideService(Compactor.Compactor, compactor),
          Effect.interruptible
        )
      const render = ({ checkpoint, output }: CompactDocument.Compaction, harder: boolean): Prepared => {
        const sentMessages = record(output)?.[history]
        const sent = Array.isArray(sentMessages) ? sentMessages.length : checkpoint.view.length
        const tokens = checkpoint.tokens
        // Without a compaction now, a view holding a compacted block is the session's saved compaction applied again.
        const restored = checkpoint.view.some((message) => message._tag === "Compacted")
        const basis = ProxyUsage.basisOf(transcript, checkpoint.view, compactor.tokensOf, digests)
        const outcome = Option.match(checkpoint.compacted, {
          onNone: (): Outcome => ({ _tag: restored ? "Restored" : "Unchanged", received, sent, tokens, basis }),
          onSome: (event): Outcome => ({ _tag: "Compacted", event, received, sent, tokens, basis })
        })
        // The engine believes the provider: the window and the prompt tokens the error names.
        const overflow = harder ?
          undefined :
          (overflow: Overflow.ContextOverflow) =>
            Effect.map(compact({ _tag: "Overflow", overflow }), (compaction) => render(compaction, true))
        // A view the adapter wrote back as the very values it read goes on as the caller's own bytes.
        return sameDocument(body, output, history) && !request.byteOrderMark
          ? asItCame(request, outcome, overflow)
          : { body: Json.stringify(output), outcome, ...(overflow === undefined ? {} : { overflow }) }
      }
      const compaction = yield* Compat.result(compact(CompactDocument.trigger))
      if (Http.isFailure(compaction)) {
        const reason = Http.failureOf(compaction).problem.message
        yield* Effect.logWarning(`context-compressor proxy: session ${sessionId} sent uncompacted: ${reason}`)
        return { ...passThrough(sentAsItCame(Http.failureOf(compaction))), sessionId }
      }
      // The session the view was made in (a derived id's branch): its answer's count is kept there.
      return {
        prepared: render(Http.successOf(compaction), false),
        sessionId: Http.successOf(compaction).checkpoint.sessionId ?? sessionId
      }
    })
}

/**
 * Whether a document written back from a body is that body's value: the same
 * fields holding the same values, its history the same array of the very
 * message values it read (an adapter writes an unchanged message back as the
 * value it read, any other as a new one). Then the body's text says it as
 * exactly as a new text would, and it goes on as the caller sent it.
 *
 * @since 0.1.0
 * @category formatting
 */
export const sameDocument = (
  body: { readonly [key: string]: unknown },
  output: unknown,
  history: string
): boolean => {
  const written = record(output)
  if (written === undefined) return false
  const keys = Object.keys(body)
  if (Object.keys(written).length !== keys.length) return false
  for (const key of keys) {
    if (key === history) continue
    if (!Object.hasOwn(written, key) || written[key] !== body[key]) return false
  }
  const read = body[history]
  const sent = written[history]
  if (!Array.isArray(read) || !Array.isArray(sent) || read.length !== sent.length) return false
  for (let index = 0; index < read.length; index++) {
    if (sent[index] !== read[index]) return false
  }
  return true
}

/**
 * The context window of a request's model: the request's own header (none
 * when it is not a positive integer), else the per-model table, else the
 * proxy's window, else the default.
 *
 * @since 0.1.0
 * @category windows
 */
export const windowOf = (
  options: { readonly window?: number | undefined; readonly windows?: Readonly<Record<string, number>> | undefined },
  headers: Readonly<Record<string, string | undefined>>,
  model: string
): number | undefined => {
  const given = headers[windowHeader]
  if (given !== undefined) {
    const parsed = Number(given.trim().replaceAll("_", ""))
    return Number.isInteger(parsed) && parsed > 0 ? parsed : undefined
  }
  return options.windows?.[model] ?? options.window ?? defaultWindow
}
