/**
 * Idle connections do not exhaust `serve` or the proxy: a socket that sends no
 * complete request head in time is closed, and past the connection cap the
 * one idle the longest makes room, so clients that send requests keep being
 * answered.
 */
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import type * as Http from "node:http"
import * as Net from "node:net"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Connections from "../../../../src/apps/http/Connections.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import { serve } from "../../../support/HttpTestServer.js"
import { effectProp } from "../../../support/Property.js"

/** A plain server answering `ok`, its connections guarded, for as long as the scope lasts; its port. */
const plainServer = (
  limits: Connections.Limits,
  answer: (response: Http.ServerResponse) => void = (response) => void setTimeout(() => response.end("ok"), 5)
) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ readonly server: Http.Server; readonly port: number }>((resolve) => {
        const server = Connections.createServer(limits)
        server.on("request", (_request, response) => answer(response))
        server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as Net.AddressInfo).port }))
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

/** Opens `count` sockets one after another that send `sent` (nothing by default) and then wait; each knows when it was closed. */
const idleSockets = (port: number, count: number, sent = "") =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const opened: Array<{ readonly socket: Net.Socket; closedAt: number | undefined }> = []
      for (let index = 0; index < count; index++) {
        opened.push(
          await new Promise((resolve) => {
            const socket = Net.connect(port, "127.0.0.1")
            const idle = { socket, closedAt: undefined as number | undefined }
            socket.on("error", () => undefined)
            socket.on("close", () => (idle.closedAt = Date.now()))
            socket.on("connect", () => {
              if (sent !== "") socket.write(sent)
              resolve(idle)
            })
          })
        )
      }
      return opened
    }),
    (sockets) => Effect.sync(() => sockets.forEach(({ socket }) => socket.destroy()))
  )

const waitUntil = (done: () => boolean, withinMs: number) =>
  Effect.gen(function*() {
    const deadline = Date.now() + withinMs
    while (!done() && Date.now() < deadline) yield* Effect.sleep("20 millis")
    return done()
  })

/** `count` requests one after another on fresh connections; their statuses. */
const requests = (url: string, count: number) =>
  Effect.promise(async () => {
    const statuses: Array<number> = []
    for (let index = 0; index < count; index++) {
      const response = await fetch(url, { headers: { connection: "close" } })
      await response.text()
      statuses.push(response.status)
    }
    return statuses
  })

