/**
 * The Effect 3 side of the HTTP modules' compat: @effect/platform 0.97's HTTP server, client and
 * `HttpApi`, @effect/platform-node 0.108's Node server and client and @effect/experimental's
 * server-sent events parser, under the names of `Http4.ts` (Effect 4's `effect/http`,
 * `effect/http-api` and @effect/platform-node 4). The modules of `src/apps/http/` import it as
 * `#compat-http`; the Effect 3 build resolves that here, the Effect 4 build to `Http4.ts`
 * (docs/effect4.md, "One source"). Where the two differ in design, the names follow Effect 4.
 * Only `src/apps/http/` imports it: an application that never loads the HTTP entry never loads the
 * platform.
 *
 * @since 0.1.0
 */
import * as Sse from "@effect/experimental/Sse"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import Undici from "@effect/platform-node/Undici"
import * as FileSystem from "@effect/platform/FileSystem"
import type * as PlatformHeaders from "@effect/platform/Headers"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as PlatformHttpApp from "@effect/platform/HttpApp"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import type * as HttpMethod from "@effect/platform/HttpMethod"
import type * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import type * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import type * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type * as Http from "node:http"

/** The major of Effect this build of the HTTP modules is compiled against. */
export const major = 3 as const

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
export * as OpenApi from "@effect/platform/OpenApi"

/** The requests of an HTTP client (`make`, `setHeaders`, `bodyText`, `bodyUint8Array`, `bodyStream`). */
export * as HttpClientRequest from "@effect/platform/HttpClientRequest"

/** The response of an HTTP client (`HttpClientResponse.HttpClientResponse`, its `status`, `headers`, `stream`). */
export * as HttpClientResponse from "@effect/platform/HttpClientResponse"

// --- the server ------------------------------------------------------------------------

/** The headers of a request or a response. */
export type Headers = PlatformHeaders.Headers

/** An HTTP application: the response to the current request (Effect 3's `HttpApp.Default`). */
export type HttpApp<E = never, R = never> = PlatformHttpApp.Default<E, R>

/** Where a server listens (Effect 3's `HttpServer.Address`). */
export type Address = HttpServer.Address

/** The host name and port of an address a server listens on over TCP, `undefined` for a Unix socket. */
export const tcpAddress = (address: Address): { readonly hostname: string; readonly port: number } | undefined =>
  address._tag === "TcpAddress" ? { hostname: address.hostname, port: address.port } : undefined

/** The failure of a server to start listening. */
export type ServeError = HttpServerError.ServeError

/** The failure to read a request's body (Effect 3's `HttpServerError.RequestError`). */
export type RequestError = HttpServerError.RequestError

/**
 * A failure to read a request's body, its cause `cause` (Effect 3's
 * `RequestError` of reason `Decode`).
 */
export const requestBodyError = (request: HttpServerRequest.HttpServerRequest, cause: unknown): RequestError =>
  new HttpServerError.RequestError({ request, reason: "Decode", cause })

/**
 * The cause of a failure to read a request's body (a `RequestError`), or `undefined` for any other
 * failure.
 */
export const requestErrorCause = (error: unknown): { readonly cause: unknown } | undefined =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RequestError"
    ? { cause: (error as HttpServerError.RequestError).cause }
    : undefined

/** Whether a failure of a server is that no route has the request's method and path. */
export const isRouteNotFound = (error: unknown): boolean =>
  typeof error === "object" && error !== null && (error as { _tag?: unknown })._tag === "RouteNotFound"

/**
 * Runs an effect with the platform's reader of request bodies limited to `bytes` (Effect 3's
 * `HttpIncomingMessage.MaxBodySize`).
 */
export const withMaxBodySize = (bytes: number) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(self, HttpIncomingMessage.MaxBodySize, Option.some(FileSystem.Size(bytes)))

/** A JSON response of a value, not checked to be JSON (Effect 3's `HttpServerResponse.unsafeJson`). */
export const jsonUnsafe: (
  body: unknown,
  options?: HttpServerResponse.Options.WithContent | undefined
) => HttpServerResponse.HttpServerResponse = HttpServerResponse.unsafeJson

/**
 * Changes the response of the current request once it is written (Effect 3's
 * `HttpApp.appendPreResponseHandler`).
 */
