/**
 * Recall served by the proxy itself (`proxy --recall`, SPEC R2.18): a request
 * whose view holds a compacted block is sent with the `context_recall` tool
 * added; when the upstream's answer calls it, the proxy answers the calls
 * from the transcript archive, sends the follow-up (the assistant's recall
 * calls and their results appended) and gives the client the final answer,
 * usage summed over the rounds. The client never sees a recall call: in a
 * mixed answer only the recall calls are answered and the upstream is asked
 * again. At most {@link maxRounds} rounds per request; the report header says
 * how many. A stream is buffered only until its first text (a plain answer:
 * relayed from there) or its end (an answer with calls). OpenAI chat
 * completions and Anthropic Messages alike. See `docs/recall.md`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import type { HttpClientResponse } from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Recall from "../../face/engine/Recall.js"
import * as Json from "../../face/models/Json.js"

/**
 * The proxy's recall option.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * Serve `context_recall` (`--recall`, `[proxy] recall = true`): a compacted
   * request gets the tool, and the proxy answers its calls itself. Off by
   * default: without it the proxy's answers are exactly as before.
   */
  readonly recall?: boolean | undefined
}

/**
 * The most recall rounds the proxy serves for one request.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxRounds = 3

type JsonRecord = { [key: string]: unknown }

const record = (value: unknown): JsonRecord | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as JsonRecord : undefined

/** A tool call of an answer; `arguments` as JSON text. */
interface Call {
  readonly id: string
  readonly name: string
  readonly arguments: string
  /** Its index among a stream's calls (a streamed answer's only): what the client's events are dropped by. */
  readonly index?: number
}

/** What a round's answer said, whatever its transport. */
interface Answer {
  readonly text: string
  readonly calls: ReadonlyArray<Call>
  readonly usage: Readonly<Record<string, number>>
}

/** How one provider's requests and answers are read and written. */
interface Shape {
  readonly tool: unknown
  readonly answerOf: (body: JsonRecord) => Answer
  /** The follow-up request: the assistant's recall calls and their results appended. */
  readonly followUp: (body: JsonRecord, answer: Answer, served: ReadonlyArray<readonly [Call, string]>) => JsonRecord
  /** An answer object with its recall calls removed (the round limit reached). */
  readonly withoutRecall: (body: JsonRecord) => JsonRecord
  /** What an event of a stream tells: its first text (a plain answer), a tool call (read to the end), or nothing yet. */
  readonly eventKind: (data: JsonRecord) => "text" | "call" | undefined
  /** The answer a whole stream of events gives. */
  readonly answerOfEvents: (events: ReadonlyArray<JsonRecord>) => Answer
  /** An event rewritten for the client: usage summed with earlier rounds', recall calls dropped (undefined: drop the event). */
  readonly clientEvent: (
    data: JsonRecord,
    earlier: Readonly<Record<string, number>>,
    dropped: ReadonlySet<number>
  ) => JsonRecord | undefined
}

const numericUsage = (usage: unknown): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [key, value] of Object.entries(record(usage) ?? {})) {
    if (typeof value === "number" && Number.isFinite(value)) out[key] = value
  }
  return out
}

const addUsage = (a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): Record<string, number> => {
  const out = { ...a }
  for (const [key, value] of Object.entries(b)) out[key] = (out[key] ?? 0) + value
  return out
}

/** A usage object with each of its numeric fields raised by what earlier rounds used. */
const summedUsage = (usage: unknown, earlier: Readonly<Record<string, number>>): unknown => {
  const object = record(usage)
  if (object === undefined) return usage
  const out: JsonRecord = { ...object }
  for (const [key, value] of Object.entries(object)) {
    if (typeof value === "number") out[key] = value + (earlier[key] ?? 0)
  }
  return out
}

const isRecall = (call: Call) => call.name === Recall.toolName

