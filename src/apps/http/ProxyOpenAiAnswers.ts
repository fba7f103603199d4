/**
 * The answers of Responses requests whose compaction the proxy emulates
 * (`ProxyOpenAiCompaction`): the upstream's answer, JSON or streamed, with the
 * `compaction` item first in its output; the answer of a request ending in
 * `compaction_trigger` (a response whose one output item is the compaction,
 * JSON or streamed) and of `POST …/responses/compact` (`object:
 * "response.compaction"`), both without calling the upstream; and refusals in
 * the Responses API's error shape. `Proxy.ts` is its one user.
 *
 * @since 0.1.0
 */
import * as Http from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Json from "../../face/models/Json.js"
import * as ProxyEmulation from "./ProxyEmulation.js"
import type { CompactionItem, Emulation } from "./ProxyOpenAiCompaction.js"
import { record } from "./ProxyRoutes.js"

const usageOf = (usage: Emulation["usage"]) => ({
  input_tokens: usage.input,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens: usage.output,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: usage.input + usage.output
})

const now = (): number => Math.floor(Date.now() / 1000)

const responseId = (prefix: string): string => `${prefix}_${Math.random().toString(36).slice(2, 14)}`

/**
 * An error of the proxy's in the Responses API's shape (`error.message`, `type`, `code`, `param`).
 *
 * @since 0.1.0
 * @category answers
 */
export const errorAnswer = (status: number, code: string, message: string): HttpServerResponse.HttpServerResponse =>
  Http.jsonUnsafe({
    error: {
      message: `context-compressor proxy: ${message}`,
      type: status < 500 ? "invalid_request_error" : "server_error",
      param: status === 400 ? "input" : null,
      code
    }
  }, { status })

/**
 * The answer of `POST …/responses/compact`: the request's user messages, then the one compaction item.
 *
 * @since 0.1.0
 * @category answers
 */
export const compactAnswer = (emulation: Emulation): { readonly [key: string]: unknown } => ({
  id: responseId("resp_cmp"),
  object: "response.compaction",
  created_at: now(),
  output: [
    ...emulation.userMessages.map((message) => ({ type: "message", ...record(message) })),
    ...(emulation.item === undefined ? [] : [emulation.item])
  ],
  usage: usageOf(emulation.usage)
})

/**
 * The answer of a request ending in `compaction_trigger`: a completed response whose one output item is the compaction.
 *
 * @since 0.1.0
 * @category answers
 */
export const triggerAnswer = (emulation: Emulation, status: "completed" | "in_progress" = "completed") => ({
  id: responseId("resp"),
  object: "response",
  created_at: now(),
  status,
  error: null,
  incomplete_details: null,
  model: emulation.model,
  output: status === "completed" && emulation.item !== undefined ? [emulation.item] : [],
  parallel_tool_calls: true,
  previous_response_id: null,
  tool_choice: "auto",
  tools: [],
  usage: status === "completed" ? usageOf(emulation.usage) : null
})

const sse = (data: { readonly type: string; readonly [key: string]: unknown }) =>
  `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * The trigger's answer as the API streams a response: created, in progress,
 * the compaction item added and done, completed.
 *
 * @since 0.1.0
 * @category answers
 */
export const triggerEvents = (emulation: Emulation): string => {
  const started = triggerAnswer(emulation, "in_progress")
  const completed = { ...triggerAnswer(emulation), id: started.id, created_at: started.created_at }
  let sequence = 0
  const item = emulation.item
  return [
    sse({ type: "response.created", sequence_number: sequence++, response: started }),
    sse({ type: "response.in_progress", sequence_number: sequence++, response: started }),
    ...(item === undefined ? [] : [
      sse({ type: "response.output_item.added", sequence_number: sequence++, output_index: 0, item }),
      sse({ type: "response.output_item.done", sequence_number: sequence++, output_index: 0, item })
    ]),
    sse({ type: "response.completed", sequence_number: sequence++, response: completed })
  ].join("")
}

const withItemFirst = (response: unknown, item: CompactionItem): unknown => {
  const entry = record(response)
  if (entry === undefined) return response
  return { ...entry, output: [item, ...(Array.isArray(entry["output"]) ? entry["output"] : [])] }
}

/**
 * An upstream answer (a Response object) with the compaction item first in its output.
 *
 * @since 0.1.0
 * @category answers
 */
export const withCompaction = (answer: unknown, item: CompactionItem): unknown =>
  record(answer)?.["object"] === "response" ? withItemFirst(answer, item) : answer

/**
 * A transformer of a Responses stream's text: the compaction item's
 * `response.output_item.added` and `.done` after `response.created`, every
 * later `output_index` shifted by one, every `sequence_number` renumbered, and
 * the item first in the output of the final response. Feed it the text as it
 * comes and `end` it; it gives the text to write.
 *
 * @since 0.1.0
 * @category answers
 */
export const streamTransformer = (item: CompactionItem) => {
  let sequence = 0
  const numbered = (data: { readonly [key: string]: unknown }) =>
    "sequence_number" in data ? { ...data, sequence_number: sequence++ } : data
  const event = (raw: string): string => {
    const lines = raw.split(/\r?\n/)
    const dataLines = lines.filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart())
    const parsed = dataLines.length === 0 ? undefined : Json.parse(dataLines.join("\n"))
    const data = parsed !== undefined && Http.isSuccess(parsed) ? record(Http.successOf(parsed)) : undefined
    if (data === undefined || typeof data["type"] !== "string") return `${raw}\n\n`
    const type = data["type"]
    const shifted: { [key: string]: unknown } = typeof data["output_index"] === "number"
      ? { ...data, output_index: data["output_index"] + 1 }
      : { ...data }
    if (type === "response.created") {
      return sse({ ...numbered(shifted), type }) +
        sse({ type: "response.output_item.added", sequence_number: sequence++, output_index: 0, item }) +
        sse({ type: "response.output_item.done", sequence_number: sequence++, output_index: 0, item })
    }
    if (type === "response.completed" || type === "response.incomplete" || type === "response.failed") {
      shifted["response"] = withItemFirst(data["response"], item)
    }
    return sse({ ...numbered(shifted), type })
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
 * Serves an emulated request: the compaction endpoint's and the trigger's
 * answers without calling the upstream, else the upstream's answer with the
 * compaction item first (an error answer, or one without a compaction, unchanged).
 *
 * @since 0.1.0
 * @category answers
 */
export const serve = <E>(emulation: Emulation, io: Io<E>): Effect.Effect<HttpServerResponse.HttpServerResponse, E> =>
  Effect.gen(function*() {
    if (emulation.kind === "compact") {
      return Http.jsonUnsafe(compactAnswer(emulation), { headers: io.headers(undefined) })
    }
    if (emulation.kind === "trigger") {
      const headers = io.headers(undefined)
      return emulation.stream
        ? HttpServerResponse.text(triggerEvents(emulation), { headers, contentType: "text/event-stream" })
        : Http.jsonUnsafe(triggerAnswer(emulation), { headers })
    }
    const response = yield* io.send(emulation.body)
    const headers = io.headers(response)
    const item = emulation.item
    if (response.status >= 300 || item === undefined) {
      return HttpServerResponse.stream(io.relay(response), { status: response.status, headers })
    }
    return yield* ProxyEmulation.rewrittenAnswer(io, response, {
      events: () => streamTransformer(item),
      json: (body) => withCompaction(body, item)
    })
  })
