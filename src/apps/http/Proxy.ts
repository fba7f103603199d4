/**
 * The compaction proxy of `context-compressor proxy`: an OpenAI-compatible and
 * Anthropic endpoint that compacts the messages of every chat-completions and
 * Messages request on its way to the upstream model server, so that an agent
 * in any language compacts by changing its base URL. Every other request
 * passes through unchanged. A context-overflow answer of the upstream enters
 * the overflow policy (compact harder, retry once), and the token counts the
 * upstream reports are the next checkpoint's signal (SPEC R2.1). See
 * `docs/proxy.md`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import type { HttpClientResponse } from "#compat-http"
import { HttpClientRequest, HttpServer, HttpServerRequest, HttpServerResponse } from "#compat-http"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import * as AnthropicMessages from "../../face/adapters/AnthropicMessages.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Overflow from "../../face/engine/Overflow.js"
import * as Json from "../../face/models/Json.js"
import * as CompactionStore from "../../face/services/CompactionStore.js"
import * as BodyLimits from "./BodyLimits.js"
import * as Connections from "./Connections.js"
import * as Server from "./HttpServer.js"
import * as ProxyCompaction from "./ProxyCompaction.js"
import * as ProxyNativeAnswers from "./ProxyNativeAnswers.js"
import * as ProxyNativeCompaction from "./ProxyNativeCompaction.js"
import * as ProxyOpenAiAnswers from "./ProxyOpenAiAnswers.js"
import * as ProxyOpenAiCompaction from "./ProxyOpenAiCompaction.js"
import * as ProxyRecall from "./ProxyRecall.js"
import * as ProxyReported from "./ProxyReported.js"
import { abortConnection, type Route, routes, upstreamErrorReason } from "./ProxyRoutes.js"
import {
  defaultConnectTimeout,
  escapesPrefix,
  forwardedHeaders,
  layerUpstreamClient,
  responseHeaders,
  UpstreamSilent,
  upstreamUrl
} from "./ProxyUpstream.js"
import { defaultWindow, sessionHeader, tokenHeader, windowHeader } from "./ServerDefaults.js"
import * as WaitQueue from "./WaitQueue.js"

export {
  /**
   * The default time {@link layerNode} gives a connection to the upstream to open: 10 seconds.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultConnectTimeout,
  /**
   * The context window assumed when neither the request, the per-model table nor `--window` gives one.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultWindow,
  /**
   * Whether a request path would climb out of the upstream's prefix (a `.` or `..` segment, plain or
   * percent-encoded); such a request is refused.
   *
   * @since 0.1.0
   * @category upstream
   */
  escapesPrefix,
  /**
   * Node's HTTP client whose connections must open within a deadline, the upstream timeout bounding the rest.
   *
   * @since 0.1.0
   * @category layers
   */
  layerUpstreamClient,
  /**
   * The request header naming the session; without it the session is derived from the transcript's first
   * messages, as `/v1/compact` derives it. Either way the session is the caller's own: scoped to a digest of the
   * request's credential (`Caller`), so two API keys never share one.
   *
   * @since 0.1.0
   * @category constants
   */
  sessionHeader,
  /**
   * The request header carrying the proxy's own token when it has one.
   *
   * @since 0.1.0
   * @category constants
   */
  tokenHeader,
  /**
   * The upstream was silent for the upstream timeout: before its head, between two chunks, or in a JSON answer.
   *
   * @since 0.1.0
   * @category errors
   */
  UpstreamSilent,
  /**
   * The upstream URL of a request path (with its query): the upstream's prefix, then the path, a `/v1` the
   * prefix ends with not repeated.
   *
   * @since 0.1.0
   * @category upstream
   */
  upstreamUrl,
  /**
   * The request header giving the model's context window in tokens.
   *
   * @since 0.1.0
   * @category constants
   */
  windowHeader
}

