/**
 * The deadlines `serve` and the proxy hold their clients to, over real
 * sockets: a client slow with its headers or its body is cut within
 * `deadlineCheckMs` of its deadline (not half a minute later), on both
 * servers. And the figures docs/http.md and docs/proxy.md state are the
 * code's constants.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as BodyLimits from "../../../../src/apps/http/BodyLimits.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as ServerDefaults from "../../../../src/apps/http/ServerDefaults.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as HttpTestServer from "../../../support/HttpTestServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

const headersTimeoutMs = 600
const requestTimeoutMs = 1_200
const limits = { headersTimeoutMs, requestTimeoutMs }

const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-deadlines-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The proxy of `Proxy.layerNode` in front of a fake upstream, with `limits`; its port. */
const proxyPort = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (fake) => Effect.promise(() => fake.close())
  )
  const directory = yield* tempDir
  const context = yield* Layer.build(
    Proxy.layerNode({ upstream: fake.url, port: 0, directory, env: () => ({}), ...limits })
  )
  const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
  if (address === undefined) throw new Error("not a TCP address")
  return address.port
})

const servePort = Effect.map(HttpTestServer.serve(limits), ({ base }) => Number(new URL(base).port))

/**
 * Opens a connection, writes `sent` and nothing more, and waits for the server
 * to close it: the milliseconds that took (or the wait's bound, 10 s).
 */
const closedAfter = (port: number, sent: string) =>
  Compat.callback<number>((resume) => {
    const started = Date.now()
    const socket = Net.connect(port, "127.0.0.1", () => socket.write(sent))
    socket.on("data", () => undefined)
    socket.on("error", () => undefined)
    socket.on("close", () => resume(Effect.succeed(Date.now() - started)))
    const bound = setTimeout(() => socket.destroy(), 10_000)
    return Effect.sync(() => {
      clearTimeout(bound)
      socket.destroy()
    })
  })

const slowHeaders = "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
/** A request whose body stops early, on a route that reads its body (an unknown route is answered at once, and the connection is then idle). */
const slowBody = (path: string) =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"model":`

/** The deadline is held: not before it, and no later than one check after it (with room for a busy machine). */
const withinDeadline = (elapsed: number, deadline: number) => {
  assert.isAtLeast(elapsed, deadline - 50, `closed at ${elapsed} ms, before the deadline of ${deadline} ms`)
  assert.isBelow(
    elapsed,
    deadline + ServerDefaults.deadlineCheckMs + 1_500,
    `closed at ${elapsed} ms, long after the deadline of ${deadline} ms`
  )
}

describe("deadlines on slow clients", () => {
  for (
    const [name, port, path] of [["serve", servePort, "/v1/compact"], [
      "the proxy",
      proxyPort,
      "/v1/chat/completions"
    ]] as const
  ) {
    it.scopedLive(
      `${name} closes a connection whose headers are not done by headersTimeoutMs, within a check of it`,
      () =>
        Effect.gen(function*() {
          withinDeadline(yield* closedAfter(yield* port, slowHeaders), headersTimeoutMs)
        }),
      20_000
    )

    it.scopedLive(
      `${name} closes a connection whose body is not done by requestTimeoutMs, within a check of it`,
      () =>
        Effect.gen(function*() {
          withinDeadline(yield* closedAfter(yield* port, slowBody(path)), requestTimeoutMs)
        }),
      20_000
    )
  }
})

const doc = (name: string) => Fs.readFileSync(NodePath.join(repository, "docs", name), "utf8")
const seconds = (ms: number) => `${ms / 1_000} s`

describe("the deadlines the docs state are the code's", () => {
  it("docs/http.md: the headers and request timeouts, their check, the depth limit", () => {
    const text = doc("http.md")
    assert.include(
      text,
      `A client has ${seconds(ServerDefaults.defaultLimits.headersTimeoutMs)} to send the request headers and ${
        seconds(ServerDefaults.defaultLimits.requestTimeoutMs)
      } to send the whole request`
    )
    assert.include(text, `The deadlines are checked every ${seconds(ServerDefaults.deadlineCheckMs)}`)
    assert.include(text, `deeper than ${BodyLimits.maxJsonDepth} levels`)
  })

  it("docs/proxy.md: every row of the limits table is the constant it names", () => {
    const text = doc("proxy.md")
    const row = (limit: string) => {
      const line = text.split("\n").find((each) => each.startsWith(`| ${limit} |`))
      assert.isDefined(line, `no row "${limit}" in docs/proxy.md`)
      return line!.split("|")[2]!.trim()
    }
    assert.match(
      row("time to send the request headers"),
      new RegExp(`^${seconds(ServerDefaults.defaultLimits.headersTimeoutMs)} `)
    )
    assert.match(
      row("time to send the whole request"),
      new RegExp(`^${seconds(ServerDefaults.defaultLimits.requestTimeoutMs)} `)
    )
    assert.strictEqual(row("how often those two are checked"), `every ${seconds(ServerDefaults.deadlineCheckMs)}`)
    assert.match(row("a chat request's body"), new RegExp(`^${ServerDefaults.defaultMaxBodyBytes / 1_048_576} MiB `))
    assert.strictEqual(row("how deeply a chat body's arrays and objects nest"), `${BodyLimits.maxJsonDepth} levels`)
    assert.match(
      row("an upstream error answer read to look for an overflow"),
      new RegExp(`^${Proxy.defaultMaxErrorBodyBytes / 1_048_576} MiB `)
    )
    assert.match(row("silence of the upstream"), new RegExp(`^${Duration.toSeconds(Proxy.defaultUpstreamTimeout)} s `))
    assert.match(
      row("opening a connection to the upstream"),
      new RegExp(`^${Duration.toSeconds(Proxy.defaultConnectTimeout)} s `)
    )
  })
})
