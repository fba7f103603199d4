/**
 * The proxy's own limits and manners, and the depth limit it shares with
 * `serve`, over real sockets: an upstream error answer that cannot be read
 * whole is relayed as far as it was read and then aborted, never ended as if
 * complete; a body past the size limit gets 413 (not a reset), one nested past
 * the depth limit 400; without a token the proxy holds `serve`'s same-site
 * rule and keeps the upstream's CORS headers to itself.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Redacted from "effect/Redacted"
import * as Http from "node:http"
import * as BodyLimits from "../../../../src/apps/http/BodyLimits.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as HttpTestServer from "../../../support/HttpTestServer.js"
import { raw } from "../../../support/RawHttp.js"

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

/** The proxy on a free port of 127.0.0.1 in front of `fake`, its warnings recorded. */
const proxy = (fake: FakeUpstream.FakeUpstream, options: Partial<Proxy.Options> = {}) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const recorder = Logger.make(({ message }) => {
      warnings.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
    const server = Proxy.layer({ upstream: fake.url, window: 32_000, ...options }).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(Compat.nodeHttpClient),
      Layer.provide(TestCompat.replaceLogger(recorder))
    )
    const context = yield* Layer.build(server)
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { port: address.port, warnings }
  })

const chat = JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "hello" }] })

/** JSON arrays nested `depth` deep. */
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

describe("Proxy: an upstream error answer that cannot be read whole", () => {
  const errorStart = "{\"error\":{\"message\":\"the server is overloaded, "
  for (const cut of ["close", "stall"] as const) {
    it.scopedLive(`a 500 whose body is cut (${cut}): the client gets what was read, then the connection aborted; one warning`, () =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const { port, warnings } = yield* proxy(fake, { upstreamTimeout: "400 millis" })
        fake.script.push({ _tag: "stream", status: 500, contentType: "application/json", chunks: [errorStart], cut })
        const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { body: chat }))
        assert.strictEqual(seen.status, 500)
        assert.isFalse(seen.complete, "the cut error body ended as if complete")
        assert.strictEqual(seen.body, errorStart)
        const lines = warnings.filter((line) => line.includes("could not be read whole"))
        assert.strictEqual(lines.length, 1, warnings.join("\n"))
        assert.include(lines[0]!, cut === "stall" ? "sent nothing for" : "its body failed")
      }))
  }

  it.scopedLive("a 500 whose chunked body is past the read limit: the client gets what was read, then the connection aborted; one warning", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port, warnings } = yield* proxy(fake, { maxErrorBodyBytes: 1_000 })
      const chunk = "x".repeat(600)
      fake.script.push({
        _tag: "stream",
        status: 500,
        contentType: "application/json",
        chunks: [errorStart, chunk, chunk, chunk]
      })
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { body: chat }))
      assert.strictEqual(seen.status, 500)
      assert.isFalse(seen.complete)
      assert.isTrue(seen.body.startsWith(errorStart + chunk), "what was read is relayed")
      const lines = warnings.filter((line) => line.includes("could not be read whole"))
      assert.strictEqual(lines.length, 1, warnings.join("\n"))
      assert.include(lines[0]!, "past the 1000 bytes read to classify it")
    }))

  it("the default read limit of an error body is 1 MiB", () => {
    assert.strictEqual(Proxy.defaultMaxErrorBodyBytes, 1_048_576)
  })
})

describe("Proxy: a request body past the limits", () => {
  it.scopedLive("a chat body past the size limit gets 413 with a JSON error and Connection: close, not a reset; the upstream gets nothing", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { maxBodyBytes: 64 * 1_024 })
      const body = JSON.stringify({
        model: "gpt-test",
        messages: [{ role: "user", content: "y".repeat(2 * 1_048_576) }]
      })
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { body }))
      assert.isUndefined(seen.error, "the request was reset instead of answered")
      assert.strictEqual(seen.status, 413)
      assert.strictEqual(seen.headers.connection, "close")
      assert.strictEqual(JSON.parse(seen.body).error.type, "request_too_large")
      assert.strictEqual(fake.received.length, 0)
    }))

  for (const depth of [BodyLimits.maxJsonDepth + 1, 3_000, 200_000]) {
    it.scopedLive(`a chat body nested ${depth} deep gets 400 naming the depth limit, and never reaches the upstream`, () =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const { port } = yield* proxy(fake)
        const body = `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":${nested(depth)}}`
        const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { body }))
        assert.strictEqual(seen.status, 400, seen.body)
        assert.include(
          JSON.parse(seen.body).error.message,
          `deeper than the limit of ${BodyLimits.maxJsonDepth} levels`
        )
        assert.strictEqual(fake.received.length, 0)
      }))
  }

  it.scopedLive("a chat body nested exactly to the depth limit is forwarded", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake)
      // The body's object and the tools field's arrays: the limit in all.
      const body = `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":${
        nested(BodyLimits.maxJsonDepth - 1)
      }}`
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { body }))
      assert.strictEqual(seen.status, 200, seen.body)
      assert.strictEqual(fake.received.length, 1)
    }))
})