/**
 * Options of the proxy.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends ProxyRecall.Options, WaitQueue.CompactionOptions {
  /**
   * The model server requests go on to: its origin and any path prefix
   * (`https://api.openai.com`, `http://127.0.0.1:8000`). The request's own path
   * follows it; a prefix ending in `/v1` is not doubled by a path that starts
   * with `/v1/`.
   */
  readonly upstream: string
  /** The context window of every model not in `windows`, unless a request says (default {@link defaultWindow}). */
  readonly window?: number | undefined
  /** Context windows by model id (the `[proxy.windows]` table of config.toml). */
  readonly windows?: Readonly<Record<string, number>> | undefined
  /** When set, every request must carry it in {@link tokenHeader}; `Authorization` belongs to the upstream. */
  readonly token?: Redacted.Redacted<string> | undefined
  /**
   * Without a token, the host names the proxy answers to besides its own
   * address, `localhost` and the loopback addresses, as `serve`'s
   * `allowedHosts` (see `sameSiteRule`).
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /** The largest request body accepted, in bytes (default `serve`'s limit). */
  readonly maxBodyBytes?: number | undefined
  /** The largest error body of the upstream read to classify it (default 1 MiB); a longer one is passed on unread. */
  readonly maxErrorBodyBytes?: number | undefined
  /**
   * The longest silence of the upstream allowed, both before its response
   * head and between two chunks of a body relayed as it comes (default
   * {@link defaultUpstreamTimeout}); a JSON answer the proxy reads whole
   * must come whole within it of its head. Past it before the head, or in a
   * JSON answer, the client gets 504; mid-body the client's answer is cut as
   * a failure: for a stream an error event in the provider's shape, then the
   * connection aborted before the body's end.
   */
  readonly upstreamTimeout?: Compat.DurationInput | undefined
  /** What a Messages request's `context_management` and a Responses request's compaction get (default `auto`). */
  readonly nativeCompaction?: ProxyNativeCompaction.Mode | undefined
}

/**
 * The default of {@link Options.upstreamTimeout}: 300 seconds, room for a
 * slow model's first token on a long prompt.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultUpstreamTimeout: Duration.Duration = Duration.seconds(300)

/**
 * The default of {@link Options.maxErrorBodyBytes}: 1 MiB of an upstream's
 * error answer read to look for a context overflow.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxErrorBodyBytes = 1_048_576

/**
 * The response header that says what the proxy sent the upstream, in the
 * request's own message counts: `compacted; cause=trigger;
 * messages=371->14; tokens=236399->15851`, `restored;
 * from=saved-compaction; messages=264->39; tokens=7832` (the session's saved
 * compaction applied again), `unchanged; messages=12; tokens=3100`, or
 * `passed-through; reason=…`.
 *
 * @since 0.1.0
 * @category constants
 */
export const reportHeader = "x-context-compressor"

/** An error of the proxy's own, readable as OpenAI's (`error.message`) and as Anthropic's (`type: "error"`) shape. */
const jsonError = (status: number, type: string, message: string) =>
  Http.jsonUnsafe({ type: "error", error: { type, message } }, { status })