export const appendPreResponseHandler: (
  handler: PlatformHttpApp.PreResponseHandler
) => Effect.Effect<void, never, HttpServerRequest.HttpServerRequest> = PlatformHttpApp.appendPreResponseHandler

/**
 * The Node message under a request (Effect 3's `NodeHttpServerRequest.toIncomingMessage`); throws
 * for a request that is not on Node's server.
 */
export const toIncomingMessage = (request: HttpServerRequest.HttpServerRequest): unknown =>
  NodeHttpServerRequest.toIncomingMessage(request)

/**
 * The Node response of a request (Effect 3's `NodeHttpServerRequest.toServerResponse`); throws for
 * a request that is not on Node's server.
 */
export const toServerResponse = (request: HttpServerRequest.HttpServerRequest): Http.ServerResponse =>
  NodeHttpServerRequest.toServerResponse(request)

/**
 * A Node HTTP server made by `evaluate`, listening on `port` and `host` (Effect 3's
 * `NodeHttpServer.layer`), with the platform's services.
 */
export const layerNodeServer = (
  evaluate: () => Http.Server,
  options: { readonly port: number; readonly host: string }
): Layer.Layer<HttpServer.HttpServer | HttpRouter.HttpRouter.DefaultServices, ServeError> =>
  NodeHttpServer.layer(evaluate, options)

/**
 * The services an API's server needs of the platform besides the `HttpServer` (Effect 3's
 * `HttpRouter.HttpRouter.DefaultServices`); {@link layerNodeServer} gives them.
 */
export type ServerServices = HttpRouter.HttpRouter.DefaultServices

// --- the client ------------------------------------------------------------------------

/**
 * An HTTP client that sends no trace headers of its own (Effect 3's
 * `HttpClient.withTracerPropagation(false)`).
 */
export const withoutTracerPropagation = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.withTracerPropagation(client, false)

/** The options of undici's connection pool (`Undici.Agent`). */
export type UndiciAgentOptions = ConstructorParameters<typeof Undici.Agent>[0]

/**
 * Node's HTTP client over undici, its connections pooled by an agent of `options` closed with the
 * layer (Effect 3's `NodeHttpClient.layerUndiciWithoutDispatcher` over a `Dispatcher` of its own).
 */
export const layerUndiciAgent = (options: UndiciAgentOptions): Layer.Layer<HttpClient.HttpClient> =>
  NodeHttpClient.layerUndiciWithoutDispatcher.pipe(
    Layer.provide(Layer.scoped(
      NodeHttpClient.Dispatcher,
      Effect.acquireRelease(
        Effect.sync(() => new Undici.Agent(options)),
        (agent) => Effect.promise(() => agent.destroy())
      )
    ))
  )

/** A server-sent event read by {@link makeSseParser}. */
export type SseEvent = Sse.AnyEvent

/**
 * A parser of server-sent events fed text as it comes, each event given to `onParse`
 * (@effect/experimental's `Sse.makeParser`).
 */
export const makeSseParser = (onParse: (event: SseEvent) => void): { readonly feed: (chunk: string) => unknown } =>
  Sse.makeParser(onParse)

// --- Effect's APIs that differ, which only the HTTP modules use ---------------------------

/**
 * A schema with these annotations (its description, its title), to pipe it through (Effect 3's
 * `Schema.annotations`).
 */
export const annotate =
  (annotations: { readonly description?: string; readonly title?: string }) =>
  <S extends Schema.Annotable.All>(self: S): Schema.Annotable.Self<S> => self.annotations(annotations)

/**
 * A filter of numbers from `minimum` to `maximum`, both included, to pipe a number schema through
 * (Effect 3's `Schema.between(minimum, maximum)`).
 */
export const between = <S extends Schema.Schema.Any>(minimum: number, maximum: number): <A extends number>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.between<S>(minimum, maximum)

/**
 * A filter of texts at least `length` characters long, to pipe a string schema through (Effect 3's
 * `Schema.minLength(length)`).
 */
export const minLength = <S extends Schema.Schema.Any>(length: number): <A extends string>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.minLength<S>(length)

/**
 * A filter of texts at most `length` characters long, to pipe a string schema through (Effect 3's
 * `Schema.maxLength(length)`).
 */
export const maxLength = <S extends Schema.Schema.Any>(length: number): <A extends string>(
  self: S & Schema.Schema<A, Schema.Schema.Encoded<S>, Schema.Schema.Context<S>>
) => Schema.filter<S> => Schema.maxLength<S>(length)