const openAi: Shape = {
  tool: Recall.openAiTool,
  answerOf: (body) => {
    const message = record(record((body["choices"] as Array<unknown> | undefined)?.[0])?.["message"])
    const calls = Array.isArray(message?.["tool_calls"]) ? message["tool_calls"] as Array<unknown> : []
    return {
      text: typeof message?.["content"] === "string" ? message["content"] : "",
      calls: calls.flatMap((raw) => {
        const call = record(raw)
        const fn = record(call?.["function"])
        return typeof call?.["id"] === "string" && typeof fn?.["name"] === "string"
          ? [{
            id: call["id"],
            name: fn["name"],
            arguments: typeof fn["arguments"] === "string" ? fn["arguments"] : "{}"
          }]
          : []
      }),
      usage: numericUsage(body["usage"])
    }
  },
  followUp: (body, answer, served) => ({
    ...body,
    messages: [
      ...(body["messages"] as Array<unknown>),
      {
        role: "assistant",
        content: answer.text === "" ? null : answer.text,
        tool_calls: served.map(([call]) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: call.arguments }
        }))
      },
      ...served.map(([call, result]) => ({ role: "tool", tool_call_id: call.id, content: result }))
    ]
  }),
  withoutRecall: (body) => ({
    ...body,
    choices: (Array.isArray(body["choices"]) ? body["choices"] : []).map((raw) => {
      const choice = record(raw) ?? {}
      const message = record(choice["message"]) ?? {}
      const calls = (Array.isArray(message["tool_calls"]) ? message["tool_calls"] : []).filter((call) =>
        record(record(call)?.["function"])?.["name"] !== Recall.toolName
      )
      const { tool_calls: _, ...rest } = message
      return {
        ...choice,
        message: calls.length === 0 ? rest : { ...rest, tool_calls: calls },
        ...(calls.length === 0 && choice["finish_reason"] === "tool_calls" ? { finish_reason: "stop" } : {})
      }
    })
  }),
  eventKind: (data) => {
    const delta = record(record((data["choices"] as Array<unknown> | undefined)?.[0])?.["delta"])
    if (Array.isArray(delta?.["tool_calls"]) && delta["tool_calls"].length > 0) return "call"
    return typeof delta?.["content"] === "string" && delta["content"] !== "" ? "text" : undefined
  },
  answerOfEvents: (events) => {
    let text = ""
    const calls = new Map<number, { id: string; name: string; arguments: string }>()
    let usage: Record<string, number> = {}
    for (const data of events) {
      if (record(data["usage"]) !== undefined) usage = numericUsage(data["usage"])
      const delta = record(record((data["choices"] as Array<unknown> | undefined)?.[0])?.["delta"])
      if (typeof delta?.["content"] === "string") text += delta["content"]
      for (const raw of Array.isArray(delta?.["tool_calls"]) ? delta["tool_calls"] : []) {
        const part = record(raw)
        const index = typeof part?.["index"] === "number" ? part["index"] : 0
        const fn = record(part?.["function"])
        const call = calls.get(index) ?? { id: "", name: "", arguments: "" }
        if (typeof part?.["id"] === "string") call.id = part["id"]
        if (typeof fn?.["name"] === "string") call.name += fn["name"]
        if (typeof fn?.["arguments"] === "string") call.arguments += fn["arguments"]
        calls.set(index, call)
      }
    }
    return { text, calls: [...calls].map(([index, call]) => ({ ...call, index })), usage }
  },
  clientEvent: (data, earlier, dropped) => {
    let out: JsonRecord = data
    if (record(data["usage"]) !== undefined) out = { ...out, usage: summedUsage(data["usage"], earlier) }
    if (dropped.size === 0 || !Array.isArray(data["choices"])) return out
    const choices = (data["choices"] as Array<unknown>).map((raw): JsonRecord => {
      const choice = record(raw) ?? {}
      const delta = record(choice["delta"])
      const finish = choice["finish_reason"] === "tool_calls" ? { finish_reason: "stop" } : {}
      if (delta === undefined || !Array.isArray(delta["tool_calls"])) return { ...choice, ...finish }
      const calls = delta["tool_calls"].filter((part) => !dropped.has(record(part)?.["index"] as number))
      const { tool_calls: _, ...rest } = delta
      return { ...choice, delta: calls.length === 0 ? rest : { ...rest, tool_calls: calls }, ...finish }
    })
    const empty = choices.every((choice) =>
      Object.keys(record(choice["delta"]) ?? {}).length === 0 && choice["finish_reason"] == null
    )
    return empty && out["usage"] == null ? undefined : { ...out, choices }
  }
}

