/**
 * The proxy under a failing upstream and hostile paths, over real sockets:
 * the fake upstream (test/support/FakeUpstream.ts) hangs, stalls, resets or
 * closes mid-stream, all on 127.0.0.1.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as RawHttp from "../../../support/RawHttp.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

/** The proxy on a free port of 127.0.0.1 in front of `fake`, its warnings recorded. */
const proxy = (
  fake: FakeUpstream.FakeUpstream,
  options: Partial<Proxy.Options> = {},
  engineOptions: { readonly summarizer?: Layer.Layer<Summarizer.Summarizer>; readonly summaryDeadline?: string } = {}
) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const recorder = Logger.make(({ message }) => {
      warnings.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    const engine = Compactor.layer({
      policies: builtInPolicies,
      ...(engineOptions.summaryDeadline === undefined
        ? {}
        : { summaryDeadline: engineOptions.summaryDeadline as "1 second" })
    }).pipe(
      Layer.provideMerge(
        Testing.layer(engineOptions.summarizer === undefined ? {} : { summarizer: engineOptions.summarizer })
      )
    )
    const server = Proxy.layer({ upstream: fake.url, window: 32_000, ...options }).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(Compat.nodeHttpClient),
      Layer.provide(TestCompat.replaceLogger(recorder))
    )
    const context = yield* Layer.build(server)
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, port: address.port, warnings }
  })

/** What a plain Node client saw of an answer: its status, headers, body, and whether the body ended properly. */
/** A request by node:http, the path sent as written (fetch would normalise it); a request that meets no answer fails. */
const raw = async (port: number, path: string, body?: unknown, method = "POST"): Promise<RawHttp.Seen> => {
  const seen = await RawHttp.raw(port, path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  if (seen.error !== undefined) throw new Error(seen.error)
  return seen
}

const chat = (stream: boolean) => ({ model: "gpt-test", messages: session.slice(0, 20), stream })
const messages = (stream: boolean) => ({
  model: "claude-test",
  max_tokens: 64,
  messages: [{ role: "user", content: "hello" }],
  stream
})

describe("Proxy: an upstream that does not answer", () => {
  it.scopedLive("a request the upstream never answers gets 504 with a JSON error once the upstream timeout passes", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port, warnings } = yield* proxy(fake, { upstreamTimeout: "300 millis" })
      fake.script.push({ _tag: "hang" })
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(false)))
      assert.strictEqual(seen.status, 504)
      const error = JSON.parse(seen.body)
      assert.strictEqual(error.error.type, "upstream_timeout")
      assert.include(error.error.message, "300")
      assert.isTrue(warnings.some((line) => line.includes("no response head")), warnings.join("\n"))
    }))

  it.scopedLive("a passed-through request the upstream never answers gets 504 too", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { upstreamTimeout: "300 millis" })
      fake.script.push({ _tag: "hang" })
      const seen = yield* Effect.promise(() => raw(port, "/v1/models", undefined, "GET"))
      assert.strictEqual(seen.status, 504)
    }))

  it.scopedLive("an upstream that cannot be reached gets 502", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const url = fake.url
      yield* Effect.promise(() => fake.close())
      const { port } = yield* proxy({ ...fake, url }, { upstreamTimeout: "2 seconds" })
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(false)))
      assert.strictEqual(seen.status, 502)
      assert.strictEqual(JSON.parse(seen.body).error.type, "upstream_unreachable")
    }))
})

