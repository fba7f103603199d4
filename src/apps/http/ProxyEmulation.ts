/**
 * What the proxy's two emulations of a provider's compaction share
 * (Anthropic's `context_management`, `ProxyNativeCompaction`; the Responses
 * API's, `ProxyOpenAiCompaction`) and their answers (`ProxyNativeAnswers`,
 * `ProxyOpenAiAnswers`): the text a compaction stands for, the proxy's
 * input and output an answer is served with, and an upstream's event stream
 * rewritten event by event.
 *
 * @since 0.1.0
 */
import * as Http from "#compat-http"
import type { HttpClientResponse } from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as Json from "../../face/models/Json.js"
import type * as Transcript from "../../face/models/Transcript.js"

const roleText = (message: Transcript.Message): string => {
  switch (message._tag) {
    case "Assistant":
      return [
        message.content,
        ...message.toolCalls.map((call) => `[tool call ${call.name} ${call.id}: ${call.arguments}]`)
      ].filter((part) => part !== "").join("\n")
    case "ToolResult":
      return `[tool result of ${message.name} ${message.toolCallId}]\n${message.content}`
    default:
      return message.content
  }
}

/**
 * The messages a view keeps after its block (the whole view without one),
 * written out under a heading: a request that sends a compaction back drops
 * everything before it, these included, so the compaction carries them.
 * Empty when the block is the view's last message.
 *
 * @since 0.1.0
 * @category text
 */
export const keptText = (view: Transcript.Transcript): string => {
  const at = view.findIndex((message) => message._tag === "Compacted")
  const kept = view.slice(at + 1).filter((message) => message._tag !== "System" && message._tag !== "Compacted")
  return kept.length === 0 ? "" : [
    at >= 0 ? "## Kept verbatim after this summary" : "## The conversation so far",
    ...kept.map((message) => `### ${message._tag}\n${roleText(message)}`)
  ].join("\n\n")
}

/**
 * The text a compaction stands for: the view's compacted block, then
 * {@link keptText}; empty for a view without a block.
 *
 * @since 0.1.0
 * @category text
 */
export const blockText = (view: Transcript.Transcript): string => {
  const block = view.find((message) => message._tag === "Compacted")
  if (block === undefined) return ""
  const kept = keptText(view)
  return kept === "" ? block.content : `${block.content}\n\n${kept}`
}

/**
 * What an emulation's answer is served with: sending a body upstream (the
 * request's headers as the emulation edits them), reading an answer whole,
 * relaying one unchanged, and the headers of the client's answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Io<E> {
  readonly send: (body: string) => Effect.Effect<HttpClientResponse.HttpClientResponse, E>
  readonly read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<Uint8Array, E>
  readonly relay: (response: HttpClientResponse.HttpClientResponse) => Stream.Stream<Uint8Array>
  readonly headers: (response: HttpClientResponse.HttpClientResponse | undefined) => Record<string, string>
}

/**
 * Headers without `content-length`, for an answer whose body the proxy rewrote.
 *
 * @since 0.1.0
 * @category headers
 */
export const withoutLength = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "content-length"))

/**
 * A server-sent event stream rewritten event by event: text is fed as it
 * arrives, each whole event (up to a blank line) is given to `event` and
 * what it writes comes out; `end` writes the last event, which no blank line closed.
 *
 * @since 0.1.0
 * @category streams
 */
export interface EventRewriter {
  readonly feed: (text: string) => string
  readonly end: () => string
}

/**
 * An {@link EventRewriter} over a rewrite of one event's raw text.
 *
 * @since 0.1.0
 * @category streams
 */
export const eventRewriter = (event: (raw: string) => string): EventRewriter => {
  let buffer = ""
  return {
    feed: (text) => {
      buffer += text
      let out = ""
      let at = buffer.search(/\r?\n\r?\n/)
      while (at >= 0) {
        const raw = buffer.slice(0, at)
        const separator = buffer.slice(at).match(/^\r?\n\r?\n/)![0]
        buffer = buffer.slice(at + separator.length)
        out += raw.trim() === "" ? "" : event(raw)
        at = buffer.search(/\r?\n\r?\n/)
      }
      return out
    },
    end: () => {
      const rest = buffer
      buffer = ""
      return rest.trim() === "" ? rest : event(rest)
    }
  }
}

/**
 * The upstream's answer to an emulated request, rewritten as the provider
 * would have answered: an event stream event by event (`events`), a JSON
 * body through `json`, anything else (or JSON that does not parse) relayed
 * as it came.
 *
 * @since 0.1.0
 * @category answers
 */
export const rewrittenAnswer = <E>(
  io: Io<E>,
  response: HttpClientResponse.HttpClientResponse,
  rewrite: { readonly events: () => EventRewriter; readonly json: (body: Json.Json) => unknown }
): Effect.Effect<HttpServerResponse.HttpServerResponse, E> =>
  Effect.gen(function*() {
    const headers = io.headers(response)
    const contentType = response.headers["content-type"] ?? ""
    if (contentType.includes("text/event-stream")) {
      const decoder = new TextDecoder()
      const encoder = new TextEncoder()
      const rewriter = rewrite.events()
      const body = Stream.concat(
        Stream.map(
          io.relay(response),
          (chunk) => encoder.encode(rewriter.feed(decoder.decode(chunk, { stream: true })))
        ),
        Stream.suspend(() => Stream.make(encoder.encode(rewriter.end())))
      )
      return HttpServerResponse.stream(body, { status: response.status, headers: withoutLength(headers) })
    }
    if (!contentType.includes("json")) {
      return HttpServerResponse.stream(io.relay(response), { status: response.status, headers })
    }
    const bytes = yield* io.read(response)
    const parsed = Json.parse(new TextDecoder().decode(bytes))
    if (Http.isFailure(parsed)) return HttpServerResponse.uint8Array(bytes, { status: response.status, headers })
    return HttpServerResponse.text(Json.stringify(rewrite.json(Http.successOf(parsed)) as Json.Json), {
      status: response.status,
      headers: withoutLength(headers),
      contentType: "application/json"
    })
  })