const anthropic: Shape = {
  tool: Recall.anthropicTool,
  answerOf: (body) => {
    const blocks = Array.isArray(body["content"]) ? body["content"] as Array<unknown> : []
    return {
      text: blocks.map((raw) => record(raw)).filter((block) => block?.["type"] === "text").map((block) =>
        String(block!["text"] ?? "")
      ).join(""),
      calls: blocks.flatMap((raw) => {
        const block = record(raw)
        return block?.["type"] === "tool_use" && typeof block["id"] === "string" && typeof block["name"] === "string"
          ? [{ id: block["id"], name: block["name"], arguments: JSON.stringify(block["input"] ?? {}) }]
          : []
      }),
      usage: numericUsage(body["usage"])
    }
  },
  followUp: (body, answer, served) => ({
    ...body,
    messages: [
      ...(body["messages"] as Array<unknown>),
      {
        role: "assistant",
        content: [
          ...(answer.text === "" ? [] : [{ type: "text", text: answer.text }]),
          ...served.map(([call]) => ({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: Compat.matchResult(Json.parse(call.arguments), {
              onSuccess: (input) => input,
              onFailure: () => ({})
            })
          }))
        ]
      },
      {
        role: "user",
        content: served.map(([call, result]) => ({ type: "tool_result", tool_use_id: call.id, content: result }))
      }
    ]
  }),
  withoutRecall: (body) => {
    const content = (Array.isArray(body["content"]) ? body["content"] : []).filter((block) =>
      !(record(block)?.["type"] === "tool_use" && record(block)?.["name"] === Recall.toolName)
    )
    const toolsLeft = content.some((block) => record(block)?.["type"] === "tool_use")
    return {
      ...body,
      content,
      ...(!toolsLeft && body["stop_reason"] === "tool_use" ? { stop_reason: "end_turn" } : {})
    }
  },
  eventKind: (data) => {
    const block = record(data["content_block"])
    if (data["type"] === "content_block_start" && block?.["type"] === "tool_use") return "call"
    const delta = record(data["delta"])
    return data["type"] === "content_block_delta" && delta?.["type"] === "text_delta" && delta["text"] !== ""
      ? "text"
      : undefined
  },
  answerOfEvents: (events) => {
    let text = ""
    const calls = new Map<number, { id: string; name: string; arguments: string }>()
    let usage: Record<string, number> = {}
    for (const data of events) {
      const index = typeof data["index"] === "number" ? data["index"] : 0
      if (data["type"] === "message_start") usage = numericUsage(record(data["message"])?.["usage"])
      if (data["type"] === "message_delta") usage = { ...usage, ...numericUsage(data["usage"]) }
      const block = record(data["content_block"])
      if (data["type"] === "content_block_start" && block?.["type"] === "tool_use") {
        calls.set(index, { id: String(block["id"] ?? ""), name: String(block["name"] ?? ""), arguments: "" })
      }
      const delta = record(data["delta"])
      if (data["type"] === "content_block_delta" && delta?.["type"] === "text_delta") {
        text += String(delta["text"] ?? "")
      }
      if (data["type"] === "content_block_delta" && delta?.["type"] === "input_json_delta") {
        const call = calls.get(index)
        if (call !== undefined) call.arguments += String(delta["partial_json"] ?? "")
      }
    }
    return {
      text,
      calls: [...calls].map(([index, call]) => ({
        ...call,
        arguments: call.arguments === "" ? "{}" : call.arguments,
        index
      })),
      usage
    }
  },
  clientEvent: (data, earlier, dropped) => {
    if (typeof data["index"] === "number" && dropped.has(data["index"])) return undefined
    if (data["type"] === "message_start") {
      const message = record(data["message"]) ?? {}
      return { ...data, message: { ...message, usage: summedUsage(message["usage"], earlier) } }
    }
    if (data["type"] === "message_delta") {
      const delta = record(data["delta"]) ?? {}
      return {
        ...data,
        ...(record(data["usage"]) === undefined ? {} : { usage: summedUsage(data["usage"], earlier) }),
        ...(dropped.size > 0 && delta["stop_reason"] === "tool_use"
          ? { delta: { ...delta, stop_reason: "end_turn" } }
          : {})
      }
    }
    return data
  }
}