/** The failure of a `Either` (Effect 3's `Either.Left`). */
export type Failure<A, E> = Either.Left<E, A>

/** The success of a `Either` (Effect 3's `Either.Right`). */
export type Success<A, E> = Either.Right<E, A>

/** Whether a `Either` is a failure (Effect 3's `Either.isLeft`); read its error with {@link failureOf}. */
export const isFailure = <A, E>(self: Either.Either<A, E>): self is Failure<A, E> => Either.isLeft(self)

/** Whether a `Either` is a success (Effect 3's `Either.isRight`); read its value with {@link successOf}. */
export const isSuccess = <A, E>(self: Either.Either<A, E>): self is Success<A, E> => Either.isRight(self)

/** The error of a failed `Either` (Effect 3's `left`). */
export const failureOf = <A, E>(self: Failure<A, E>): E => self.left

/** The value of a successful `Either` (Effect 3's `right`). */
export const successOf = <A, E>(self: Success<A, E>): A => self.right

/** The value of a `Either`, `undefined` when it failed (Effect 3's `Either.getOrUndefined`). */
export const getOrUndefined: <A, E>(self: Either.Either<A, E>) => A | undefined = Either.getOrUndefined

/** The first failure of a cause, if it has one (Effect 3's `Cause.failureOption`). */
export const failureOption: <E>(self: Cause.Cause<E>) => Option.Option<E> = Cause.failureOption

/** Completes a deferred with an effect's outcome, outside an effect (Effect 3's `Deferred.unsafeDone`). */
export const doneDeferredUnsafe = <A, E>(self: Deferred.Deferred<A, E>, effect: Effect.Effect<A, E>): void =>
  Deferred.unsafeDone(self, effect)

/** The layer a scoped effect makes, its resources released with the layer (Effect 3's `Layer.unwrapScoped`). */
export const unwrapLayerScoped: typeof Layer.unwrapScoped = Layer.unwrapScoped

/**
 * A layer of no service made by a scoped effect, its resources released with the layer (Effect 3's `Layer.scopedDiscard`).
 */
export const layerScopedDiscard: typeof Layer.scopedDiscard = Layer.scopedDiscard

/**
 * A stream that goes on with `orElse()` when this one emits nothing within `duration`, counted
 * afresh for each element (Effect 3's `Stream.timeoutTo`).
 */
export const streamTimeoutOrElse = <B, E2, R2>(options: {
  readonly duration: Duration.DurationInput
  readonly orElse: () => Stream.Stream<B, E2, R2>
}) =>
<A, E, R>(self: Stream.Stream<A, E, R>): Stream.Stream<A | B, E | E2, R | R2> =>
  Stream.timeoutTo(self, options.duration, Stream.suspend(options.orElse))

/** A stream that recovers from its failure with another stream (Effect 3's `Stream.catchAll`). */
export const streamCatch: typeof Stream.catchAll = Stream.catchAll

/** A stream that runs an effect and emits nothing (Effect 3's `Stream.execute`). */
export const streamFromEffectDrain: <A, E, R>(effect: Effect.Effect<A, E, R>) => Stream.Stream<never, E, R> =
  Stream.execute

/**
 * The stream a scoped effect makes, its resources released when the stream ends (Effect 3's
 * `Stream.unwrapScoped`).
 */
export const streamUnwrapScoped: <A, E2, R2, E, R>(
  effect: Effect.Effect<Stream.Stream<A, E2, R2>, E, R>
) => Stream.Stream<A, E | E2, R2 | Exclude<R, Scope.Scope>> = Stream.unwrapScoped

/** The stream of what a subscription to a hub receives (Effect 3's `Stream.fromQueue`). */
export const streamFromSubscription = <A>(subscription: Queue.Dequeue<A>): Stream.Stream<A> =>
  Stream.fromQueue(subscription)

/**
 * A stream read a chunk at a time, in the scope: `next` gives its next chunk, or `undefined` once it
 * ended; `rest` is the stream of the chunks not yet read (Effect 3's `Stream.toPull` and
 * `Stream.repeatEffectChunkOption`).
 */
export const toPull = <A, R>(self: Stream.Stream<A, never, R>): Effect.Effect<
  { readonly next: Effect.Effect<ReadonlyArray<A> | undefined, never, R>; readonly rest: Stream.Stream<A, never, R> },
  never,
  R | Scope.Scope