describe("Connections", () => {
  it.scopedLive("sockets that send nothing, or half a request head, are closed after the head timeout; the others are answered", () =>
    Effect.gen(function*() {
      const { port } = yield* plainServer({ maxConnections: 100, headersTimeoutMs: 300 })
      const opened = Date.now()
      const silent = yield* idleSockets(port, 10)
      const partial = yield* idleSockets(port, 5, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
      assert.deepStrictEqual(yield* requests(`http://127.0.0.1:${port}/`, 3), [200, 200, 200])
      const idle = [...silent, ...partial]
      assert.isTrue(
        yield* waitUntil(() => idle.every((socket) => socket.closedAt !== undefined), 3_000),
        "every idle socket was closed"
      )
      for (const socket of idle) assert.isAtLeast(socket.closedAt! - opened, 250, "not before the head timeout")
    }))

  it.scopedLive("past the cap, a new connection closes the one idle the longest: a client's requests succeed while idle sockets fill the cap", () =>
    Effect.gen(function*() {
      // The head timeout is long: what closes the idle sockets here is the cap.
      const { port } = yield* plainServer({ maxConnections: 8, headersTimeoutMs: 60_000 })
      const idle = yield* idleSockets(port, 20)
      yield* waitUntil(() => idle.filter((socket) => socket.closedAt === undefined).length <= 8, 2_000)
      // The first twelve made room for the later ones, oldest first.
      assert.isTrue(idle.slice(0, 12).every((socket) => socket.closedAt !== undefined))
      assert.isTrue(idle.slice(12).every((socket) => socket.closedAt === undefined))
      assert.deepStrictEqual(yield* requests(`http://127.0.0.1:${port}/`, 10), Array.from({ length: 10 }, () => 200))
      assert.isAtMost(idle.filter((socket) => socket.closedAt === undefined).length, 8 - 1)
    }))

  effectProp(
    "whatever the cap and the number of idle sockets, at most the cap stay open, the newest of them, and a client's request is answered",
    [fc.integer({ min: 1, max: 8 }), fc.integer({ min: 0, max: 20 })],
    ([cap, count]) =>
      Effect.scoped(Effect.gen(function*() {
        const { port } = yield* plainServer({ maxConnections: cap, headersTimeoutMs: 60_000 })
        const idle = yield* idleSockets(port, count)
        const stillOpen = () => idle.filter((socket) => socket.closedAt === undefined)
        yield* waitUntil(() => stillOpen().length <= cap, 2_000)
        assert.strictEqual(stillOpen().length, Math.min(count, cap))
        assert.deepStrictEqual(stillOpen(), idle.slice(Math.max(0, count - cap)))
        assert.deepStrictEqual(yield* requests(`http://127.0.0.1:${port}/`, 1), [200])
        assert.isAtMost(stillOpen().length, cap)
      })),
    { fastCheck: { numRuns: 10 } }
  )

  it.scopedLive("a connection with a request in progress is never the one closed: at the cap with none idle, the new connection is refused", () =>
    Effect.gen(function*() {
      const held: Array<Http.ServerResponse> = []
      const { port } = yield* plainServer(
        { maxConnections: 2, headersTimeoutMs: 60_000 },
        (response) => void held.push(response)
      )
      const busy = yield* idleSockets(port, 2, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      yield* waitUntil(() => held.length === 2, 2_000)
      const late = yield* idleSockets(port, 1)
      assert.isTrue(
        yield* waitUntil(() => late[0]!.closedAt !== undefined, 2_000),
        "the connection past the cap was refused"
      )
      assert.isTrue(
        busy.every((socket) => socket.closedAt === undefined),
        "the connections with a request in progress stay open"
      )
      held.forEach((response) => response.end("ok"))
    }))

  it.scopedLive("an upgraded connection is not closed by the head timeout; an upgrade nobody handles is closed, as Node would", () =>
    Effect.gen(function*() {
      const { port, server } = yield* plainServer({ maxConnections: 10, headersTimeoutMs: 200 })
      const upgradeRequest = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n"
      const unhandled = yield* idleSockets(port, 1, upgradeRequest)
      assert.isTrue(
        yield* waitUntil(() => unhandled[0]!.closedAt !== undefined, 2_000),
        "an upgrade nobody handles is closed"
      )
      server.on("upgrade", (_request, socket: Net.Socket) => {
        socket.on("end", () => socket.destroy())
        socket.write("HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: test\r\n\r\n")
      })
      const upgraded = yield* idleSockets(port, 1, upgradeRequest)
      yield* Effect.sleep("700 millis")
      assert.isUndefined(upgraded[0]!.closedAt, "the upgraded connection stays open past the head timeout")
    }))

  it.scopedLive("serve: 30 idle sockets against a cap of 10 do not stop a client's compactions, and are closed", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ maxConnections: 10, headersTimeoutMs: 500 })
      const port = Number(new URL(base).port)
      const idle = yield* idleSockets(port, 30)
      const statuses = yield* Effect.promise(async () => {
        const out: Array<number> = []
        for (let index = 0; index < 5; index++) {
          const response = await fetch(`${base}/v1/compact`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ transcript: [{ role: "user", content: `question ${index}` }], window: 128_000 })
          })
          await response.text()
          out.push(response.status)
        }
        return out
      })
      assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200])
      assert.isTrue(
        yield* waitUntil(() => idle.every((socket) => socket.closedAt !== undefined), 3_000),
        "every idle socket was closed"
      )
    }))

  it.scopedLive("proxy: 30 idle sockets against a cap of 10 do not stop a client's chat requests, and are closed", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeUpstream.start()),
        (f) => Effect.promise(() => f.close())
      )
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-connections-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const context = yield* Layer.build(
        Proxy.layerNode({
          upstream: fake.url,
          port: 0,
          directory,
          env: () => ({}),
          maxConnections: 10,
          headersTimeoutMs: 500
        })
      )
      const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
      if (address === undefined) throw new Error("not a TCP address")
      const idle = yield* idleSockets(address.port, 30)
      const statuses = yield* Effect.promise(async () => {
        const out: Array<number> = []
        for (let index = 0; index < 5; index++) {
          const response = await fetch(`http://127.0.0.1:${address.port}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: `question ${index}` }] })
          })
          await response.text()
          out.push(response.status)
        }
        return out
      })
      assert.deepStrictEqual(statuses, [200, 200, 200, 200, 200])
      assert.strictEqual(fake.received.length, 5)
      assert.isTrue(
        yield* waitUntil(() => idle.every((socket) => socket.closedAt !== undefined), 3_000),
        "every idle socket was closed"
      )
    }))
})
