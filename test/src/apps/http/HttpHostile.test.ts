/**
 * Hostile callers and faults of `serve`, over real sockets: the same-site rule
 * of a token-less server (`HttpServer.sameSiteRule`), with `Host` and `Origin`
 * written by node:http as a hostile page or a DNS-rebinding name would send
 * them; a summariser that hangs; a message whose count was quadratic.
 */
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as SummarizerChatCompletions from "../../../../src/face/layers/SummarizerChatCompletions.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import { post, serve } from "../../../support/HttpTestServer.js"
import { prop } from "../../../support/Property.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

interface Seen {
  readonly status: number
  readonly body: string
}

/** A request by node:http, with the `Host` and `Origin` given. */
const request = (
  port: number,
  options: {
    readonly method?: string
    readonly path: string
    readonly headers?: Record<string, string>
    readonly body?: string
  }
) =>
  Effect.promise(() =>
    new Promise<Seen>((resolve, reject) => {
      const outgoing = Http.request({
        host: "127.0.0.1",
        port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers ?? {}
      }, (response) => {
        let body = ""
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on(
          "end",
          () => resolve({ status: response.statusCode ?? 0, body })
        )
      })
      outgoing.on("error", reject)
      outgoing.end(options.body)
    })
  )

const portOf = (base: string) => Number(new URL(base).port)

const setting = (port: number, headers: Record<string, string>) =>
  request(port, {
    method: "POST",
    path: "/v1/settings/compaction",
    headers: { "content-type": "text/plain", ...headers },
    body: JSON.stringify({ trigger_pct: 61 })
  })

const triggerOf = (port: number) =>
  Effect.map(
    request(port, { path: "/v1/settings/compaction" }),
    (seen) => JSON.parse(seen.body).settings.trigger_pct as number
  )

describe("serve without a token: the same-site rule", () => {
  it.scopedLive("a cross-origin text/plain POST of a setting gets 403 and nothing is persisted; the server's own page's origin may", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const port = portOf(base)
      const before = yield* triggerOf(port)
      const evil = yield* setting(port, { origin: "http://evil.example" })
      assert.strictEqual(evil.status, 403)
      assert.strictEqual(JSON.parse(evil.body)._tag, "CrossOrigin")
      const nullOrigin = yield* setting(port, { origin: "null" })
      assert.strictEqual(nullOrigin.status, 403)
      const otherPort = yield* setting(port, { origin: `http://127.0.0.1:${port + 1}` })
      assert.strictEqual(otherPort.status, 403, "another port is another origin")
      assert.strictEqual(yield* triggerOf(port), before)
      const own = yield* setting(port, { origin: `http://127.0.0.1:${port}` })
      assert.strictEqual(own.status, 200, own.body)
      assert.strictEqual(yield* triggerOf(port), 61)
      const viaLocalhost = yield* setting(port, { host: `localhost:${port}`, origin: `http://localhost:${port}` })
      assert.strictEqual(viaLocalhost.status, 200, viaLocalhost.body)
      const noOrigin = yield* setting(port, {})
      assert.strictEqual(noOrigin.status, 200, "curl and SDKs send no Origin")
    }))

  it.scopedLive("a Host that is not the bound address, localhost or a given name gets 421, page and API alike", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ allowedHosts: ["compressor.internal"] })
      const port = portOf(base)
      for (const path of ["/", "/v1/settings/compaction"]) {
        const rebound = yield* request(port, { path, headers: { host: `evil.example:${port}` } })
        assert.strictEqual(rebound.status, 421, path)
        assert.strictEqual(JSON.parse(rebound.body)._tag, "UnknownHost")
      }
      for (
        const host of [
          `127.0.0.1:${port}`,
          `localhost:${port}`,
          `[::1]:${port}`,
          `compressor.internal:${port}`,
          `COMPRESSOR.internal`
        ]
      ) {
        const seen = yield* request(port, { path: "/v1/settings/compaction", headers: { host } })
        assert.strictEqual(seen.status, 200, host)
      }
      const page = yield* request(port, { path: "/", headers: { host: `127.0.0.1:${port}` } })
      assert.strictEqual(page.status, 200)
      assert.include(page.body, "<html")
    }))

  it.scopedLive("with a token, the rule is the token's: another Host or Origin is answered once authorised", () =>
    Effect.gen(function*() {
      const { base } = yield* serve({ token: Redacted.make("s3cret") })
      const port = portOf(base)
      const seen = yield* setting(port, {
        host: `evil.example:${port}`,
        origin: "http://evil.example",
        authorization: "Bearer s3cret"
      })
      assert.strictEqual(seen.status, 200)
      const refused = yield* setting(port, { origin: "http://evil.example" })
      assert.strictEqual(refused.status, 401)
    }))

  it.scopedLive("the proxy's admin port keeps the same rule", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(Effect.promise(() => FakeUpstream.start()), (f) =>
        Effect.promise(() => f.close()))
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() =>
          Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-same-site-"))
        ),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const context = yield* Layer.build(
        Proxy.layerNode({ upstream: fake.url, port: 0, adminPort: 0, directory, env: () => ({}) })
      )
      const admin = Option.getOrThrow(Context.getOption(context as Context.Context<never>, Proxy.AdminAddress))
      const port = HttpCompat.tcpAddress(admin)?.port ?? 0
      assert.strictEqual((yield* setting(port, { origin: "http://evil.example" })).status, 403)
      assert.strictEqual(
        (yield* request(port, { path: "/v1/settings/compaction", headers: { host: "evil.example" } })).status,
        421
      )
      assert.strictEqual((yield* setting(port, { origin: `http://127.0.0.1:${port}` })).status, 200)
      assert.notStrictEqual(Context.get(context, HttpCompat.HttpServer.HttpServer).address, admin)
    }))

  prop(
    "sameSiteRule: a name that is not loopback, bound or given is refused; a state-changing request from any other origin is refused",
    [fc.domain(), fc.constantFrom("POST", "PUT", "DELETE", "PATCH")],
    ([name, method]) => {
      const bound = TestCompat.tcpAddressOf("127.0.0.1", 8787)
      const foreign = Server.sameSiteRule({ method: "GET", headers: { host: `${name}:8787` } }, bound)
      assert.strictEqual(
        name === "localhost" ? undefined : foreign?._tag,
        name === "localhost" ? undefined : "UnknownHost"
      )
      assert.isUndefined(Server.sameSiteRule({ method: "GET", headers: { host: `${name}:8787` } }, bound, [name]))
      const crossSite = Server.sameSiteRule({
        method,
        headers: { host: "127.0.0.1:8787", origin: `http://${name}:8787` }
      }, bound)
      assert.strictEqual(crossSite?._tag, "CrossOrigin")
      assert.isUndefined(
        Server.sameSiteRule({ method: "GET", headers: { host: "127.0.0.1:8787", origin: `http://${name}` } }, bound)
      )
    }
  )
})

