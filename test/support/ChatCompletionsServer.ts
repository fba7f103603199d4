/**
 * A real chat-completions server on 127.0.0.1 for the summariser tests: it
 * answers `POST /v1/chat/completions` with the next reply of a script (a
 * completion, an error status with headers, a raw body, or no answer at all)
 * and records every request it received, headers and parsed body included.
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * One scripted answer: `json` is sent as a JSON body, `body` as it is; `hang`
 * accepts the request and never answers.
 */
export type Reply =
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly json: unknown }
  | { readonly status?: number; readonly headers?: Readonly<Record<string, string>>; readonly body: string }
  | { readonly hang: true }

/** A request the server received. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  /** The body parsed as JSON, or the raw text when it is not JSON. */
  readonly body: unknown
}

/** A running server. */
export interface Server {
  /** The base URL to give a client: `http://127.0.0.1:<port>/v1`. */
  readonly baseUrl: string
  /** Every request received so far, oldest first. */
  readonly received: Effect.Effect<ReadonlyArray<Received>>
}

/** A chat-completions reply with one choice. */
export const completion = (content: string | null, finishReason: string | null = "stop"): Reply => ({
  json: {
    id: "chatcmpl-test",
    object: "chat.completion",
    created: 1_700_000_000,
    model: "served-model",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 }
  }
})

/** An error reply in OpenAI's shape: `{ error: { message, type, code } }`. */
export const error = (
  status: number,
  message: string,
  code: string | null = null,
  headers: Readonly<Record<string, string>> = {}
): Reply => ({
  status,
  headers,
  json: { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error", param: null, code } }
})

/**
 * Starts a server that answers with `script`, one reply per request; once the
 * script has run out it answers 500. The server and its open connections are
 * closed with the scope.
 */
export const start = (script: ReadonlyArray<Reply>): Effect.Effect<Server, never, Scope.Scope> =>
  Effect.acquireRelease(
    Compat.callback<{ readonly server: Http.Server; readonly received: Array<Received> }>((resume) => {
      const received: Array<Received> = []
      const server = Http.createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8")
          let body: unknown = text
          try {
            body = JSON.parse(text)
          } catch {
            // Recorded as text.
          }
          const index = received.length
          received.push({
            method: request.method ?? "",
            path: request.url ?? "",
            headers: { ...request.headers },
            body
          })
          const reply: Reply = script[index] ??
            error(500, `the test server's script ran out after ${script.length} replies`)
          if ("hang" in reply) return
          const payload = "json" in reply ? JSON.stringify(reply.json) : reply.body
          response.writeHead(reply.status ?? 200, {
            "content-type": "json" in reply ? "application/json" : "text/plain",
            ...reply.headers
          })
          response.end(payload)
        })
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ server, received })))
    }),
    ({ server }) =>
      Compat.callback<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  ).pipe(
    Effect.map(({ received, server }) => ({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      received: Effect.sync(() => [...received])
    }))
  )

/** A base URL on 127.0.0.1 where nothing listens: a port that was just free. */
export const refusingBaseUrl: Effect.Effect<string> = Compat.callback<string>((resume) => {
  const server = Http.createServer()
  server.listen(0, "127.0.0.1", () => {
    const port = (server.address() as AddressInfo).port
    server.close(() => resume(Effect.succeed(`http://127.0.0.1:${port}/v1`)))
  })
})
