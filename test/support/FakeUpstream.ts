/**
 * A fake model server on 127.0.0.1 for the proxy's tests and bench: it records
 * every request it receives (method, path, headers, parsed body) and answers
 * each with the next scripted reply, or by default with a chat completion, a
 * Messages response or a Responses response (streamed when the request asks
 * for it) naming how many messages (or input items) it was sent.
 */
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Http.IncomingHttpHeaders
  readonly text: string
  /** The body's bytes as they came. */
  readonly bytes: Uint8Array
  readonly body: any
}

/** A reply: a status and JSON body, or a stream of SSE chunks written one by one. */
export type Reply =
  | {
    readonly _tag: "json"
    readonly status: number
    readonly body: unknown
    readonly headers?: Readonly<Record<string, string>>
  }
  | {
    readonly _tag: "stream"
    readonly chunks: ReadonlyArray<string>
    /** Awaited after the first chunk is written, before the rest. */
    readonly between?: () => Promise<void>
    /** Never ends by itself: written until the connection closes. */
    readonly endless?: boolean
    /**
     * A fault after the chunks, instead of the body's end: `reset` destroys
     * the connection with a TCP reset, `close` closes it without the last
     * chunk of the chunked body, `stall` sends nothing more.
     */
    readonly cut?: "reset" | "close" | "stall"
    /** The content type said (default `text/event-stream`). */
    readonly contentType?: string
    /** The status (default 200). */
    readonly status?: number
  }
  /** Accepts the request and never answers. */
  | { readonly _tag: "hang" }

export interface FakeUpstream {
  readonly url: string
  readonly received: Array<Received>
  /** Replies used in order, one per request; the default reply once they run out. */
  readonly script: Array<Reply>
  /** Resolves when a request's connection closed before its reply ended. */
  readonly closedEarly: Promise<void>
  /** What the default reply reports as the prompt's tokens. */
  usageTokens: number
  /** When set, what the default reply reports as the prompt's tokens of each request, instead of `usageTokens`. */
  usageOf: ((request: Received) => number) | undefined
  readonly close: () => Promise<void>
}