describe("serve: the depth limit", () => {
  for (const depth of [BodyLimits.maxJsonDepth + 1, 3_000, 200_000]) {
    it.scopedLive(`/v1/compact and /v1/reduce with a body nested ${depth} deep answer 400 naming the depth limit`, () =>
      Effect.gen(function*() {
        const { base } = yield* HttpTestServer.serve()
        const transcript = `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},${nested(depth)}]`
        for (
          const [path, body] of [["/v1/compact", `{"transcript":${transcript}}`], [
            "/v1/reduce",
            `{"envelope":${nested(depth)}}`
          ]] as const
        ) {
          const answer = yield* HttpTestServer.send(`${base}${path}`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body
          })
          assert.strictEqual(answer.status, 400, `${path}: ${JSON.stringify(answer.body)}`)
          assert.strictEqual(answer.body._tag, "InvalidJson")
          assert.include(answer.body.message, `deeper than the limit of ${BodyLimits.maxJsonDepth} levels`)
        }
      }))
  }
})

describe("Proxy without a token: serve's same-site rule", () => {
  it.scopedLive("a foreign Host gets 421, a POST from a foreign Origin 403; neither reaches the upstream", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake)
      const rebound = yield* Effect.promise(() =>
        raw(port, "/v1/chat/completions", { body: chat, headers: { host: `attacker.example:${port}` } })
      )
      assert.strictEqual(rebound.status, 421, rebound.body)
      assert.include(JSON.parse(rebound.body).error.message, "--allowed-host")
      const foreign = yield* Effect.promise(() =>
        raw(port, "/v1/chat/completions", { body: chat, headers: { origin: "http://attacker.example" } })
      )
      assert.strictEqual(foreign.status, 403, foreign.body)
      const passedThrough = yield* Effect.promise(() =>
        raw(port, "/v1/embeddings", { body: "{}", headers: { origin: "http://attacker.example" } })
      )
      assert.strictEqual(passedThrough.status, 403)
      assert.strictEqual(fake.received.length, 0)
    }))

  it.scopedLive("its own address and --allowed-host names are served; the upstream's CORS headers are not passed on", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { allowedHosts: ["proxy.internal"] })
      fake.script.push({
        _tag: "json",
        status: 200,
        body: { data: [] },
        headers: { "access-control-allow-origin": "*", "x-upstream": "yes" }
      })
      const models = yield* Effect.promise(() =>
        raw(port, "/v1/models", {
          method: "GET",
          headers: { host: `proxy.internal:${port}`, origin: "http://attacker.example" }
        })
      )
      assert.strictEqual(models.status, 200)
      assert.strictEqual(models.headers["x-upstream"], "yes")
      assert.isUndefined(models.headers["access-control-allow-origin"])
      const own = yield* Effect.promise(() =>
        raw(port, "/v1/chat/completions", { body: chat, headers: { host: `localhost:${port}` } })
      )
      assert.strictEqual(own.status, 200, own.body)
    }))

  it.scopedLive("with a token the same-site rule is off and the upstream's CORS headers pass", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { token: Redacted.make("secret") })
      fake.script.push({
        _tag: "json",
        status: 200,
        body: { data: [] },
        headers: { "access-control-allow-origin": "*" }
      })
      const models = yield* Effect.promise(() =>
        raw(port, "/v1/models", {
          method: "GET",
          headers: { host: `attacker.example:${port}`, [Proxy.tokenHeader]: "secret" }
        })
      )
      assert.strictEqual(models.status, 200)
      assert.strictEqual(models.headers["access-control-allow-origin"], "*")
    }))
})
