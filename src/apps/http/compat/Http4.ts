/**
 * The Effect 4 side of the HTTP modules' compat: the same names as `Http3.ts`, each of Effect 4's
 * own `effect/http` and `effect/http-api` (the server, the client, `HttpApi`),
 * `effect/encoding/Sse` and @effect/platform-node 4 (the Node server and client). The Effect 4
 * build resolves the HTTP modules' `#compat-http` here (docs/effect4.md, "One source"). Only
 * `src/apps/http/` imports it: an application that never loads the HTTP entry never loads the Node
 * platform.
 *
 * @since 0.1.0
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import type Undici from "@effect/platform-node/Undici"
import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Sse from "effect/encoding/Sse"
import type * as FileSystem from "effect/FileSystem"
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import type * as Etag from "effect/http/Etag"
import type * as EffectHeaders from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpEffect from "effect/http/HttpEffect"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import type * as HttpMethod from "effect/http/HttpMethod"
import type * as HttpPlatform from "effect/http/HttpPlatform"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerError from "effect/http/HttpServerError"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import * as Layer from "effect/Layer"
import * as NetAddress from "effect/net/NetAddress"
import type * as Option from "effect/Option"
import type * as Path from "effect/Path"
import type * as PubSub from "effect/PubSub"
import * as EffectResult from "effect/Result"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Http from "node:http"

/** The major of Effect this build of the HTTP modules is compiled against. */
export const major = 4 as const

// --- the modules the same on both ----------------------------------------------------

export {
  /** The contract of an HTTP API (`HttpApi.make`, `.add`, `.prefix`, `.annotate`). */
  HttpApi,
  /** The handlers of an API's group (`HttpApiBuilder.group`, `handlers.handle`, `handlers.handleRaw`). */
  HttpApiBuilder,
  /** The groups of an API's endpoints (`HttpApiGroup.make`, `.add`, `.middleware`). */
  HttpApiGroup,
  /** The HTTP server service (`HttpServer.HttpServer`, its `address`) and `HttpServer.serve`. */
  HttpServer,
  /** The request a server handles (`HttpServerRequest.HttpServerRequest`, its `headers`, `url`, `text`, `stream`). */
  HttpServerRequest,
  /** The responses a server writes (`text`, `uint8Array`, `stream`, `setHeader`, `setHeaders`). */
  HttpServerResponse
}

/** The OpenAPI annotations of an API (`OpenApi.Title`, `OpenApi.Version`, `OpenApi.Description`). */
export * as OpenApi from "effect/http-api/OpenApi"

/** The requests of an HTTP client (`make`, `setHeaders`, `bodyText`, `bodyUint8Array`, `bodyStream`). */
export * as HttpClientRequest from "effect/http/HttpClientRequest"

/** The response of an HTTP client (`HttpClientResponse.HttpClientResponse`, its `status`, `headers`, `stream`). */
export * as HttpClientResponse from "effect/http/HttpClientResponse"

// --- the server ------------------------------------------------------------------------

/** The headers of a request or a response. */
export type Headers = EffectHeaders.Headers

/** An HTTP application: the response to the current request (Effect 4's HTTP effect). */
export type HttpApp<E = never, R = never> = Effect.Effect<
  HttpServerResponse.HttpServerResponse,
  E,
  R | HttpServerRequest.HttpServerRequest
>

/** Where a server listens (Effect 4's `NetAddress.SocketAddress`). */
export type Address = NetAddress.SocketAddress

/** The host name and port of an address a server listens on over TCP, `undefined` for a Unix socket. */
export const tcpAddress = (address: Address): { readonly hostname: string; readonly port: number } | undefined =>
  address._tag === "UnixPathAddress"
    ? undefined
    : { hostname: NetAddress.formatIp(address.address), port: address.port }

/** The failure of a server to start listening. */
export type ServeError = HttpServerError.ServeError

/** The failure to read a request's body (Effect 4's `HttpServerError`). */
export type RequestError = HttpServerError.HttpServerError

/**
 * A failure to read a request's body, its cause `cause` (Effect 4's `HttpServerError` of a
 * `RequestParseError`).
 */
export const requestBodyError = (request: HttpServerRequest.HttpServerRequest, cause: unknown): RequestError =>
  new HttpServerError.HttpServerError({ reason: new HttpServerError.RequestParseError({ request, cause }) })

/**
 * The cause of a failure to read a request's body (an `HttpServerError` of a `RequestParseError`),
 * or `undefined` for any other failure.
 */
