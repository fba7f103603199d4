/**
 * The answers of requests whose Anthropic context management the proxy
 * emulates (`ProxyNativeCompaction`): the upstream's answer, JSON or streamed,
 * with the `compaction` block first, `usage.iterations` and
 * `context_management.applied_edits` as the API reports them, or the answer
 * of a request paused after its compaction without calling the upstream.
 * `Proxy.ts` is its one user.
 *
 * @since 0.1.0
 */
import * as Http from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Json from "../../face/models/Json.js"
import * as ProxyEmulation from "./ProxyEmulation.js"
import type { Emulation } from "./ProxyNativeCompaction.js"
import { record } from "./ProxyRoutes.js"

const positive = (value: unknown): number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0

const compactionBlock = (summary: string) => ({ type: "compaction", content: summary, encrypted_content: null })

const messageIteration = (usage: { readonly [key: string]: unknown } | undefined, model: unknown) => ({
  type: "message",
  input_tokens: positive(usage?.["input_tokens"]),
  output_tokens: positive(usage?.["output_tokens"]),
  cache_creation_input_tokens: positive(usage?.["cache_creation_input_tokens"]),
  cache_read_input_tokens: positive(usage?.["cache_read_input_tokens"]),
  cache_creation: null,
  model: typeof model === "string" ? model : null
})

/**
 * An answer of the upstream (a Messages object) as the API would give it
 * under context management: the compaction block first in its content,
 * `usage.iterations` with the compaction's and the message's usage (the
 * top-level usage is the message's, as the API's), and
 * `context_management.applied_edits`.
 *
 * @since 0.1.0
 * @category answers
 */
export const withManagement = (answer: unknown, emulation: Emulation): unknown => {
  const message = record(answer)
  if (message === undefined || message["type"] !== "message") return answer
  const usage = record(message["usage"])
  const out: { [key: string]: unknown } = { ...message }
  if (emulation.compaction !== undefined) {
    out["content"] = [
      compactionBlock(emulation.compaction.summary),
      ...(Array.isArray(message["content"]) ? message["content"] : [])
    ]
    out["usage"] = {
      ...usage,
      iterations: [emulation.compaction.usage, messageIteration(usage, message["model"])]
    }
  }
  if (emulation.appliedEdits !== undefined) out["context_management"] = { applied_edits: emulation.appliedEdits }
  return out
}

/**
 * The answer of a request paused after its compaction: a message holding the
 * compaction block alone, `stop_reason: "compaction"`, the compaction's usage
 * in `usage.iterations` and none at the top level.
 *
 * @since 0.1.0
 * @category answers
 */
export const pausedAnswer = (emulation: Emulation): { readonly [key: string]: unknown } => ({
  id: `msg_compaction_${Math.random().toString(36).slice(2, 14)}`,
  type: "message",
  role: "assistant",
  model: emulation.model,
  content: emulation.compaction === undefined ? [] : [compactionBlock(emulation.compaction.summary)],
  stop_reason: "compaction",
  stop_sequence: null,
  usage: {
    input_tokens: 0,
    output_tokens: 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    iterations: emulation.compaction === undefined ? [] : [emulation.compaction.usage]
  },
  context_management: { applied_edits: emulation.appliedEdits ?? [] }
})

const sse = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`

/** The events of a compaction block at index 0, as the API streams one: its start, one delta with the whole summary, its stop. */
const compactionEvents = (summary: string): string =>
  sse("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "compaction", content: null, encrypted_content: null }
  }) +
  sse("content_block_delta", {
    type: "content_block_delta",
    index: 0,
    delta: { type: "compaction_delta", content: summary, encrypted_content: null }
  }) +
  sse("content_block_stop", { type: "content_block_stop", index: 0 })

/**
 * The paused answer as a stream of events.
 *
 * @since 0.1.0
 * @category answers
 */
export const pausedEvents = (emulation: Emulation): string => {
  const answer = pausedAnswer(emulation)
  const { context_management, stop_reason, stop_sequence: _stop, usage, ...start } = answer
  return sse("message_start", {
    type: "message_start",
    message: {
      ...start,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 }
    }
  }) +
    (emulation.compaction === undefined ? "" : compactionEvents(emulation.compaction.summary)) +
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason, stop_sequence: null },
      usage,
      context_management
    }) +
    sse("message_stop", { type: "message_stop" })
}

/**
 * A transformer of a Messages stream's text: the compaction block's events
 * after `message_start`, the indices of the blocks after it shifted by one,
 * and `message_delta` given the usage iterations and the applied edits.
 * Feed it the text as it comes and `end` it; it gives the text to write.
 *
 * @since 0.1.0
 * @category answers
 */
export const streamTransformer = (emulation: Emulation) => {
  let start: { readonly [key: string]: unknown } | undefined
  const shift = emulation.compaction === undefined ? 0 : 1
  const event = (raw: string): string => {
    const lines = raw.split(/\r?\n/)
    const dataLines = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart())
    const parsed = dataLines.length === 0 ? undefined : Json.parse(dataLines.join("\n"))
    const data = parsed !== undefined && Http.isSuccess(parsed) ? record(Http.successOf(parsed)) : undefined
    if (data === undefined) return `${raw}\n\n`
    const type = String(data["type"])
    switch (type) {
      case "message_start": {
        const message = record(data["message"])
        start = message
        return sse(type, data) +
          (emulation.compaction === undefined ? "" : compactionEvents(emulation.compaction.summary))
      }
      case "content_block_start":
      case "content_block_delta":
      case "content_block_stop":
        return sse(type, typeof data["index"] === "number" ? { ...data, index: data["index"] + shift } : data)
      case "message_delta": {
        const usage = record(data["usage"])
        const startUsage = record(start?.["usage"])
        const out: { [key: string]: unknown } = { ...data }
        if (emulation.compaction !== undefined) {
          out["usage"] = {
            ...usage,
            iterations: [
              emulation.compaction.usage,
              messageIteration({ ...startUsage, ...usage }, start?.["model"])
            ]
          }
        }
        if (emulation.appliedEdits !== undefined) out["context_management"] = { applied_edits: emulation.appliedEdits }
        return sse(type, out)
      }
      default:
        return sse(type, data)
    }
  }
  return ProxyEmulation.eventRewriter(event)
}

/**
 * What {@link serve} needs of the proxy (`ProxyEmulation.Io`).
 *
 * @since 0.1.0
 * @category models
 */
export type Io<E> = ProxyEmulation.Io<E>

/**
 * Serves an emulated request: the paused answer without calling the
 * upstream, else the upstream's answer with the context management the API
 * would report (an error answer, or an answer of a request whose management
 * changed nothing to report, unchanged).
 *
 * @since 0.1.0
 * @category answers
 */
export const serve = <E>(emulation: Emulation, io: Io<E>): Effect.Effect<HttpServerResponse.HttpServerResponse, E> =>
  Effect.gen(function*() {
    if (emulation.pause) {
      const headers = io.headers(undefined)
      return emulation.stream
        ? HttpServerResponse.text(pausedEvents(emulation), { headers, contentType: "text/event-stream" })
        : Http.jsonUnsafe(pausedAnswer(emulation), { headers })
    }
    const response = yield* io.send(emulation.body)
    const headers = io.headers(response)
    const unchanged = emulation.compaction === undefined && emulation.appliedEdits === undefined
    if (response.status >= 300 || unchanged) {
      return HttpServerResponse.stream(io.relay(response), { status: response.status, headers })
    }
    return yield* ProxyEmulation.rewrittenAnswer(io, response, {
      events: () => streamTransformer(emulation),
      json: (body) => withManagement(body, emulation)
    })
  })
