/**
 * The chat routes the proxy compacts (OpenAI's `/chat/completions`,
 * `/responses` and `/responses/compact`, Anthropic's `/v1/messages`): each one's adapter, the field of
 * its body the adapter reads, the requests it passes through, how its usage is read and
 * the error event a failed stream of it ends with; and how the proxy ends an
 * answer the upstream cut (`abortConnection`). `Proxy.ts` is its one user.
 *
 * @since 0.1.0
 */
import * as Http from "#compat-http"
import type { HttpServerRequest } from "#compat-http"
import * as Effect from "effect/Effect"
import type * as Adapter from "../../face/adapters/Adapter.js"
import * as AnthropicMessages from "../../face/adapters/AnthropicMessages.js"
import * as OpenAiChat from "../../face/adapters/OpenAiChat.js"
import * as OpenAiResponses from "../../face/adapters/OpenAiResponses.js"
import { anthropicUsage, openAiUsage, responsesUsage } from "./ProxyUsage.js"

/**
 * A chat route the proxy compacts.
 *
 * @since 0.1.0
 * @category models
 */
export type Route = {
  readonly adapter: Adapter.Adapter
  readonly usage: (body: unknown) => number | undefined
  /** The event a stream of this provider ends with when it fails, in the provider's own shape. */
  readonly errorEvent: (reason: string) => string
  /** The field of the body holding the history the adapter reads (`messages`, `input`). */
  readonly history: string
  /** Why a body goes on as it came though it holds a history (the upstream holds it), or `undefined`. */
  readonly passesThrough?: ((body: { readonly [key: string]: unknown }) => string | undefined) | undefined
  /** Whether `--recall` offers its tool on this route (its requests and answers in a shape `ProxyRecall` writes). */
  readonly recall: boolean
  /** Whether the route is OpenAI's standalone compaction endpoint (`/responses/compact`). */
  readonly compactsOnly?: boolean | undefined
}

/**
 * A failed OpenAI stream: a data line holding an `error` object, as OpenAI
 * sends one (its SDKs raise on it).
 *
 * @since 0.1.0
 * @category formatting
 */
export const openAiErrorEvent = (reason: string): string =>
  `data: ${
    JSON.stringify({
      error: {
        message: `context-compressor proxy: ${reason}`,
        type: "upstream_error",
        param: null,
        code: "upstream_stream_cut"
      }
    })
  }\n\n`

/**
 * A failed Messages stream: an `error` event, as Anthropic sends one mid-
 * stream (its SDKs raise on it).
 *
 * @since 0.1.0
 * @category formatting
 */
export const anthropicErrorEvent = (reason: string): string =>
  `event: error\ndata: ${
    JSON.stringify({ type: "error", error: { type: "api_error", message: `context-compressor proxy: ${reason}` } })
  }\n\n`

/**
 * A failed Responses stream: an `error` event, as the Responses API sends one
 * (the OpenAI SDKs raise on it).
 *
 * @since 0.1.0
 * @category formatting
 */
export const responsesErrorEvent = (reason: string): string =>
  `event: error\ndata: ${
    JSON.stringify({
      type: "error",
      code: "upstream_stream_cut",
      message: `context-compressor proxy: ${reason}`,
      param: null,
      sequence_number: 0
    })
  }\n\n`

/**
 * A Responses request that continues a stored response: the upstream holds
 * its history, so there is nothing to compact.
 *
 * @since 0.1.0
 * @category routes
 */
export const heldByUpstream = (body: { readonly [key: string]: unknown }): string | undefined =>
  typeof body["previous_response_id"] === "string" || record(body["conversation"]) !== undefined ||
    typeof body["conversation"] === "string"
    ? `${
      typeof body["previous_response_id"] === "string" ? "previous_response_id" : "conversation"
    }: the history is held by the upstream`
    : undefined

/**
 * What went wrong with the upstream, in one line.
 *
 * @since 0.1.0
 * @category errors
 */
export const upstreamErrorReason = (error: unknown): string => {
  const cause = typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined
  const inner = typeof cause === "object" && cause !== null ? (cause as { cause?: unknown }).cause : undefined
  const described = [inner, cause, error].find((candidate) => candidate instanceof Error) as Error | undefined
  const code = described === undefined ? undefined : (described as { code?: unknown }).code
  return described === undefined ? String(error) : `${described.message}${typeof code === "string" ? ` (${code})` : ""}`
}

/**
 * Ends the client's connection without the end of its body, so that it sees a
 * failure rather than a complete answer: what was written is flushed, then the
 * socket is closed. Never completes; the server interrupts the request when
 * the connection closes. On a server that is not Node's, fails instead.
 *
 * @since 0.1.0
 * @category responses
 */
export const abortConnection = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<never> =>
  Effect.suspend(() => {
    let socket: import("node:net").Socket | null | undefined
    try {
      socket = Http.toServerResponse(request).socket
    } catch {
      socket = undefined
    }
    if (socket === undefined || socket === null) return Effect.die(new Error("the upstream's answer was cut"))
    socket.end()
    return Effect.never
  })

/**
 * A JSON object, or `undefined` for anything else.
 *
 * @since 0.1.0
 * @category usage
 */
export const record = (value: unknown): { readonly [key: string]: unknown } | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as { readonly [key: string]: unknown }
    : undefined

/**
 * The chat routes, by the end of their path.
 *
 * @since 0.1.0
 * @category constants
 */
export const routes: ReadonlyArray<{ readonly matches: (path: string) => boolean; readonly route: Route }> = [
  {
    matches: (path) => path.endsWith("/chat/completions"),
    route: {
      adapter: OpenAiChat.adapter,
      usage: openAiUsage,
      errorEvent: openAiErrorEvent,
      history: "messages",
      recall: true
    }
  },
  {
    matches: (path) => path.endsWith("/v1/messages"),
    route: {
      adapter: AnthropicMessages.adapter,
      usage: anthropicUsage,
      errorEvent: anthropicErrorEvent,
      history: "messages",
      recall: true
    }
  },
  {
    matches: (path) => path.endsWith("/responses/compact"),
    route: {
      adapter: OpenAiResponses.adapter,
      usage: responsesUsage,
      errorEvent: responsesErrorEvent,
      history: "input",
      passesThrough: heldByUpstream,
      recall: false,
      compactsOnly: true
    }
  },
  {
    matches: (path) => path.endsWith("/responses"),
    route: {
      adapter: OpenAiResponses.adapter,
      usage: responsesUsage,
      errorEvent: responsesErrorEvent,
      history: "input",
      passesThrough: heldByUpstream,
      recall: false
    }
  }
]