/** One event of a stream: its raw text (replayed as it came when unchanged) and its data, parsed. */
interface Event {
  readonly raw: string
  readonly data: JsonRecord | undefined
}

/** Splits complete events (ended by a blank line) off the front of `buffer`. */
const takeEvents = (buffer: string): { readonly events: Array<Event>; readonly rest: string } => {
  const events: Array<Event> = []
  const normalized = buffer.replace(/\r\n/g, "\n")
  let from = 0
  for (let end = normalized.indexOf("\n\n", from); end !== -1; end = normalized.indexOf("\n\n", from)) {
    const raw = normalized.slice(from, end + 2)
    from = end + 2
    const data = raw.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trimStart())
      .join("\n")
    const parsed = data === "" || data === "[DONE]" ? undefined : Http.getOrUndefined(Json.parse(data))
    events.push({ raw, data: record(parsed) })
  }
  return { events, rest: normalized.slice(from) }
}

/** An event for the client: as it came, or with its data rewritten; none when dropped. */
const clientRaw = (
  shape: Shape,
  event: Event,
  earlier: Readonly<Record<string, number>>,
  dropped: ReadonlySet<number>
): string => {
  if (event.data === undefined || (dropped.size === 0 && Object.keys(earlier).length === 0)) return event.raw
  const rewritten = shape.clientEvent(event.data, earlier, dropped)
  if (rewritten === undefined) return ""
  if (rewritten === event.data) return event.raw
  const name = event.raw.split("\n").find((line) => line.startsWith("event:"))
  return `${name === undefined ? "" : `${name}\n`}data: ${Json.stringify(rewritten as Json.Json)}\n\n`
}

/**
 * What the proxy hands this module for one request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Io<E> {
  readonly sessionId: string
  /** The report header's value for this request, before the recall note. */
  readonly report: string
  readonly reportHeader: string
  /** Sends a body to the upstream, as the request was sent. */
  readonly send: (body: string) => Effect.Effect<HttpClientResponse.HttpClientResponse, E>
  /** Reads an answer's body whole, within the upstream timeout. */
  readonly read: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<Uint8Array, E>
  /** An answer's body as a stream guarded as the proxy guards every body (a cut answer ends in an error event). */
  readonly relay: (response: HttpClientResponse.HttpClientResponse) => Stream.Stream<Uint8Array>
  /** The headers of an answer the client may see. */
  readonly headers: (response: HttpClientResponse.HttpClientResponse) => Record<string, string>
  /** Records the first round's reported usage, the next checkpoint's signal. */
  readonly remember: (body: unknown) => void
  /** The context window of a model, for the page size. */
  readonly window: (model: string) => number | undefined
}

/** A round's answer: whole (JSON, or a stream read to its end), or a plain stream relayed from its first text on. */
type Round =
  | {
    readonly _tag: "Whole"
    readonly response: HttpClientResponse.HttpClientResponse
    readonly answer: Answer
    readonly json?: JsonRecord
    readonly events?: ReadonlyArray<Event>
  }
  | {
    readonly _tag: "Plain"
    readonly response: HttpClientResponse.HttpClientResponse
    readonly head: ReadonlyArray<Event>
    readonly rest: Stream.Stream<Uint8Array>
    readonly pending: string
  }
  | { readonly _tag: "Other"; readonly response: HttpClientResponse.HttpClientResponse; readonly bytes?: Uint8Array }

/**
 * The recall side of one request, when recall applies: the body to send
 * (the request's, with the tool added), and how to serve its answer. None
 * when the view holds no compacted block, the body cannot take the tool, or
 * the client offers a `context_recall` of its own.
 *
 * @since 0.1.0
 * @category proxy
 */
