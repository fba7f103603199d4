/**
 * A request by node:http, the path sent as written (fetch would normalise
 * it), with the body read whole and whether it ended properly: what the proxy
 * tests need to tell a complete answer from a cut one.
 */
import * as Http from "node:http"

/** What a request met. */
export interface Seen {
  readonly status: number
  readonly headers: Http.IncomingHttpHeaders
  readonly body: string
  /** Whether the body ended properly (not cut). */
  readonly complete: boolean
  /** The socket error the request met instead of an answer (a reset), if any. */
  readonly error?: string
}

/** A request by node:http with the headers given; a failed request is an answer with its error. */
export const raw = (
  port: number,
  path: string,
  options: { readonly body?: string; readonly method?: string; readonly headers?: Record<string, string> } = {}
): Promise<Seen> =>
  new Promise((resolve) => {
    let settled = false
    const request = Http.request({
      host: "127.0.0.1",
      port,
      path,
      method: options.method ?? "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk", ...options.headers }
    }, (response) => {
      let text = ""
      const settle = (complete: boolean) => {
        if (settled) return
        settled = true
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text, complete })
      }
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("end", () => settle(response.complete))
      response.on("error", () => settle(false))
      response.on("close", () => settle(response.complete))
    })
    request.on("error", (error) => {
      if (settled) return
      settled = true
      resolve({ status: 0, headers: {}, body: "", complete: false, error: error.message })
    })
    request.end(options.body)
  })
