/**
 * A body past the size limit gets a 413 its client can read, whether it says
 * its size (`Content-Length`) or not (chunked), from `serve` and from the
 * proxy, with node:http and with `fetch` (undici): the server answers first,
 * then half-closes and discards what the client still sends, instead of
 * resetting the connection under a client that is still writing.
 */
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as HttpTestServer from "../../../support/HttpTestServer.js"

const maxBodyBytes = 1_048_576
/** Past the limit by far, and past what the sockets' buffers hold: the client is still writing when the answer comes. */
const bodyBytes = 17 * 1_048_576
const pieceBytes = 64 * 1_024

/** What a client saw: the status and body of the answer, and the error it met before the answer was whole, if any. */
interface Seen {
  readonly status: number
  readonly body: string
  readonly error?: string
}

/**
 * POSTs `bodyBytes` by node:http, as fast as the socket takes them, with a
 * `Content-Length` or chunked; settles once the request has closed, with any
 * error it met on the way, before the answer or after (a write that met a
 * reset: EPIPE).
 */
const nodeClient = (port: number, path: string, framing: "content-length" | "chunked"): Promise<Seen> =>
  new Promise((resolve) => {
    const piece = Buffer.alloc(pieceBytes, 0x61)
    let status = 0
    let text = ""
    let error: string | undefined
    const request = Http.request({
      host: "127.0.0.1",
      port,
      path,
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(framing === "chunked" ? { "transfer-encoding": "chunked" } : { "content-length": String(bodyBytes) })
      }
    }, (response) => {
      status = response.statusCode ?? 0
      response.setEncoding("utf8")
      response.on("data", (chunk: string) => (text += chunk))
      response.on("error", (failure) => (error ??= failure.message))
    })
    request.on("error", (failure) => (error ??= failure.message))
    request.on("close", () => resolve({ status, body: text, ...(error === undefined ? {} : { error }) }))
    let sent = 0
    const write = () => {
      while (sent < bodyBytes && !request.destroyed) {
        sent += pieceBytes
        if (!request.write(piece)) {
          request.once("drain", write)
          return
        }
      }
      request.end()
    }
    write()
  })

/** POSTs `bodyBytes` by `fetch`: a string (with its `Content-Length`) or a stream (chunked). */
const fetchClient = async (port: number, path: string, framing: "content-length" | "chunked"): Promise<Seen> => {
  const piece = new Uint8Array(pieceBytes).fill(0x61)
  const body = framing === "chunked"
    ? new ReadableStream<Uint8Array>({
      start(controller) {
        for (let sent = 0; sent < bodyBytes; sent += pieceBytes) controller.enqueue(piece)
        controller.close()
      }
    })
    : "a".repeat(bodyBytes)
  try {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      ...(framing === "chunked" ? { duplex: "half" } : {})
    } as RequestInit)
    return { status: response.status, body: await response.text() }
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message
    return { status: 0, body: "", error: `${(error as Error).message}${cause === undefined ? "" : `: ${cause}`}` }
  }
}

const clients = { "node:http": nodeClient, fetch: fetchClient } as const

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-refusals-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The proxy of `Proxy.layerNode` (Node's server held by `Connections`) in front of a fake upstream; its port and the upstream. */
const proxyPort = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (fake) => Effect.promise(() => fake.close())
  )
  const directory = yield* tempDir
  const context = yield* Layer.build(
    Proxy.layerNode({ upstream: fake.url, port: 0, directory, env: () => ({}), maxBodyBytes })
  )
  const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
  if (address === undefined) throw new Error("not a TCP address")
  return { port: address.port, fake }
})

/**
 * Skipped on Effect 4: its Node server closes a connection answered before its body ended 500 ms after
 * the answer (its own drain of the rest, ahead of `Connections`' lingering close), so a node:http client
 * still writing a long Content-Length body meets a reset before it reads the 413 (docs/effect4.md).
 */
const resetOnEffect4 = (client: string, framing: string) =>
  TestCompat.major === 4 && client === "node:http" && framing === "content-length"

const servePort = Effect.map(HttpTestServer.serve({ maxBodyBytes }), ({ base }) => Number(new URL(base).port))

describe("serve: a body past the limit gets a 413 the client reads", () => {
  for (const [name, client] of Object.entries(clients)) {
    for (const framing of ["content-length", "chunked"] as const) {
      it.scopedLive.skipIf(resetOnEffect4(name, framing))(
        `${name}, ${framing}: 413 PayloadTooLarge with its JSON body, no reset; the server goes on`,
        () =>
          Effect.gen(function*() {
            const port = yield* servePort
            const seen = yield* Effect.promise(() => client(port, "/v1/compact", framing))
            assert.isUndefined(seen.error, `the client met a reset: ${seen.error}`)
            assert.strictEqual(seen.status, 413, seen.body)
            const body = JSON.parse(seen.body)
            assert.strictEqual(body._tag, "PayloadTooLarge")
            assert.strictEqual(body.limitBytes, maxBodyBytes)
            const after = yield* HttpTestServer.send(`http://127.0.0.1:${port}/v1/settings/compaction`)
            assert.strictEqual(after.status, 200)
          }),
        30_000
      )
    }
  }
})

describe("proxy: a chat body past the limit gets a 413 the client reads", () => {
  for (const [name, client] of Object.entries(clients)) {
    for (const framing of ["content-length", "chunked"] as const) {
      it.scopedLive.skipIf(resetOnEffect4(name, framing))(
        `${name}, ${framing}: 413 request_too_large with its JSON body, no reset; nothing reaches the upstream`,
        () =>
          Effect.gen(function*() {
            const { fake, port } = yield* proxyPort
            const seen = yield* Effect.promise(() => client(port, "/v1/chat/completions", framing))
            assert.isUndefined(seen.error, `the client met a reset: ${seen.error}`)
            assert.strictEqual(seen.status, 413, seen.body)
            assert.strictEqual(JSON.parse(seen.body).error.type, "request_too_large")
            assert.strictEqual(fake.received.length, 0)
          }),
        30_000
      )
    }
  }
})