/**
 * The proxy as an `HttpApp`: compacts the chat-completions and Messages
 * requests, forwards them and every other request to the upstream, and keeps
 * the token counts the upstream reports per session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeApp = (options: Options) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    // Nothing of the proxy's own (trace headers included) goes to the upstream.
    const client = Http.withoutTracerPropagation(yield* Compat.HttpClient)
    const maxBodyBytes = options.maxBodyBytes ?? Server.defaultMaxBodyBytes
    const maxErrorBodyBytes = options.maxErrorBodyBytes ?? defaultMaxErrorBodyBytes
    const bound = Option.map(yield* Effect.serviceOption(HttpServer.HttpServer), (server) => server.address)
    // The connection is closed after the answer: the rest of the body is not read.
    const tooLarge = (given: string) =>
      HttpServerResponse.setHeader(
        jsonError(413, "request_too_large", `the body${given} is past the proxy's limit of ${maxBodyBytes} bytes`),
        "connection",
        "close"
      )
    const compactions = yield* WaitQueue.forCompactions(options, maxBodyBytes)
    // A refusal of the queue may come before the body is read: the connection is closed after the answer.
    const overloaded = (refused: WaitQueue.Refused) =>
      HttpServerResponse.setHeaders(
        jsonError(503, "overloaded", `the proxy's compactions are ${refused.message}`),
        { "retry-after": String(refused.retryAfterSeconds), connection: "close" }
      )
    // A report is kept with what the request it answered sent (`Outcome.basis`, see ProxyUsage), and shared
    // with the other workers when the store keeps the sessions' memory.
    const store = Option.getOrUndefined(yield* Effect.serviceOption(CompactionStore.CompactionStore))
    const reported = ProxyReported.make(store?.memory)
    const prepare = ProxyCompaction.make(compactor, reported)
    const bodies = ProxyCompaction.bodies()
    const requestOf = ProxyCompaction.requestOf(options, bodies)
    // Provider compaction (Anthropic's context management, OpenAI's compaction) is decided first: emulated, passed
    // through, or the usual compaction. OpenAI's items are signed with the store's key, so any worker reads them.
    const prepareChat = ProxyOpenAiCompaction.prepareWith(
      compactor,
      options,
      store,
      ProxyNativeCompaction.prepareWith(compactor, options, prepare),
      prepare
    )
    const remember = (sessionId: string, tokens: number | undefined, outcome: ProxyCompaction.Outcome) =>
      reported.remember(sessionId, tokens, "basis" in outcome ? outcome.basis : undefined)

    const upstreamTimeout = Compat.durationFromInput(options.upstreamTimeout ?? defaultUpstreamTimeout)
    const silent = () => new UpstreamSilent({ timeout: upstreamTimeout })
    // A body that sends nothing for the upstream timeout, before a chunk or between two, fails with UpstreamSilent.
    const silentAfterTimeout = Http.streamTimeoutOrElse({
      duration: upstreamTimeout,
      orElse: () => Stream.fail(silent())
    })

    const send = (
      request: HttpServerRequest.HttpServerRequest,
      body: string | Uint8Array | Stream.Stream<Uint8Array, unknown>,
      dropEncoding: boolean,
      editHeaders: (headers: Record<string, string>) => Record<string, string> = (headers) => headers
    ) => {
      const url = upstreamUrl(options.upstream, request.url)
      const headers = editHeaders(forwardedHeaders(request.headers, dropEncoding))
      const outbound = HttpClientRequest.make(request.method as "POST")(url).pipe(
        HttpClientRequest.setHeaders(headers),
        typeof body === "string"
          ? HttpClientRequest.bodyText(body, headers["content-type"] ?? "application/json")
          : body instanceof Uint8Array
          ? HttpClientRequest.bodyUint8Array(body, headers["content-type"] ?? "application/json")
          : (r) =>
            request.method === "GET" || request.method === "HEAD" ?
              r :
              HttpClientRequest.bodyStream(r, body as Stream.Stream<Uint8Array, never>, {
                ...(headers["content-type"] === undefined ? {} : { contentType: headers["content-type"] }),
                ...(request.headers["content-length"] === undefined
                  ? {}
                  : { contentLength: Number(request.headers["content-length"]) })
              })
      )
      // The server runs a handler uninterruptibly: the wait is made interruptible for its timeout to end it.
      return Effect.interruptible(client.execute(outbound)).pipe(
        Compat.timeoutOrElse({ duration: upstreamTimeout, orElse: () => Effect.fail(silent()) })
      )
    }

    const badGateway = (error: Compat.HttpClientError) =>
      Effect.as(
        Effect.logWarning(
          `context-compressor proxy: the upstream ${options.upstream} could not be reached: ${error.message}`
        ),
        jsonError(
          502,
          "upstream_unreachable",
          `the proxy could not reach the upstream ${options.upstream}: ${error.message}`
        )
      )

    const gatewayTimeout = (error: UpstreamSilent) =>
      Effect.as(
        Effect.logWarning(
          `context-compressor proxy: the upstream ${options.upstream} sent no response head within ${
            Duration.format(error.timeout)
          }`
        ),
        jsonError(
          504,
          "upstream_timeout",
          `the upstream ${options.upstream} sent no response within ${Duration.format(error.timeout)}`
        )
      )

    /**
     * The upstream's body, each chunk within the upstream timeout of the last.
     * A body the upstream cuts (reset, closed early, silent) ends the
     * client's answer as a failure: one warning line, then for a stream of
     * events an `error` event in the provider's shape, then the connection
     * aborted without the body's end.
     */
    const guardedBody = (
      request: HttpServerRequest.HttpServerRequest,
      response: HttpClientResponse.HttpClientResponse,
      sessionId: string | undefined,
      errorEvent: ((reason: string) => string) | undefined,
      onChunk?: (chunk: Uint8Array) => void
    ): Stream.Stream<Uint8Array> => {
      let bytes = 0
      let chunks = 0
      return response.stream.pipe(
        silentAfterTimeout,
        Stream.tap((chunk) =>
          Effect.sync(() => {
            bytes += chunk.byteLength
            chunks++
            onChunk?.(chunk)
          })
        ),
        Http.streamCatch((error) =>
          Stream.unwrap(Effect.gen(function*() {
            const reason = error._tag === "UpstreamSilent"
              ? error.message
              : `the upstream's body failed: ${upstreamErrorReason(error)}`
            yield* Effect.logWarning(
              `context-compressor proxy: session ${
                sessionId ?? "(none)"
              }: the upstream's answer (${response.status}) was cut after ${bytes} bytes in ${chunks} chunks: ${reason}; the client's connection is aborted`
            )
            const tail = errorEvent === undefined
              ? Stream.empty
              : Stream.make(new TextEncoder().encode(errorEvent(reason)))
            return Stream.concat(tail, Stream.fromEffect(abortConnection(request)))
          }))
        )
      )
    }

    // The body of an upstream answer read whole, all of it within the upstream timeout of its head: one deadline,
    // not one per chunk, since a stream of the platform with a deadline on each pull cost more than the rest of the
    // proxy's work on a body (a body relayed as it comes keeps the deadline between chunks). Past it the read is
    // interrupted, which aborts the upstream's request.
    const readBody = (response: HttpClientResponse.HttpClientResponse) =>
      Effect.interruptible(response.arrayBuffer).pipe(
        Effect.map((buffer) => new Uint8Array(buffer)),
        Compat.timeoutOrElse({ duration: upstreamTimeout, orElse: () => Effect.fail(silent()) })
      )

    /** The upstream's answer as the client's: streams chunk by chunk, usage read on the way. */
    const relay = (
      request: HttpServerRequest.HttpServerRequest,
      response: HttpClientResponse.HttpClientResponse,
      route: Route,
      sessionId: string | undefined,
      outcome: ProxyCompaction.Outcome,
      errorBody?: Uint8Array
    ) => {
      const headers = {
        ...responseHeaders(response.headers, options.token !== undefined),
        [reportHeader]: ProxyCompaction.describeOutcome(outcome)
      }
      if (errorBody !== undefined) {
        return Effect.succeed(HttpServerResponse.uint8Array(errorBody, { status: response.status, headers }))
      }
      const contentType = response.headers["content-type"] ?? ""
      if (contentType.includes("text/event-stream")) {
        const decoder = new TextDecoder()
        const parser = Http.makeSseParser((event) => {
          if (event._tag !== "Event" || sessionId === undefined || !event.data.includes("tokens")) return
          const data = Json.parse(event.data)
          if (Http.isSuccess(data)) remember(sessionId, route.usage(Http.successOf(data)), outcome)
        })
        const stream = guardedBody(request, response, sessionId, route.errorEvent, (chunk) =>
          parser.feed(decoder.decode(chunk, { stream: true })))
        // The answer ends once its count is shared: the session's next request, on any worker, compacts on it.
        const shared = sessionId === undefined
          ? stream
          : Stream.concat(stream, Http.streamFromEffectDrain(reported.settled(sessionId)))
        return Effect.succeed(HttpServerResponse.stream(shared, { status: response.status, headers }))
      }
      if (response.status >= 300 || sessionId === undefined || !contentType.includes("json")) {
        return Effect.succeed(
          HttpServerResponse.stream(guardedBody(request, response, sessionId, undefined), {
            status: response.status,
            headers
          })
        )
      }
      return readBody(response).pipe(
        Effect.flatMap((bytes) => {
          const data = Json.parse(new TextDecoder().decode(bytes))
          if (Http.isSuccess(data)) {
            remember(sessionId, route.usage(Http.successOf(data)), outcome)
          }
          return Effect.as(
            reported.settled(sessionId),
            HttpServerResponse.uint8Array(bytes, { status: response.status, headers })
          )
        }),
        Compat.catch((error) =>
          Effect.as(
            Effect.logWarning(
              `context-compressor proxy: session ${sessionId}: the upstream's answer (${response.status}) could not be read: ${
                error._tag === "UpstreamSilent" ? error.message : upstreamErrorReason(error)
              }`
            ),
            error._tag === "UpstreamSilent"
              ? jsonError(504, "upstream_timeout", `the upstream's answer stalled: ${error.message}`)
              : jsonError(
                502,
                "upstream_body",
                `the upstream's answer could not be read: ${upstreamErrorReason(error)}`
              )
          )
        )
      )
    }

    /**
     * The error body of a failed upstream answer, read to classify it: none
     * when it declares a size past the limit (it is passed on unread), else
     * what was read, and whether the read went past the limit or failed.
     */
    const readError = (response: HttpClientResponse.HttpClientResponse) =>
      BodyLimits.declaredPastLimit(response.headers, maxErrorBodyBytes) !== undefined
        ? Effect.succeed(Option.none<BodyLimits.Prefix<Compat.HttpClientError | UpstreamSilent>>())
        : Effect.interruptible(
          BodyLimits.readPrefix(response.stream.pipe(silentAfterTimeout), maxErrorBodyBytes)
        ).pipe(Effect.map(Option.some))

    /**
     * An error answer whose body could not be read whole (past the limit, cut,
     * stalled): what was read goes to the client, then its connection is
     * aborted without the body's end, and a warning says why.
     */
    const cutErrorAnswer = (
      request: HttpServerRequest.HttpServerRequest,
      response: HttpClientResponse.HttpClientResponse,
      sessionId: string | undefined,
      outcome: ProxyCompaction.Outcome,
      read: BodyLimits.Prefix<Compat.HttpClientError | UpstreamSilent>
    ) => {
      const reason = Option.match(read.failure, {
        onNone: () =>
          `its body is past the ${maxErrorBodyBytes} bytes read to classify it`,
        onSome: (error) =>
          error._tag === "UpstreamSilent" ? error.message : `its body failed: ${upstreamErrorReason(error)}`
      })
      return Effect.as(
        Effect.logWarning(
          `context-compressor proxy: session ${
            sessionId ?? "(none)"
          }: the upstream's error answer (${response.status}) could not be read whole: ${reason}; the ${read.bytes.byteLength} bytes read are relayed and the client's connection is aborted`
        ),
        HttpServerResponse.stream(Stream.concat(Stream.make(read.bytes), Stream.fromEffect(abortConnection(request))), {
          status: response.status,
          headers: {
            ...responseHeaders(response.headers, options.token !== undefined),
            [reportHeader]: ProxyCompaction.describeOutcome(outcome)
          }
        })
      )
    }

    /**
     * A chat request's body, let into the compaction queue before it is read
     * (past the queue's bound it is never read), read and compacted in its
     * turn: what to send on, or the answer that refuses it. Its bytes count
     * against the queue's budget until it is compacted.
     */
    const admitted = (request: HttpServerRequest.HttpServerRequest, route: Route) =>
      Effect.scoped(Effect.gen(function*() {
        const declared = BodyLimits.declaredPastLimit(request.headers, maxBodyBytes)
        if (declared !== undefined) {
          return Compat.Result.fail(tooLarge(` of ${declared} bytes`))
        }
        const ticket = yield* Compat.result(
          compactions.admit(BodyLimits.reservedBytes(request.headers, maxBodyBytes))
        )
        if (Http.isFailure(ticket)) {
          yield* BodyLimits.discardBody(request)
          return Compat.Result.fail(overloaded(Http.failureOf(ticket)))
        }
        const received = yield* BodyLimits.readBody(request, maxBodyBytes).pipe(Compat.result)
        if (Http.isFailure(received)) {
          const { cause } = Http.requestErrorCause(Http.failureOf(received)) ?? { cause: undefined }
          const reason = cause instanceof Error ? cause.message : String(cause)
          return Compat.Result.fail(
            reason.includes(BodyLimits.pastLimitReason)
              ? tooLarge("")
              : jsonError(400, "invalid_request", `the body could not be read: ${reason}`)
          )
        }
        const body = Http.successOf(received)
        const tooDeep = bodies.depthRefusal(ProxyCompaction.bodyKey(route, request.headers), body)
        if (tooDeep !== undefined) {
          return Compat.Result.fail(jsonError(400, "invalid_request", tooDeep))
        }
        // Compactions wait their turn in the queue (past its deadline: 503); the upstream's answers do not.
        const queued = yield* Compat.result(
          Http.successOf(ticket).run(prepareChat(requestOf(route, body, request.headers)))
        )
        return Http.isFailure(queued)
          ? Compat.Result.fail(overloaded(Http.failureOf(queued)))
          : Compat.Result.succeed({ ...Http.successOf(queued), received: body })
      }))

    const compacting = (request: HttpServerRequest.HttpServerRequest, route: Route) =>
      Effect.gen(function*() {
        const queued = yield* admitted(request, route)
        if (Http.isFailure(queued)) {
          return Http.failureOf(queued)
        }
        const { emulation, openAi, prepared, received, refused, sessionId } = Http.successOf(queued)
        const io = { // an emulation's answers (the beta values never go upstream)
          send: (body: string) =>
            send(request, body, true, ProxyNativeCompaction.withoutBetaValues),
          read: readBody,
          relay: (response: HttpClientResponse.HttpClientResponse) =>
            guardedBody(request, response, undefined, route.errorEvent),
          headers: (response: HttpClientResponse.HttpClientResponse | undefined) => ({
            ...(response === undefined ? {} : responseHeaders(response.headers, options.token !== undefined)),
            [reportHeader]: ProxyCompaction.describeOutcome(prepared.outcome)
          })
        }
        if (refused !== undefined || openAi !== undefined || emulation !== undefined) {
          return refused ??
            (yield* openAi !== undefined
              ? ProxyOpenAiAnswers.serve(openAi, io)
              : ProxyNativeAnswers.serve(emulation!, io))
        }
        const recall = options.recall === true && sessionId !== undefined && route.recall
          ? ProxyRecall.offer(prepared, route.adapter === AnthropicMessages.adapter)
          : undefined
        const first = yield* send(request, recall?.body ?? BodyLimits.sendable(received, prepared), true)
        if (recall !== undefined && first.status < 300) {
          return yield* recall.serve(first, {
            sessionId: sessionId!,
            report: ProxyCompaction.describeOutcome(prepared.outcome),
            reportHeader,
            send: (body) =>
              send(request, body, true),
            read: readBody,
            relay: (response) =>
              guardedBody(request, response, sessionId, route.errorEvent),
            headers: (response) => responseHeaders(response.headers, options.token !== undefined),
            remember: (body) => remember(sessionId!, route.usage(body), prepared.outcome),
            window: (model) => ProxyCompaction.windowOf(options, request.headers, model)
          }).pipe(Effect.tap(() => reported.settled(sessionId!)))
        }
        if (first.status < 400 || prepared.overflow === undefined) {
          return yield* relay(request, first, route, sessionId, prepared.outcome)
        }
        const errorRead = yield* readError(first)
        if (Option.isNone(errorRead)) return yield* relay(request, first, route, sessionId, prepared.outcome)
        if (errorRead.value.pastLimit || Option.isSome(errorRead.value.failure)) {
          return yield* cutErrorAnswer(request, first, sessionId, prepared.outcome, errorRead.value)
        }
        const errorBody = errorRead.value.bytes
        const verdict = Overflow.classify(new TextDecoder().decode(errorBody))
        if (Option.isNone(verdict)) return yield* relay(request, first, route, sessionId, prepared.outcome, errorBody)
        const harder = yield* Compat.result(compactions.run(prepared.overflow(verdict.value)))
        if (Http.isFailure(harder)) {
          const failure = Http.failureOf(harder)
          const ended = failure._tag === "CompactDocumentError" ? failure.problem.message : failure.message
          yield* Effect.logWarning(
            `context-compressor proxy: the upstream overflowed and the overflow policy ended: ${ended}`
          )
          return yield* relay(request, first, route, sessionId, prepared.outcome, errorBody)
        }
        const second = yield* send(request, Http.successOf(harder).body, true)
        return yield* relay(request, second, route, sessionId, Http.successOf(harder).outcome)
      }).pipe(Http.catchHttpClientError(badGateway), Effect.catchTag("UpstreamSilent", gatewayTimeout))

    const authorized = (request: HttpServerRequest.HttpServerRequest): boolean => {
      if (options.token === undefined) return true
      const given = request.headers[tokenHeader]
      return given !== undefined && Server.authorizes(options.token, `Bearer ${given}`)
    }

    return Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (!authorized(request)) {
        return jsonError(401, "unauthorized", `the proxy needs its token in the ${tokenHeader} header`)
      }
      // Without a token, serve's same-site rule: no foreign Host (DNS rebinding), no change from a foreign Origin.
      const refused = options.token === undefined
        ? Server.sameSiteRule(request, Option.getOrUndefined(bound), options.allowedHosts)
        : undefined
      if (refused !== undefined) {
        return refused._tag === "CrossOrigin"
          ? jsonError(403, "cross_origin", refused.message)
          : jsonError(421, "unknown_host", refused.message)
      }
      if (escapesPrefix(request.url)) {
        return jsonError(
          400,
          "invalid_path",
          "the request path has a . or .. segment, which would leave the upstream's prefix"
        )
      }
      const path = request.url.split("?")[0] ?? request.url
      const route = request.method === "POST" ? routes.find((candidate) => candidate.matches(path))?.route : undefined
      if (route !== undefined) {
        return yield* compacting(request, route).pipe(
          Http.withMaxBodySize(maxBodyBytes)
        )
      }
      const response = yield* send(request, request.stream, false)
      return HttpServerResponse.stream(guardedBody(request, response, request.headers[sessionHeader], undefined), {
        status: response.status,
        headers: {
          ...responseHeaders(response.headers, options.token !== undefined),
          [reportHeader]: ProxyCompaction.describeOutcome({ _tag: "PassedThrough", reason: "not a chat request" })
        }
      })
    }).pipe(Http.catchHttpClientError(badGateway), Effect.catchTag("UpstreamSilent", gatewayTimeout))
  })