describe("Proxy: a stream the upstream cuts reaches the client as a failure", () => {
  for (const cut of ["reset", "close", "stall"] as const) {
    it.scopedLive(`OpenAI, ${cut}: an error event in OpenAI's shape, then the connection aborted without the body's end; one warning`, () =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const { port, warnings } = yield* proxy(fake, { upstreamTimeout: "400 millis" })
        fake.script.push({
          _tag: "stream",
          chunks: FakeUpstream.openAiStream("one two three four", 10).slice(0, 3),
          cut
        })
        const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", { ...chat(true) }))
        assert.strictEqual(seen.status, 200)
        assert.isFalse(seen.complete, "the body ended as if complete")
        // a reset may take the last bytes with it: only what came before the cut is certain
        if (cut !== "reset") assert.include(seen.body, `"content":" two"`)
        assert.notInclude(seen.body, "[DONE]")
        const last = seen.body.trim().split("\n\n").at(-1)!
        assert.match(last, /^data: /)
        const error = JSON.parse(last.slice("data: ".length))
        assert.strictEqual(error.error.code, "upstream_stream_cut")
        const lines = warnings.filter((line) => line.includes("was cut after"))
        assert.strictEqual(lines.length, 1, warnings.join("\n"))
        assert.match(lines[0]!, /session \S+: the upstream's answer \(200\) was cut after \d+ bytes in \d+ chunks/)
      }))
  }

  it.scopedLive("OpenAI's client raises on a cut stream instead of ending it as a success", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      fake.script.push({
        _tag: "stream",
        chunks: FakeUpstream.openAiStream("one two three", 10).slice(0, 2),
        cut: "reset"
      })
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk", maxRetries: 0 })
      const outcome = yield* Effect.promise(async () => {
        try {
          const stream = await client.chat.completions.create({
            model: "gpt-test",
            messages: session.slice(0, 20) as any,
            stream: true
          })
          for await (const _ of stream) {
            // read to the end
          }
          return "completed"
        } catch (error) {
          return `failed: ${String(error)}`
        }
      })
      assert.match(outcome, /^failed: /)
    }))

  for (const cut of ["reset", "close"] as const) {
    it.scopedLive(`Anthropic, ${cut}: an error event in Anthropic's shape, then the connection aborted; the client raises`, () =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const { base, port } = yield* proxy(fake)
        const events = FakeUpstream.anthropicStream("one two three", 10).slice(0, 3)
        fake.script.push({ _tag: "stream", chunks: events, cut })
        const seen = yield* Effect.promise(() => raw(port, "/v1/messages", messages(true)))
        assert.isFalse(seen.complete)
        assert.notInclude(seen.body, "message_stop")
        const last = seen.body.trim().split("\n\n").at(-1)!
        assert.match(last, /^event: error\ndata: /)
        assert.strictEqual(JSON.parse(last.split("\ndata: ")[1]!).type, "error")
        fake.script.push({ _tag: "stream", chunks: events, cut })
        const client = new Anthropic({ baseURL: base, apiKey: "sk-ant", maxRetries: 0 })
        const outcome = yield* Effect.promise(() =>
          client.messages.stream(messages(false) as any).finalMessage().then(
            () => "completed",
            (error) => `failed: ${String(error)}`
          )
        )
        assert.match(outcome, /^failed: /)
      }))
  }

  it.scopedLive("a JSON answer cut before its end gets 502, one that stalls 504; a passed-through body that stalls is cut", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { upstreamTimeout: "400 millis" })
      const partial = ["{\"id\":\"chatcmpl-1\",\"choices\":["]
      fake.script.push({ _tag: "stream", chunks: partial, cut: "close", contentType: "application/json" })
      const cut = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(false)))
      assert.strictEqual(cut.status, 502)
      assert.strictEqual(JSON.parse(cut.body).error.type, "upstream_body")
      fake.script.push({ _tag: "stream", chunks: partial, cut: "stall", contentType: "application/json" })
      const stalled = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(false)))
      assert.strictEqual(stalled.status, 504)
      assert.strictEqual(JSON.parse(stalled.body).error.type, "upstream_timeout")
      fake.script.push({ _tag: "stream", chunks: ["data: {}\n\n"], cut: "stall" })
      const passed = yield* Effect.promise(() => raw(port, "/v1/models", undefined, "GET"))
      assert.strictEqual(passed.status, 200)
      assert.isFalse(passed.complete, "a passed-through body that stalls ended as if complete")
    }))

  it.scopedLive("a JSON answer that stalls past the upstream timeout of its head gets 504 and ends the upstream's request", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { upstreamTimeout: "300 millis" })
      fake.script.push({
        _tag: "stream",
        chunks: ["{\"id\":\"chatcmpl-1\","],
        cut: "stall",
        contentType: "application/json"
      })
      const stalled = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(false)))
      assert.strictEqual(stalled.status, 504)
      const closed = yield* Effect.promise(() =>
        Promise.race([
          fake.closedEarly.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000))
        ])
      )
      assert.isTrue(closed, "the stalled upstream request stayed open")
    }))

  it.scopedLive("a client that leaves still ends the upstream's request after a cut", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake, { upstreamTimeout: "300 millis" })
      fake.script.push({ _tag: "stream", chunks: FakeUpstream.openAiStream("one two", 10).slice(0, 1), cut: "stall" })
      const seen = yield* Effect.promise(() => raw(port, "/v1/chat/completions", chat(true)))
      assert.isFalse(seen.complete)
      const closed = yield* Effect.promise(() =>
        Promise.race([
          fake.closedEarly.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000))
        ])
      )
      assert.isTrue(closed, "the stalled upstream request stayed open")
    }))
})