> =>
  Effect.map(Stream.toPull(self), (pull) => ({
    next: Effect.match(pull, { onFailure: () => undefined, onSuccess: Chunk.toReadonlyArray }),
    rest: Stream.repeatEffectChunkOption(pull)
  }))

/** The services a layer makes (Effect 3's `Layer.Layer.Success`). */
export type LayerSuccess<L extends Layer.Layer.Any> = Layer.Layer.Success<L>

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
    Effect.catchIf(
      self,
      (error: E): error is Extract<E, HttpClientError.HttpClientError> => HttpClientError.isHttpClientError(error),
      f
    )

// --- the API ---------------------------------------------------------------------------

/**
 * The annotations of an API error's class: the status it is answered with and its description
 * (Effect 3's `HttpApiSchema.annotations`), the third argument of `Schema.TaggedError`.
 */
export const errorAnnotations = <A>(options: { readonly status: number; readonly description: string }) =>
  HttpApiSchema.annotations<A>(options)

/** The path parameters of a request to an endpoint, as its handler is given them (Effect 3's `path`). */
export const params = <P>(request: { readonly path: P }): P => request.path

/** A success schema answered with `code` (Effect 3's status annotation). */
export const status = (code: number) => <S extends Schema.Schema.Any>(self: S): S =>
  self.annotations(HttpApiSchema.annotations({ status: code })) as S

/** A text schema written as is with `contentType` (Effect 3's `HttpApiSchema.withEncoding` of kind `Text`). */
export const asText = (options: { readonly contentType: string }) => <S extends Schema.Schema.Any>(self: S): S =>
  HttpApiSchema.withEncoding({ kind: "Text", contentType: options.contentType })(self as never) as S

/** A bearer token in the `Authorization` header, as a security of a middleware. */
export const bearer: HttpApiSecurity.Bearer = HttpApiSecurity.bearer

type SuccessOf<S> = S extends ReadonlyArray<infer M> ? M : S

/** An Effect 3 endpoint as its setters see it, whatever its types so far. */
interface EndpointChain {
  readonly setPath: (schema: Schema.Schema.Any) => EndpointChain
  readonly setPayload: (schema: Schema.Schema.Any) => EndpointChain
  readonly addSuccess: (schema: Schema.Schema.Any) => EndpointChain
  readonly addError: (schema: Schema.Schema.Any) => EndpointChain
}

/**
 * An endpoint of `method` at `path`, described at once (Effect 4's shape: its path `params`, its
 * `payload`, its `success` schemas, a status given by {@link status}, and its `error` schemas);
 * Effect 3's `HttpApiEndpoint.make(method)(name, path)` then `setPath`, `setPayload`, `addSuccess`
 * and `addError`.
 */
export const endpoint = <Method extends HttpMethod.HttpMethod>(method: Method) =>
<
  const Name extends string,
  Params extends Schema.Schema.Any = never,
  Payload extends Schema.Schema.Any = never,
  const Success extends Schema.Schema.Any | ReadonlyArray<Schema.Schema.Any> = never,
  const Error extends ReadonlyArray<Schema.Schema.Any> = []
>(
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  options: {
    readonly params?: Params | undefined
    readonly payload?: Payload | undefined
    readonly success?: Success | undefined
    readonly error?: Error | undefined
  }
): HttpApiEndpoint.HttpApiEndpoint<
  Name,
  Method,
  [Params] extends [never] ? never : Schema.Schema.Type<Params>,
  never,
  [Payload] extends [never] ? never : Schema.Schema.Type<Payload>,
  never,
  [Success] extends [never] ? void : Schema.Schema.Type<SuccessOf<Success>>,
  Schema.Schema.Type<Error[number]>,
  Schema.Schema.Context<Params | Payload | SuccessOf<Success>>,
  Schema.Schema.Context<Error[number]>
> => {
  let made = HttpApiEndpoint.make(method)(name, path) as unknown as EndpointChain
  if (options.params !== undefined) made = made.setPath(options.params as never)
  if (options.payload !== undefined) made = made.setPayload(options.payload as never)
  const successes: ReadonlyArray<Schema.Schema.Any> = options.success === undefined
    ? []
    : Array.isArray(options.success)
    ? options.success
    : [options.success as Schema.Schema.Any]
  for (const success of successes) made = made.addSuccess(success)
  for (const error of options.error ?? []) made = made.addError(error)
  return made as never
}