/**
 * The proxy on the current `HttpServer`, over an engine and an `HttpClient`
 * given to it.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options) =>
  Compat.unwrapLayer(Effect.map(makeApp(options), (app) => HttpServer.serve(app)))

/**
 * Where the API and page of `serve` listen beside the proxy, when they do
 * (`adminPort`).
 *
 * @since 0.1.0
 * @category tags
 */
export class AdminAddress
  extends Compat.Service<AdminAddress, Http.Address>()("context-compressor/Proxy/AdminAddress")
{}

/**
 * The proxy on a Node HTTP server listening on `host` (default `127.0.0.1`) and
 * `port` (0: any free port), over the production engine of `directory` (as
 * `serve` builds it) and Node's HTTP client. With `adminPort`, the API and the
 * page of `serve` listen there too, over the same engine: their events and
 * inspector show the proxy's sessions, and their address is the context's
 * {@link AdminAddress} (read it with `Effect.serviceOption`). A connection to
 * the upstream must open within `connectTimeout` (default
 * {@link defaultConnectTimeout}); the silences after it are bounded by
 * `upstreamTimeout`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (
  options: Options & Server.Options & {
    readonly port: number
    readonly host?: string
    readonly adminPort?: number | undefined
    readonly connectTimeout?: Compat.DurationInput | undefined
  }
): Layer.Layer<HttpServer.HttpServer | Compactor.Compactor, Server.StartError | Http.ServeError> => {
  const nodeServer = (port: number) =>
    Http.layerNodeServer(() => Connections.createServer(options), { port, host: options.host ?? "127.0.0.1" })
  const proxy = layer(options).pipe(Layer.provideMerge(nodeServer(options.port)))
  const admin: Layer.Layer<
    never,
    Http.ServeError,
    Http.LayerSuccess<ReturnType<typeof Server.layerEngine>>
  > = options.adminPort === undefined
    ? Layer.empty
    : Layer.merge(
      Server.layerOver(options),
      Layer.effect(AdminAddress, Effect.map(HttpServer.HttpServer, (server) => server.address))
    ).pipe(
      Layer.provide(nodeServer(options.adminPort))
    )
  return Layer.merge(proxy, admin).pipe(
    Layer.provideMerge(Server.layerEngine(options)),
    Layer.provide(layerUpstreamClient(options.connectTimeout ?? defaultConnectTimeout))
  )
}