describe("serve: a summariser that hangs", () => {
  it.scopedLive("the summariser's own timeout ends its wait inside the server: the compaction answers, trimmed", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeUpstream.start()),
        (f) => Effect.promise(() => f.close())
      )
      fake.script.push({ _tag: "hang" }, { _tag: "hang" }, { _tag: "hang" })
      const summarizer = SummarizerChatCompletions.layer({ baseUrl: `${fake.url}/v1`, timeout: "300 millis" }).pipe(
        Layer.provide(HttpCompat.layerUndiciAgent({}))
      )
      const { base } = yield* serve({ summarizer })
      const session = JSON.parse(
        Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
      )
      const started = Date.now()
      const answer = yield* post(`${base}/v1/compact`, {
        transcript: JSON.stringify(session),
        window: 128_000,
        sessionId: "hanging-summariser"
      })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body).slice(0, 300))
      assert.isBelow(Date.now() - started, 15_000)
      assert.isAtLeast(fake.received.length, 1)
    }))
})

describe("serve: a pathological message", () => {
  it.scopedLive("one message of 200,000 `[` is counted by o200k_base in one pass, and a settings read is answered meanwhile", () =>
    Effect.gen(function*() {
      const { base } = yield* serve()
      const transcript = [{ role: "user", content: "[".repeat(200_000) }, { role: "assistant", content: "noted" }]
      const started = Date.now()
      const [compacted, settings] = yield* Effect.all([
        post(`${base}/v1/compact`, { transcript, window: 400_000, sessionId: "brackets" }),
        Effect.andThen(Effect.sleep("50 millis"), request(portOf(base), { path: "/v1/settings/compaction" }))
      ], { concurrency: "unbounded" })
      assert.strictEqual(compacted.status, 200, JSON.stringify(compacted.body).slice(0, 300))
      assert.strictEqual(settings.status, 200)
      // the count of the run whole was quadratic: 18 s for this message; in slices it is linear
      assert.isBelow(Date.now() - started, 10_000)
      // counted whole before the ladder cut the message down to a quarter of the view, as it does a message that big when it comes
      assert.isAtLeast(compacted.body.report.tokensBefore, 100_000)
    }))
})
