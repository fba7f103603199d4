/**
 * The upstream end of the proxy: where a request goes (`upstreamUrl`, and
 * `escapesPrefix`, a path that would leave the upstream's prefix), the headers
 * passed on each way, the upstream's silence as an error, and Node's client
 * with a deadline on opening a connection. `Proxy.ts` re-exports its public part.
 *
 * @since 0.1.0
 */
import type * as Compat from "#compat"
import * as Http from "#compat-http"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import type * as Layer from "effect/Layer"
import { sessionHeader, tokenHeader, windowHeader } from "./ServerDefaults.js"

/**
 * The default time `Proxy.layerNode` gives a connection to the upstream to
 * open: 10 seconds.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultConnectTimeout: Duration.Duration = Duration.seconds(10)

/**
 * The upstream said nothing for the upstream timeout, before its response
 * head or between two chunks of its body.
 *
 * @since 0.1.0
 * @category errors
 */
export class UpstreamSilent extends Data.TaggedError("UpstreamSilent")<{ readonly timeout: Duration.Duration }> {
  override get message(): string {
    return `the upstream sent nothing for ${Duration.format(this.timeout)}`
  }
}

/** Headers that describe one connection, not the request: never forwarded either way. */
const hopByHop = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length"
])

/** The proxy's own request headers: read here, never sent on. */
const ownHeaders = new Set([sessionHeader, windowHeader, tokenHeader])

/**
 * The upstream URL of a request path (with its query): the upstream's prefix,
 * then the path, a `/v1` the prefix ends with not repeated.
 *
 * @since 0.1.0
 * @category upstream
 */
export const upstreamUrl = (upstream: string, pathAndQuery: string): string => {
  const base = upstream.replace(/\/+$/, "")
  const path = pathAndQuery.startsWith("/") ? pathAndQuery : `/${pathAndQuery}`
  return base.endsWith("/v1") && (path === "/v1" || path.startsWith("/v1/") || path.startsWith("/v1?"))
    ? base + path.slice(3)
    : base + path
}

/**
 * The request headers the upstream gets: none of one connection (`hopByHop`)
 * nor of the proxy's own, and no `Accept-Encoding` when the proxy reads the answer.
 *
 * @since 0.1.0
 * @category headers
 */
export const forwardedHeaders = (headers: Http.Headers, dropEncoding: boolean): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase()
    if (hopByHop.has(key) || ownHeaders.has(key) || (dropEncoding && key === "accept-encoding")) continue
    out[key] = value
  }
  return out
}

/**
 * The upstream's answer headers the client gets. A proxy without a token
 * keeps the upstream's CORS headers (`access-control-*`) to itself: they would
 * let a page of any site read its answers.
 *
 * @since 0.1.0
 * @category headers
 */
export const responseHeaders = (headers: Http.Headers, withCors = true): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase()
    if (!hopByHop.has(key) && (withCors || !key.startsWith("access-control-"))) out[name] = value
  }
  return out
}

/**
 * Whether a request path would climb out of the upstream's prefix: a `.` or
 * `..` segment, plain or percent-encoded, between `/` or `\\` (which URL
 * parsers take for `/`), also percent-encoded. Such a request is refused.
 *
 * @since 0.1.0
 * @category upstream
 */
export const escapesPrefix = (pathAndQuery: string): boolean => {
  const path = pathAndQuery.split("?")[0] ?? ""
  return path.split(/[\\/]|%2f|%5c/i).some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))
}

/**
 * Node's HTTP client (undici) whose connections must open within
 * `connectTimeout`; its own limits on the response head and body are off, the
 * proxy's upstream timeout bounds them.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerUpstreamClient = (connectTimeout: Compat.DurationInput): Layer.Layer<Compat.HttpClient> =>
  Http.layerUndiciAgent({
    connect: { timeout: Duration.toMillis(connectTimeout) },
    headersTimeout: 0,
    bodyTimeout: 0
  })