describe("Proxy: a summariser that hangs", () => {
  it.scopedLive("holds a request no longer than the checkpoint's deadline: the session is trimmed and the request goes on", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const hanging = Layer.succeed(Summarizer.Summarizer, Summarizer.Summarizer.of({ summarize: () => Effect.never }))
      const { port } = yield* proxy(fake, {}, { summarizer: hanging, summaryDeadline: "500 millis" })
      const started = Date.now()
      const seen = yield* Effect.promise(() =>
        raw(port, "/v1/chat/completions", { model: "gpt-test", messages: session })
      )
      assert.strictEqual(seen.status, 200)
      assert.isBelow(Date.now() - started, 15_000, "the deadline did not end the summariser's wait")
      assert.isBelow(fake.received[0]!.body.messages.length, session.length)
    }))
})

describe("Proxy: the report header says what was sent", () => {
  it.scopedLive("after a session's compaction, the next request reports the saved compaction and the messages the upstream received", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake)
      const headers = { "x-session-id": "header-session" }
      const send = (body: unknown) =>
        new Promise<RawHttp.Seen>((resolve, reject) => {
          const request = Http.request({
            host: "127.0.0.1",
            port,
            path: "/v1/chat/completions",
            method: "POST",
            headers: { "content-type": "application/json", ...headers }
          }, (response) => {
            let text = ""
            response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () =>
              resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text, complete: true }))
          })
          request.on("error", reject)
          request.end(JSON.stringify(body))
        })
      const first = yield* Effect.promise(() => send({ model: "gpt-test", messages: session }))
      assert.include(
        String(first.headers[Proxy.reportHeader]),
        `messages=${session.length}->${fake.received[0]!.body.messages.length};`
      )
      assert.match(String(first.headers[Proxy.reportHeader]), /^compacted; /)
      const longer = [...session, { role: "user", content: "and now?" }]
      const second = yield* Effect.promise(() => send({ model: "gpt-test", messages: longer }))
      const sent = fake.received[1]!.body.messages.length
      assert.isBelow(sent, longer.length)
      const header = String(second.headers[Proxy.reportHeader])
      assert.match(header, /^(restored; from=saved-compaction|compacted; cause=\w+); messages=\d+->\d+; tokens=/)
      assert.include(header, `messages=${longer.length}->${sent};`)
    }))

  it.scopedLive("an Anthropic request is counted in its own messages, the system prompt not one of them", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { port } = yield* proxy(fake)
      const body = {
        model: "claude-test",
        max_tokens: 64,
        system: "be brief",
        messages: [{ role: "user", content: "one" }, { role: "assistant", content: "two" }, {
          role: "user",
          content: "three"
        }]
      }
      const seen = yield* Effect.promise(() => raw(port, "/v1/messages", body))
      assert.strictEqual(fake.received[0]!.body.messages.length, 3)
      assert.match(String(seen.headers[Proxy.reportHeader]), /^unchanged; messages=3; tokens=\d+$/)
    }))
})

describe("Proxy: the upstream's prefix", () => {
  for (
    const path of [
      "/../../secret",
      "/v1/../../secret",
      "/%2e%2e/%2E%2E/secret",
      "/v1/..%2f..%2fsecret",
      "/v1\\..\\..\\secret",
      "/./v1/models"
    ]
  ) {
    it.scopedLive(`${JSON.stringify(path)} is refused with 400 and never reaches the upstream`, () =>
      Effect.gen(function*() {
        const fake = yield* upstream
        const { port } = yield* proxy({ ...fake, url: `${fake.url}/v1` })
        const seen = yield* Effect.promise(() => raw(port, path, undefined, "GET"))
        assert.strictEqual(seen.status, 400)
        assert.strictEqual(JSON.parse(seen.body).error.type, "invalid_path")
        assert.strictEqual(fake.received.length, 0)
      }))
  }

  it("escapesPrefix holds for dot segments only, not for dots inside names", () => {
    assert.isFalse(Proxy.escapesPrefix("/v1/models/gpt-4.1?x=../.."))
    assert.isFalse(Proxy.escapesPrefix("/v1/files/a..b"))
    assert.isTrue(Proxy.escapesPrefix("/v1/.."))
    assert.isTrue(Proxy.escapesPrefix("/v1/%2E"))
  })
})
