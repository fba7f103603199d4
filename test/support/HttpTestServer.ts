/**
 * A real server on 127.0.0.1 and a free port for the HTTP tests, and the
 * small fetch helpers they share.
 */
import * as HttpCompat from "#compat-http"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Server from "../../src/apps/http/HttpServer.js"

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-http-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** A server over `directory` (a new one by default), for as long as the scope lasts; its base URL. */
export const serve = (options: Server.Options = {}) =>
  Effect.gen(function*() {
    const directory = options.directory ?? (yield* tempDir)
    const context = yield* Layer.build(Server.layerNode({ port: 0, env: () => ({}), ...options, directory }))
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, directory }
  })

/** A response: its status, headers and JSON body. */
export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly body: any
}

/** Sends a request and reads the JSON answer. */
export const send = (url: string, init: RequestInit = {}): Effect.Effect<Answer> =>
  Effect.promise(async () => {
    const response = await fetch(url, init)
    const text = await response.text()
    return { status: response.status, headers: response.headers, body: text === "" ? undefined : JSON.parse(text) }
  })

/** POSTs `body` as JSON. */
export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  send(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