const sse = (data: unknown, event?: string) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`

/** A streamed chat completion in chunks, the last with usage. */
export const openAiStream = (text: string, promptTokens: number): ReadonlyArray<string> => [
  ...text.split(" ").map((word, index) =>
    sse({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-test",
      choices: [{
        index: 0,
        delta: index === 0 ? { role: "assistant", content: word } : { content: ` ${word}` },
        finish_reason: null
      }]
    })
  ),
  sse({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, delta: {}, finish_reason: "stop" }]
  }),
  sse({
    id: "chatcmpl-1",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-test",
    choices: [],
    usage: { prompt_tokens: promptTokens, completion_tokens: 3, total_tokens: promptTokens + 3 }
  }),
  "data: [DONE]\n\n"
]

/** A streamed Messages response in its events, usage in `message_start`. */
export const anthropicStream = (text: string, inputTokens: number): ReadonlyArray<string> => [
  sse({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 1 }
    }
  }, "message_start"),
  sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start"),
  ...text.split(" ").map((word, index) =>
    sse(
      { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: index === 0 ? word : ` ${word}` } },
      "content_block_delta"
    )
  ),
  sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
  sse(
    { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 5 } },
    "message_delta"
  ),
  sse({ type: "message_stop" }, "message_stop")
]

/** A Responses API response naming its text, with usage (`usage` null while it is in progress). */
export const responsesBody = (text: string, model: unknown, inputTokens: number | undefined) => ({
  id: "resp_1",
  object: "response",
  created_at: 1,
  status: inputTokens === undefined ? "in_progress" : "completed",
  model,
  output: inputTokens === undefined ? [] : [{
    type: "message",
    id: "msg_1",
    status: "completed",
    role: "assistant",
    content: [{ type: "output_text", text, annotations: [] }]
  }],
  previous_response_id: null,
  usage: inputTokens === undefined ? null : {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 4,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + 4
  }
})

/** A streamed Responses response in its events: `response.created`, the text's deltas, `response.completed` with usage. */
export const responsesStream = (text: string, inputTokens: number): ReadonlyArray<string> => {
  let sequence = 0
  return [
    sse(
      { type: "response.created", sequence_number: sequence++, response: responsesBody("", "gpt-test", undefined) },
      "response.created"
    ),
    ...text.split(" ").map((word, index) =>
      sse({
        type: "response.output_text.delta",
        sequence_number: sequence++,
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta: index === 0 ? word : ` ${word}`,
        logprobs: []
      }, "response.output_text.delta")
    ),
    sse(
      {
        type: "response.completed",
        sequence_number: sequence++,
        response: responsesBody(text, "gpt-test", inputTokens)
      },
      "response.completed"
    )
  ]
}

const defaultReply = (request: Received, usageTokens: number): Reply => {
  const responses = request.path.endsWith("/responses")
  if (responses) {
    const text = `received ${Array.isArray(request.body?.input) ? request.body.input.length : 1} items`
    return request.body?.stream === true
      ? { _tag: "stream", chunks: responsesStream(text, usageTokens) }
      : { _tag: "json", status: 200, body: responsesBody(text, request.body?.model, usageTokens) }
  }
  const messages = Array.isArray(request.body?.messages) ? request.body.messages.length : 0
  const text = `received ${messages} messages`
  const anthropic = request.path.endsWith("/v1/messages")
  if (request.body?.stream === true) {
    return { _tag: "stream", chunks: anthropic ? anthropicStream(text, usageTokens) : openAiStream(text, usageTokens) }
  }
  return {
    _tag: "json",
    status: 200,
    body: anthropic
      ? {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: request.body?.model,
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: usageTokens, output_tokens: 4 }
      }
      : {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: request.body?.model,
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: usageTokens, completion_tokens: 4, total_tokens: usageTokens + 4 }
      }
  }
}

/** Starts the fake upstream on a free port of 127.0.0.1. */
export const start = async (): Promise<FakeUpstream> => {
  const received: Array<Received> = []
  const script: Array<Reply> = []
  let closedEarly!: () => void
  const closed = new Promise<void>((resolve) => (closedEarly = resolve))
  const sockets = new Set<import("node:net").Socket>()
  const state: { usageTokens: number; usageOf: ((request: Received) => number) | undefined } = {
    usageTokens: 100,
    usageOf: undefined
  }
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", async () => {
      const bytes = Buffer.concat(chunks)
      const text = bytes.toString("utf8")
      let body: unknown
      try {
        body = text === "" ? undefined : JSON.parse(text)
      } catch {
        body = undefined
      }
      const entry: Received = {
        method: request.method ?? "",
        path: request.url ?? "",
        headers: request.headers,
        text,
        bytes,
        body
      }
      received.push(entry)
      const reply = script.shift() ?? defaultReply(entry, state.usageOf?.(entry) ?? state.usageTokens)
      if (reply._tag === "hang") return
      if (reply._tag === "json") {
        response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
        response.end(JSON.stringify(reply.body))
        return
      }
      response.on("close", () => {
        if (!response.writableEnded) closedEarly()
      })
      response.writeHead(reply.status ?? 200, {
        "content-type": reply.contentType ?? "text/event-stream",
        "cache-control": "no-cache"
      })
      response.write(reply.chunks[0])
      await reply.between?.()
      if (reply.endless === true) {
        const timer = setInterval(() => {
          if (response.destroyed) clearInterval(timer)
          else response.write(": still here\n\n")
        }, 20)
        return
      }
      for (const chunk of reply.chunks.slice(1)) response.write(chunk)
      if (reply.cut === "stall") return
      if (reply.cut === "reset") return void response.socket?.resetAndDestroy()
      if (reply.cut === "close") return void response.socket?.end()
      response.end()
    })
  })
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    script,
    closedEarly: closed,
    get usageTokens() {
      return state.usageTokens
    },
    set usageTokens(value: number) {
      state.usageTokens = value
    },
    get usageOf() {
      return state.usageOf
    },
    set usageOf(value: ((request: Received) => number) | undefined) {
      state.usageOf = value
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