export const offer = (
  prepared: { readonly body: string; readonly outcome: { readonly _tag: string } },
  isAnthropic: boolean
) => {
  if (prepared.outcome._tag !== "Compacted" && prepared.outcome._tag !== "Restored") return undefined
  const parsed = record(Http.getOrUndefined(Json.parse(prepared.body)))
  if (
    parsed === undefined || !Array.isArray(parsed["messages"]) ||
    (parsed["tools"] !== undefined && !Array.isArray(parsed["tools"]))
  ) return undefined
  const shape = isAnthropic ? anthropic : openAi
  // A client that offers a context_recall of its own serves it itself: the proxy neither adds a second one nor answers it.
  const named = (tool: unknown) => record(tool)?.["name"] ?? record(record(tool)?.["function"])?.["name"]
  if (((parsed["tools"] as Array<unknown> | undefined) ?? []).some((tool) => named(tool) === Recall.toolName)) {
    return undefined
  }
  const withTool: JsonRecord = {
    ...parsed,
    tools: [...((parsed["tools"] as Array<unknown> | undefined) ?? []), shape.tool]
  }
  return {
    body: Json.stringify(withTool as Json.Json),
    serve: <E>(first: HttpClientResponse.HttpClientResponse, io: Io<E>) => serve(shape, withTool, first, io)
  }
}

const serve = <E>(shape: Shape, sent: JsonRecord, first: HttpClientResponse.HttpClientResponse, io: Io<E>) =>
  Effect.gen(function*() {
    const model = typeof sent["model"] === "string" ? sent["model"] : ""
    const window = io.window(model)
    const pageChars = window === undefined ? Recall.defaultPageChars : Recall.pageCharsFor(window)
    let body = sent
    let response = first
    let earlier: Record<string, number> = {}
    let rounds = 0
    for (;;) {
      const round = yield* readRound(shape, response, io)
      if (rounds === 0 && round._tag === "Whole") {
        io.remember(round.json ?? { usage: round.answer.usage, message: { usage: round.answer.usage } })
      }
      const note = (limit: boolean) =>
        rounds === 0 ? io.report : `${io.report}; recall=${rounds}${limit ? "; recall-limit-reached" : ""}`
      if (round._tag !== "Whole") return respond(shape, round, io, note(false), earlier, false, rounds === 0)
      const recallCalls = round.answer.calls.filter(isRecall)
      if (recallCalls.length === 0) return respond(shape, round, io, note(false), earlier)
      if (rounds === maxRounds) return respond(shape, round, io, note(true), earlier, true)
      const served: Array<readonly [Call, string]> = []
      for (const call of recallCalls) {
        served.push([call, yield* Recall.answer(io.sessionId, call.arguments, { pageChars })])
      }
      rounds++
      earlier = addUsage(earlier, round.answer.usage)
      body = shape.followUp(body, round.answer, served)
      response = yield* io.send(Json.stringify(body as Json.Json))
    }
  })

const readRound = <E>(
  shape: Shape,
  response: HttpClientResponse.HttpClientResponse,
  io: Io<E>
): Effect.Effect<Round, E> =>
  Effect.gen(function*() {
    const contentType = response.headers["content-type"] ?? ""
    if (response.status >= 300) return { _tag: "Other", response }
    if (contentType.includes("text/event-stream")) return yield* readStream(shape, response, io)
    if (!contentType.includes("json")) return { _tag: "Other", response }
    const bytes = yield* io.read(response)
    const json = record(Http.getOrUndefined(Json.parse(new TextDecoder().decode(bytes))))
    return json === undefined
      ? { _tag: "Other", response, bytes }
      : { _tag: "Whole", response, json, answer: shape.answerOf(json) }
  })

/**
 * Reads a stream until it shows its kind: a first text before any call is a
 * plain answer (the rest stays unread, relayed later); otherwise the stream is
 * read to its end. The pull's scope closes with the client's stream.
 */