export const requestErrorCause = (error: unknown): { readonly cause: unknown } | undefined =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RequestParseError"
    ? { cause: error.reason.cause }
    : undefined

/** Whether a failure of a server is that no route has the request's method and path. */
export const isRouteNotFound = (error: unknown): boolean =>
  HttpServerError.isHttpServerError(error) && error.reason._tag === "RouteNotFound"

/**
 * Runs an effect with the platform's reader of request bodies limited to `bytes` (Effect 4's
 * `HttpIncomingMessage.MaxBodySize`).
 */
export const withMaxBodySize = (bytes: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(self, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(bytes))

/** A JSON response of a value, not checked to be JSON (Effect 4's `HttpServerResponse.jsonUnsafe`). */
export const jsonUnsafe: (
  body: unknown,
  options?: HttpServerResponse.Options.WithContent | undefined
) => HttpServerResponse.HttpServerResponse = HttpServerResponse.jsonUnsafe

/**
 * Changes the response of the current request once it is written (Effect 4's
 * `HttpEffect.appendPreResponseHandler`).
 */
export const appendPreResponseHandler: (
  handler: HttpEffect.PreResponseHandler
) => Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> = HttpEffect.appendPreResponseHandler

/**
 * The Node message under a request (@effect/platform-node 4's `NodeHttpServerRequest.toIncomingMessage`);
 * throws for a request that is not on Node's server.
 */
export const toIncomingMessage = (request: HttpServerRequest.HttpServerRequest): unknown =>
  NodeHttpServerRequest.toIncomingMessage(request)

/**
 * The Node response of a request (@effect/platform-node 4's `NodeHttpServerRequest.toServerResponse`);
 * throws for a request that is not on Node's server.
 */
export const toServerResponse = (request: HttpServerRequest.HttpServerRequest): Http.ServerResponse =>
  NodeHttpServerRequest.toServerResponse(request) as Http.ServerResponse

/**
 * The services an API's server needs of the platform besides the `HttpServer` (Effect 4's
 * `HttpApiBuilder.layer` asks for them); {@link layerNodeServer} gives them.
 */
export type ServerServices = Etag.Generator | FileSystem.FileSystem | HttpPlatform.HttpPlatform | Path.Path

/**
 * A Node HTTP server made by `evaluate`, listening on `port` and `host` (@effect/platform-node 4's
 * `NodeHttpServer.layer`), with the platform's services.
 */
export const layerNodeServer = (
  evaluate: () => Http.Server,
  options: { readonly port: number; readonly host: string }
): Layer.Layer<HttpServer.HttpServer | ServerServices, ServeError> => NodeHttpServer.layer(evaluate, options)

// --- the client ------------------------------------------------------------------------

/**
 * An HTTP client that sends no trace headers of its own (Effect 4's
 * `HttpClient.TracerPropagationEnabled` off for its requests).
 */
export const withoutTracerPropagation = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transform(client, (effect) => Effect.provideService(effect, HttpClient.TracerPropagationEnabled, false))

/** The options of undici's connection pool (`Undici.Agent`). */
export type UndiciAgentOptions = Undici.Agent.Options

/**
 * Node's HTTP client over undici, its connections pooled by an agent of `options` closed with the
 * layer (@effect/platform-node 4's `NodeHttpClient.layerUndiciNoDispatcher` over
 * `NodeHttpClient.layerDispatcherOptions`).
 */
export const layerUndiciAgent = (options: UndiciAgentOptions): Layer.Layer<HttpClient.HttpClient> =>
  NodeHttpClient.layerUndiciNoDispatcher.pipe(Layer.provide(NodeHttpClient.layerDispatcherOptions(options)))

/** A server-sent event read by {@link makeSseParser}. */
export type SseEvent = Sse.AnyEvent

/**
 * A parser of server-sent events fed text as it comes, each event given to `onParse`
 * (Effect 4's `Sse.makeParser` of `effect/encoding`).
 */
export const makeSseParser = (onParse: (event: SseEvent) => void): { readonly feed: (chunk: string) => unknown } =>
  Sse.makeParser(onParse)

// --- Effect's APIs that differ, which only the HTTP modules use ---------------------------

/**
 * A schema with these annotations (its description, its title), to pipe it through (Effect 4's
 * `Schema.annotate`).
 */
export const annotate =
  (annotations: { readonly description?: string; readonly title?: string }) =>
  <S extends Schema.Top>(self: S): S["Rebuild"] => self.annotate(annotations)

/**
 * A filter of numbers from `minimum` to `maximum`, both included, to pipe a number schema through
 * (Effect 4's `Schema.isBetween`).
 */
export const between =
  (minimum: number, maximum: number) => <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
    Schema.check<S>(Schema.isBetween({ minimum, maximum }))(self)

/**
 * A filter of texts at least `length` characters long, to pipe a string schema through (Effect 4's
 * `Schema.isMinLength`).
 */
export const minLength =
  (length: number) => <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
    Schema.check<S>(Schema.isMinLength(length))(self)

/**
 * A filter of texts at most `length` characters long, to pipe a string schema through (Effect 4's
 * `Schema.isMaxLength`).
 */
export const maxLength =
  (length: number) => <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
    Schema.check<S>(Schema.isMaxLength(length))(self)

/** The failure of a `Result` (Effect 4's `Result.Failure`). */
export type Failure<A, E> = EffectResult.Failure<A, E>

/** The success of a `Result` (Effect 4's `Result.Success`). */
export type Success<A, E> = EffectResult.Success<A, E>

/** Whether a `Result` is a failure (Effect 4's `Result.isFailure`); read its error with {@link failureOf}. */
export const isFailure = <A, E>(self: EffectResult.Result<A, E>): self is Failure<A, E> => EffectResult.isFailure(self)

/** Whether a `Result` is a success (Effect 4's `Result.isSuccess`); read its value with {@link successOf}. */
export const isSuccess = <A, E>(self: EffectResult.Result<A, E>): self is Success<A, E> => EffectResult.isSuccess(self)

/** The error of a failed `Result` (Effect 4's `failure`). */
export const failureOf = <A, E>(self: Failure<A, E>): E => self.failure

/** The value of a successful `Result` (Effect 4's `success`). */
export const successOf = <A, E>(self: Success<A, E>): A => self.success

/** The value of a `Result`, `undefined` when it failed (Effect 4's `Result.getOrUndefined`). */
export const getOrUndefined: <A, E>(self: EffectResult.Result<A, E>) => A | undefined = EffectResult.getOrUndefined

/** The first failure of a cause, if it has one (Effect 4's `Cause.findErrorOption`). */
export const failureOption: <E>(self: Cause.Cause<E>) => Option.Option<E> = Cause.findErrorOption

/** Completes a deferred with an effect's outcome, outside an effect (Effect 4's `Deferred.doneUnsafe`). */
export const doneDeferredUnsafe = <A, E>(self: Deferred.Deferred<A, E>, effect: Effect.Effect<A, E>): void => {
  Deferred.doneUnsafe(self, effect)
}

/** The layer a scoped effect makes, its resources released with the layer (Effect 4's `Layer.unwrap`). */
export const unwrapLayerScoped: typeof Layer.unwrap = Layer.unwrap

/**
 * A layer of no service made by a scoped effect, its resources released with the layer (Effect 4's `Layer.effectDiscard`).
 */
export const layerScopedDiscard: typeof Layer.effectDiscard = Layer.effectDiscard

/**
 * A stream that goes on with `orElse()` when this one emits nothing within `duration`, counted
 * afresh for each element (Effect 4's `Stream.timeoutOrElse`).
 */
export const streamTimeoutOrElse = <B, E2, R2>(options: {
  readonly duration: Duration.Input
  readonly orElse: () => Stream.Stream<B, E2, R2>
}) =>
<A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A | B, E | E2, R | R2> =>
  Stream.timeoutOrElse(self, { duration: options.duration, orElse: options.orElse })

/** A stream that recovers from its failure with another stream (Effect 4's `Stream.catch`). */
export const streamCatch: typeof Stream.catch = Stream.catch

/** A stream that runs an effect and emits nothing (Effect 4's `Stream.fromEffectDrain`). */
export const streamFromEffectDrain: <A, E, R>(effect: Effect.Effect<A, E, R>) => Stream.Stream<never, E, R> =
  Stream.fromEffectDrain

/**
 * The stream a scoped effect makes, its resources released when the stream ends (Effect 4's
 * `Stream.unwrap`).
 */
export const streamUnwrapScoped: <A, E2, R2, E, R>(
  effect: Effect.Effect<Stream.Stream<A, E2, R2>, E, R>
) => Stream.Stream<A, E | E2, R2 | Exclude<R, Scope.Scope>> = Stream.unwrap

/** The stream of what a subscription to a hub receives (Effect 4's `Stream.fromSubscription`). */
export const streamFromSubscription = <A>(subscription: PubSub.Subscription<A>): Stream.Stream<A> =>
  Stream.fromSubscription(subscription)

/**
 * A stream read a chunk at a time, in the scope: `next` gives its next chunk, or `undefined` once it
 * ended; `rest` is the stream of the chunks not yet read (Effect 4's `Stream.toPull` and
 * `Stream.fromPull`).
 */
export const toPull = <A, R>(self: Stream.Stream<A, never, R>): Effect.Effect<
  { readonly next: Effect.Effect<ReadonlyArray<A> | undefined, never, R>; readonly rest: Stream.Stream<A, never, R> },
  never,
  R | Scope.Scope
> =>
  Effect.map(Stream.toPull(self), (pull) => ({
    next: Effect.match(pull, { onFailure: () => undefined, onSuccess: (chunk): ReadonlyArray<A> => chunk }),
    rest: Stream.fromPull(Effect.succeed(pull))
  }))

/** The services a layer makes (Effect 4's `Layer.Success`). */
export type LayerSuccess<L extends Layer.Any> = Layer.Success<L>

/**
 * An effect that recovers from an HTTP client's failure (its request could not be sent, or its
 * response read) with `f`, its other failures left as they are.
 */
export const catchHttpClientError =
  <A2, E2, R2>(f: (error: HttpClientError.HttpClientError) => Effect.Effect<A2, E2, R2>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<
    A | A2,
    Exclude<E, Extract<E, HttpClientError.HttpClientError>> | E2,
    R | R2
  > =>
    Effect.catch(
      self,
      (error): Effect.Effect<A2, E2 | Exclude<E, Extract<E, HttpClientError.HttpClientError>>, R2> =>
        HttpClientError.isHttpClientError(error)
          ? f(error)
          : Effect.fail(error as Exclude<E, Extract<E, HttpClientError.HttpClientError>>)
    )

// --- the API ---------------------------------------------------------------------------

/**
 * The annotations of an API error's class: the status it is answered with and its description
 * (Effect 4's `httpApiStatus` annotation), the third argument of `Schema.TaggedError`.
 */
export const errorAnnotations = (options: { readonly status: number; readonly description: string }) => ({
  httpApiStatus: options.status,
  description: options.description
})

/** The path parameters of a request to an endpoint, as its handler is given them (Effect 4's `params`). */
export const params = <P>(request: { readonly params: P }): P => request.params

/** A success schema answered with `code` (Effect 4's `HttpApiSchema.status`). */
export const status = (code: number) => <S extends Schema.Top>(self: S): S["Rebuild"] =>
  HttpApiSchema.status(code)(self)

/** A text schema written as is with `contentType` (Effect 4's `HttpApiSchema.asText`). */
export const asText = (options: { readonly contentType: string }) =>
  HttpApiSchema.asText({ contentType: options.contentType })

/** A bearer token in the `Authorization` header, as a security of a middleware. */
export const bearer: HttpApiSecurity.Http = HttpApiSecurity.bearer

/**
 * An endpoint of `method` at `path`, described at once: its path `params`, its `payload`, its
 * `success` schemas (a status given by {@link status}) and its `error` schemas (Effect 4's
 * `HttpApiEndpoint.make(method)`).
 */
export const endpoint = <Method extends HttpMethod.HttpMethod>(method: Method) => HttpApiEndpoint.make(method)

/**
 * The tag of a middleware of an API that checks its `security` (a bearer token) and fails with
 * `error` (Effect 4's `HttpApiMiddleware.Service`).
 */
export const SecurityMiddleware = <Self>() =>
<
  const Id extends string,
  const Error extends Schema.Top,
  const Security extends Record<string, HttpApiSecurity.HttpApiSecurity>
>(
  id: Id,
  options: { readonly error: Error; readonly security: Security }
) => HttpApiMiddleware.Service<Self>()(id, { error: options.error, security: options.security })

/**
 * The layer of a bearer-token middleware ({@link SecurityMiddleware} of `{ bearer }`) that runs
 * `check` before each request it guards: the request goes on when it succeeds.
 */
export const layerBearer = <I, S extends { readonly bearer: (...args: ReadonlyArray<never>) => unknown }, E>(
  tag: Context.Key<I, S>,
  check: Effect.Effect<void, E, HttpServerRequest.HttpServerRequest>
): Layer.Layer<I> =>
  Layer.succeed(tag, {
    bearer: (httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse>) => Effect.andThen(check, httpEffect)
  } as unknown as S)

/**
 * An API whose description lists these errors as well, which the server answers before any
 * endpoint runs (Effect 4's `HttpApi.AdditionalSchemas` annotation), and which answers a request
 * whose path, query, headers or payload its endpoint's schema refuses with {@link DecodeError}, as
 * Effect 3's API does by itself (Effect 4's own answer is an empty 400): the middleware
 * {@link DecodeErrors} on every group, provided by {@link serveApi}.
 */
export const addApiErrors = <Id extends string, Groups extends HttpApiGroup.Constraint>(
  api: HttpApi.HttpApi<Id, Groups>,
  errors: ReadonlyArray<Schema.Top>
) => api.annotate(HttpApi.AdditionalSchemas, errors).middleware(DecodeErrors)

/**
 * The failure of a request whose body the endpoint's schema refused, answered with 400 and each
 * issue's `path` and `message` (Effect 3's `HttpApiDecodeError`, which Effect 4 has not: its own
 * refusal is an empty 400).
 */
export class DecodeError extends Schema.TaggedError<DecodeError>()("HttpApiDecodeError", {
  issues: Schema.Array(Schema.Struct({
    path: Schema.Array(Schema.Union([Schema.String, Schema.Number])),
    message: Schema.String
  })),
  message: Schema.String
}, { httpApiStatus: 400, description: "The request body does not match the endpoint's schema." }) {}

const standardIssues = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * The middleware that answers a request its endpoint's schema refuses with {@link DecodeError}
 * ({@link addApiErrors} puts it on every group of an API).
 */
export class DecodeErrors extends HttpApiMiddleware.Service<DecodeErrors>()("context-compressor/http/DecodeErrors", {
  error: DecodeError
}) {}

/** A refusal of what the client sent (not of the answer the server writes) as {@link DecodeError}. */
const layerDecodeErrors = HttpApiMiddleware.layerSchemaErrorTransform(
  DecodeErrors,
  (error) =>
    error.kind === "Body" || error.kind === "ResponseHeaders" ? Effect.fail(error) : refailDecodeError(error.cause)
)

/** A schema's refusal of a body as the failure an endpoint answers with ({@link DecodeError}). */
export const refailDecodeError = (error: Schema.SchemaError): Effect.Effect<never, DecodeError> => {
  const issues = standardIssues(error.issue).issues.map((issue) => ({
    path: (issue.path ?? []).map((segment) => {
      const key = typeof segment === "object" ? segment.key : segment
      return typeof key === "number" ? key : String(key)
    }),
    message: issue.message
  }))
  return Effect.fail(
    new DecodeError({ issues, message: issues.map((issue) => issue.message).join("\n") || error.message })
  )
}

/**
 * Routes of `GET` beside an API's, each answering with its effect (Effect 4's `HttpRouter.use` and
 * `router.add`).
 */
export const layerGetRoutes = <E, R>(
  routes: Effect.Effect<
    ReadonlyArray<{
      readonly path: `/${string}`
      readonly handler: Effect.Effect<HttpServerResponse.HttpServerResponse>
    }>,
    E,
    R
  >
) =>
  HttpRouter.use((router) =>
    Effect.flatMap(routes, (all) => Effect.forEach(all, (route) => router.add("GET", route.path, route.handler)))
  )

/**
 * An API served on the current `HttpServer`: its groups' `handlers`, the `routes` beside it
 * (`layerGetRoutes`), its OpenAPI description at `openApiPath`, and `middleware` around all of it
 * (Effect 4's `HttpApiBuilder.layer` on a router made into an HTTP effect, `HttpRouter.toHttpEffect`,
 * served by `HttpServer.serve`).
 */
export const serveApi = <Id extends string, Groups extends HttpApiGroup.Constraint, EH, RH, ER, RR>(
  options: {
    readonly api: HttpApi.HttpApi<Id, Groups>
    readonly handlers: Layer.Layer<HttpApiGroup.ToService<Id, Groups>, EH, RH>
    readonly routes: Layer.Layer<never, ER, RR>
    readonly openApiPath: `/${string}`
    readonly middleware: (app: HttpApp) => HttpApp
  }
) =>
  Layer.unwrap(
    Effect.map(
      HttpRouter.toHttpEffect(
        Layer.merge(HttpApiBuilder.layer(options.api, { openapiPath: options.openApiPath }), options.routes).pipe(
          Layer.provide(Layer.provide(options.handlers, layerDecodeErrors))
        )
      ),
      // The router's failures (no route, a body that cannot be read) are the middleware's to answer: its
      // app is typed as Effect 3's `HttpApiBuilder.middleware` types it, failing with nothing it must keep.
      (app) => HttpServer.serve(options.middleware(app as HttpApp))
    )
  )
