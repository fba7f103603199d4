/**
 * What every request of the server goes through first: the bearer token
 * (compared in constant time), the same-site rule of a token-less server
 * (421 for a foreign `Host`, 403 for a state-changing request from another
 * `Origin`), the body limit, JSON errors for bad JSON and unknown routes, and
 * every echoed value capped and free of number placeholders.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import { HttpServerRequest, HttpServerResponse } from "#compat-http"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Crypto from "node:crypto"
import * as NodeUrl from "node:url"
import * as Json from "../../face/models/Json.js"
import * as BodyLimits from "./BodyLimits.js"
import * as Api from "./HttpApi.js"
import { errorResponse } from "./Page.js"
import { tokenEnv } from "./ServerDefaults.js"
import { busyRetrySeconds } from "./ServerDefaults.js"

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
  Http.layerBearer(
    Api.Authorization,
    // The header itself is read: the decoded credential does not say whether its scheme was Bearer.
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
      authorizes(token, request.headers["authorization"])
        ? Effect.void
        : Effect.fail(new Api.Unauthorized({ message: unauthorizedMessage(request.headers["authorization"]) })))
  )

// --- what every request goes through -------------------------------------------------

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
  text.length <= errorEchoLimit
    ? text
    : `${text.slice(0, errorEchoLimit)}… (${text.length.toLocaleString("en-US")} characters in all)`

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
  bound: Http.Address | undefined,
  allowedHosts: ReadonlyArray<string> = []
): Api.CrossOrigin | Api.UnknownHost | undefined => {
  const hostHeader = request.headers["host"]
  if (hostHeader !== undefined) {
    const host = hostOf(hostHeader)
    const tcp = bound === undefined ? undefined : Http.tcpAddress(bound)
    const boundName = tcp === undefined ? undefined : hostnameOf(tcp.hostname)
    const wildcard = boundName === undefined || boundName === "0.0.0.0" || boundName === "[::]"
    const allowed = host !== undefined && (
      loopbackNames.has(host.hostname) || host.hostname === boundName ||
      allowedHosts.some((name) => hostnameOf(name) === host.hostname) ||
      (wildcard && isIpLiteral(host.hostname))
    )
    if (!allowed) {
      return new Api.UnknownHost({
        host: hostHeader.slice(0, 200),
        message: `this server does not answer to the host ${
          JSON.stringify(hostHeader.slice(0, 200))
        }: use its address or localhost, or start it with --allowed-host NAME or a --token`
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
    message: `a server without a token takes changes only from its own page, not from ${
      JSON.stringify(origin.slice(0, 200))
    } (start it with a --token to be called from elsewhere)`
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
    if (url.username !== "" || url.password !== "" || url.pathname !== "/" || url.search !== "" || url.hash !== "") {
      return undefined
    }
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

const isIpLiteral = (hostname: string): boolean =>
  /^\d{1,3}(?:\.\d{1,3}){3}$/.test(hostname) || /^\[[0-9a-f:.]+\]$/.test(hostname)

/**
 * What every request goes through, around the router and before errors are
 * written: a body past `maxBodyBytes` is refused with 413 before it is read
 * (by its `Content-Length`) or while it is read (chunked), the connection
 * left open for the client to read it (`BodyLimits.boundedRequest`, then
 * `Connections`' lingering close); a body is read as
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
  readonly bound?: Http.Address | undefined
  readonly allowedHosts?: ReadonlyArray<string> | undefined
}) => {
  const limit = `${(options.maxBodyBytes / 1_048_576).toLocaleString("en-US", { maximumFractionDigits: 2 })} MiB`
  const tooLarge = (given: string) =>
    errorResponse(
      Api.PayloadTooLarge,
      new Api.PayloadTooLarge({
        limitBytes: options.maxBodyBytes,
        message: `the body${given} is past the limit of ${limit} (${options.maxBodyBytes} bytes)`
      }),
      413
    ).pipe(HttpServerResponse.setHeader("connection", "close"))
  const challenge = Http.appendPreResponseHandler((_, response) =>
    Effect.succeed(
      response.status === 401
        ? HttpServerResponse.setHeader(response, "www-authenticate", "Bearer")
        : response.status === 503
        ? HttpServerResponse.setHeader(response, "retry-after", String(busyRetrySeconds))
        : response
    )
  )
  return (app: Http.HttpApp): Http.HttpApp =>
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
      const request = BodyLimits.boundedRequest(
        original.method === "GET" || original.method === "HEAD" ||
          contentType?.toLowerCase().includes("application/json") === true
          ? original
          : original.modify({ headers: { ...original.headers, "content-type": "application/json" } }),
        options.maxBodyBytes
      )
      return yield* app.pipe(
        Effect.provideService(HttpServerRequest.HttpServerRequest, request),
        Http.withMaxBodySize(options.maxBodyBytes),
        Compat.catchCause((cause) => {
          if (Compat.hasInterruptsOnly(cause)) return Effect.failCause(cause)
          const error = Cause.squash(cause)
          if (Http.isRouteNotFound(error)) {
            const header = request.headers["authorization"]
            if (!authorizes(options.token, header)) {
              return Effect.succeed(
                errorResponse(Api.Unauthorized, new Api.Unauthorized({ message: unauthorizedMessage(header) }), 401)
              )
            }
            const path = request.url.split("?")[0] ?? request.url
            return Effect.succeed(errorResponse(
              Api.NotFound,
              new Api.NotFound({
                method: request.method,
                path,
                message: `no route ${request.method} ${path}: the API is under /v1 (see docs/http.md), the page at /`
              }),
              404
            ))
          }
          const requestError = Http.requestErrorCause(error)
          if (requestError !== undefined) {
            const reason = requestError.cause instanceof Error
              ? requestError.cause.message
              : String(requestError.cause)
            if (reason.includes(BodyLimits.pastLimitReason)) return Effect.succeed(tooLarge(""))
            const problem = requestError.cause instanceof SyntaxError
              ? `the body is not valid JSON: ${reason}`
              : `the body could not be read: ${reason}`
            return Effect.succeed(errorResponse(Api.InvalidJson, new Api.InvalidJson({ message: problem }), 400))
          }
          // The API's own errors (a refused setting, a decode error, 401) are written by HttpApiBuilder after this.
          const failure = Http.failureOption(cause)
          if (Option.isSome(failure)) return Effect.fail(capEchoes(failure.value))
          return Effect.as(
            Effect.logError("context-compressor serve: a request failed", cause),
            errorResponse(
              Api.ServerError,
              new Api.ServerError({ message: "the server failed on this request; its log has the cause" }),
              500
            )
          )
        })
      )
    })
}