/**
 * The tag of a middleware of an API that checks its `security` (a bearer token) and fails with
 * `error` (Effect 4's `HttpApiMiddleware.Service`; Effect 3's `HttpApiMiddleware.Tag` with `failure`).
 */
export const SecurityMiddleware = <Self>() =>
<
  const Id extends string,
  Error extends Schema.Schema.All,
  const Security extends Record<string, HttpApiSecurity.HttpApiSecurity>
>(
  id: Id,
  options: { readonly error: Error; readonly security: Security }
) => HttpApiMiddleware.Tag<Self>()(id, { failure: options.error, security: options.security })

/**
 * The layer of a bearer-token middleware ({@link SecurityMiddleware} of `{ bearer }`) that runs
 * `check` before each request it guards: the request goes on when it succeeds.
 */
export const layerBearer = <I, S extends { readonly bearer: (credential: never) => Effect.Effect<void, any, any> }>(
  tag: Context.Tag<I, S>,
  check: ReturnType<S["bearer"]>
): Layer.Layer<I> => Layer.succeed(tag, { bearer: () => check } as unknown as S)

/**
 * An API answering, before any endpoint runs, with these errors as well (Effect 3's
 * `HttpApi.addError`, one per error; the OpenAPI description lists them).
 */
export const addApiErrors = <
  Id extends string,
  Groups extends HttpApiGroup.HttpApiGroup.Any,
  E,
  R,
  const Errors extends ReadonlyArray<Schema.Schema.Any>
>(
  api: HttpApi.HttpApi<Id, Groups, E, R>,
  errors: Errors
): HttpApi.HttpApi<Id, Groups, E | Schema.Schema.Type<Errors[number]>, R | Schema.Schema.Context<Errors[number]>> =>
  errors.reduce(
    (added, error) => added.addError(error) as HttpApi.HttpApi<Id, Groups, unknown, unknown>,
    api as HttpApi.HttpApi<Id, Groups, unknown, unknown>
  ) as never

/**
 * The failure of a request whose body the endpoint's schema refused, answered with 400 and each
 * issue's `path` and `message` (Effect 3's `HttpApiDecodeError`).
 */
export const DecodeError = HttpApiError.HttpApiDecodeError

/** */
export type DecodeError = HttpApiError.HttpApiDecodeError

/**
 * A schema's refusal of a body as the failure an endpoint answers with (Effect 3's
 * `HttpApiDecodeError.refailParseError`).
 */
export const refailDecodeError: (error: ParseResult.ParseError) => Effect.Effect<never, DecodeError> =
  HttpApiError.HttpApiDecodeError.refailParseError

/**
 * Routes of `GET` beside an API's, each answering with its effect (Effect 3's
 * `HttpApiBuilder.Router.use` and `router.get`).
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
  HttpApiBuilder.Router.use((router) =>
    Effect.flatMap(routes, (all) => Effect.forEach(all, (route) => router.get(route.path, route.handler)))
  )

/**
 * An API served on the current `HttpServer`: its groups' `handlers`, the `routes` beside it
 * (`layerGetRoutes`), its OpenAPI description at `openApiPath`, and `middleware` around all of it,
 * before the API's errors are written (Effect 3's `HttpApiBuilder.serve` over
 * `HttpApiBuilder.api`, `HttpApiBuilder.middleware` and `HttpApiBuilder.middlewareOpenApi`).
 */
export const serveApi = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R, EH, RH, ER, RR>(
  options: {
    readonly api: HttpApi.HttpApi<Id, Groups, E, R>
    readonly handlers: Layer.Layer<HttpApiGroup.HttpApiGroup.ToService<Id, Groups>, EH, RH>
    readonly routes: Layer.Layer<never, ER, RR>
    readonly openApiPath: `/${string}`
    readonly middleware: (app: HttpApp) => HttpApp
  }
) =>
  HttpApiBuilder.serve().pipe(
    Layer.provide(HttpApiBuilder.middleware(options.middleware)),
    Layer.provide(options.routes),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: options.openApiPath })),
    Layer.provide(HttpApiBuilder.api(options.api).pipe(Layer.provide(options.handlers)))
  )