const readStream = <E>(
  shape: Shape,
  response: HttpClientResponse.HttpClientResponse,
  io: Io<E>
): Effect.Effect<Round> =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const pull = yield* Compat.provideScope(Http.toPull(io.relay(response)), scope)
    const decoder = new TextDecoder()
    const events: Array<Event> = []
    let pending = ""
    let calls = false
    for (;;) {
      const chunk = yield* pull.next
      if (chunk === undefined) break
      const taken = takeEvents(pending + chunk.map((bytes) => decoder.decode(bytes, { stream: true })).join(""))
      pending = taken.rest
      for (const event of taken.events) {
        events.push(event)
        const kind = event.data === undefined ? undefined : shape.eventKind(event.data)
        if (kind === "call") calls = true
      }
      if (!calls && events.some((event) => event.data !== undefined && shape.eventKind(event.data) === "text")) {
        const rest = pull.rest.pipe(Stream.ensuring(Scope.close(scope, Exit.void)))
        return { _tag: "Plain", response, head: events, rest, pending } satisfies Round
      }
    }
    yield* Scope.close(scope, Exit.void)
    if (pending.trim() !== "") events.push({ raw: pending, data: undefined })
    const data = events.flatMap((event) => event.data === undefined ? [] : [event.data])
    return { _tag: "Whole", response, events, answer: shape.answerOfEvents(data) } satisfies Round
  })

/** The client's answer: the last round's, usage summed with the earlier rounds', recall calls removed when the limit stopped them. */
const respond = <E>(
  shape: Shape,
  round: Round,
  io: Io<E>,
  report: string,
  earlier: Readonly<Record<string, number>>,
  limit = false,
  first = false
) => {
  const headers = { ...io.headers(round.response), [io.reportHeader]: report }
  const status = round.response.status
  const encoder = new TextEncoder()
  switch (round._tag) {
    case "Other":
      return round.bytes === undefined
        ? HttpServerResponse.stream(io.relay(round.response), { status, headers })
        : HttpServerResponse.uint8Array(round.bytes, { status, headers })
    case "Plain": {
      // The first round's usage is the next checkpoint's signal, as the proxy reads it from any stream.
      const onData = first ? (data: JsonRecord) => io.remember(data) : undefined
      const transform = rewriter(shape, earlier, round.pending, onData)
      for (const event of round.head) if (event.data !== undefined) onData?.(event.data)
      const head = round.head.map((event) => clientRaw(shape, event, earlier, noneDropped)).join("")
      const rest = Stream.map(Stream.decodeText(round.rest), transform.feed).pipe(
        Stream.concat(Stream.sync(transform.end))
      )
      return HttpServerResponse.stream(
        Stream.encodeText(Stream.concat(Stream.make(head), rest)).pipe(Stream.filter((bytes) => bytes.byteLength > 0)),
        { status, headers }
      )
    }
    case "Whole": {
      if (round.events !== undefined) {
        const dropped = limit
          ? new Set(
            round.answer.calls.flatMap((call) => isRecall(call) && call.index !== undefined ? [call.index] : [])
          )
          : noneDropped
        const text = round.events.map((event) => clientRaw(shape, event, earlier, dropped)).join("")
        return HttpServerResponse.uint8Array(encoder.encode(text), { status, headers })
      }
      const json = limit ? shape.withoutRecall(round.json!) : round.json!
      const answer = Object.keys(earlier).length === 0 ? json : { ...json, usage: summedUsage(json["usage"], earlier) }
      return HttpServerResponse.uint8Array(encoder.encode(Json.stringify(answer as Json.Json)), {
        status,
        headers: { ...headers, "content-type": headers["content-type"] ?? "application/json" }
      })
    }
  }
}

const noneDropped: ReadonlySet<number> = new Set()

/** Rewrites the events of a relayed stream as they complete (usage summed), starting from text already read. */
const rewriter = (
  shape: Shape,
  earlier: Readonly<Record<string, number>>,
  start: string,
  onData?: (data: JsonRecord) => void
) => {
  let pending = start
  return {
    feed: (text: string): string => {
      const taken = takeEvents(pending + text)
      pending = taken.rest
      for (const event of taken.events) if (event.data !== undefined) onData?.(event.data)
      return taken.events.map((event) => clientRaw(shape, event, earlier, noneDropped)).join("")
    },
    end: (): string => {
      const rest = pending
      pending = ""
      return rest
    }
  }
}
