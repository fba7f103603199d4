import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

/** The example session: 371 OpenAI chat messages, 182 tool results, a staged approval awaiting /accept. */
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The same session as Messages API messages: tool calls as tool_use blocks, results as tool_result blocks, roles alternating. */
const anthropicSession = Histories.toAnthropicMessages(session)

/** The proxy on a free port of 127.0.0.1 in front of `upstream`, over the test layers; its base URL. */
const proxy = (upstream: FakeUpstream.FakeUpstream, options: Partial<Proxy.Options> = {}) =>
  Effect.gen(function*() {
    const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
    const server = Proxy.layer({ upstream: upstream.url, window: 32_000, ...options }).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(Compat.nodeHttpClient)
    )
    const context = yield* Layer.build(server)
    const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, compactor: Context.get(context, Compactor.Compactor) }
  })

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

const overflowError = {
  error: {
    message:
      "This model's maximum context length is 16000 tokens. However, your messages resulted in 40123 tokens. Please reduce the length of the messages.",
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded"
  }
}

const texts = (messages: ReadonlyArray<any>): string => JSON.stringify(messages)

describe("Proxy with the openai client", () => {
  it.scopedLive("a long tool-using history is compacted on its way; every other field and the key reach the upstream as sent", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const { data: completion, response } = yield* Effect.promise(() =>
        client.chat.completions.create({
          model: "gpt-test",
          messages: session as any,
          temperature: 0.25,
          tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }]
        }).withResponse()
      )
      assert.strictEqual(fake.received.length, 1)
      const sent = fake.received[0]!
      assert.strictEqual(sent.path, "/v1/chat/completions")
      assert.strictEqual(sent.headers["authorization"], "Bearer sk-test-key")
      assert.strictEqual(sent.body.temperature, 0.25)
      assert.strictEqual(sent.body.model, "gpt-test")
      assert.deepStrictEqual(sent.body.tools, [{
        type: "function",
        function: { name: "bash", parameters: { type: "object" } }
      }])
      assert.isBelow(sent.body.messages.length, session.length / 4)
      assert.isBelow(sent.text.length, 32_000 * 4)
      assert.strictEqual(sent.body.messages[0].role, "system")
      // every tool result the upstream got answers a call it also got
      const calls = new Set(
        sent.body.messages.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id))
      )
      for (const message of sent.body.messages.filter((message: any) => message.role === "tool")) {
        assert.isTrue(calls.has(message.tool_call_id))
      }
      // the staged approval awaiting /accept is still there, verbatim
      const pending = session.filter((message) =>
        message.role === "tool" && message.content.includes("pending_approval")
      ).at(-1)
      assert.include(texts(sent.body.messages), JSON.stringify(pending.content).slice(1, 200))
      assert.match(
        response.headers.get(Proxy.reportHeader) ?? "",
        /^compacted; cause=trigger; messages=371->\d+; tokens=\d+->\d+$/
      )
      assert.strictEqual(completion.choices[0]!.message.content, `received ${sent.body.messages.length} messages`)
    }))

  it.scopedLive("a streamed completion reaches the client chunk by chunk, before the upstream has finished", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      let sawFirst!: () => void
      const firstSeen = new Promise<void>((resolve) => (sawFirst = resolve))
      let buffered = false
      fake.script.push({
        _tag: "stream",
        chunks: FakeUpstream.openAiStream("one two three", 1234),
        // the rest is written only once the client has the first chunk (or, if the proxy buffers, after 15 s)
        between: () =>
          Promise.race([
            firstSeen,
            new Promise<void>((resolve) =>
              setTimeout(() => {
                buffered = true
                resolve()
              }, 15_000)
            )
          ])
      })
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const words = yield* Effect.promise(async () => {
        const stream = await client.chat.completions.create({
          model: "gpt-test",
          messages: session as any,
          stream: true,
          stream_options: { include_usage: true }
        })
        const out: Array<string> = []
        for await (const chunk of stream) {
          const content = chunk.choices[0]?.delta?.content
          if (content) {
            out.push(content)
            sawFirst()
          }
        }
        return out
      })
      assert.isFalse(buffered, "the proxy held the stream back")
      assert.deepStrictEqual(words, ["one", " two", " three"])
      assert.isBelow(fake.received[0]!.body.messages.length, session.length / 4)
      assert.strictEqual(fake.received[0]!.body.stream, true)
    }))

  it.scopedLive("an upstream's context-length error enters the overflow policy: compacted harder and sent once more", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake, { window: 128_000 })
      const history = session.slice(0, 100)
      fake.script.push({ _tag: "json", status: 400, body: overflowError })
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const { data: completion, response } = yield* Effect.promise(() =>
        client.chat.completions.create({ model: "gpt-test", messages: history }).withResponse()
      )
      assert.strictEqual(fake.received.length, 2)
      const [first, second] = [fake.received[0]!, fake.received[1]!]
      assert.strictEqual(
        first.body.messages.length,
        history.length,
        "under a 128k window the first request goes uncompacted"
      )
      assert.isBelow(second.body.messages.length, first.body.messages.length)
      // the error named a 16,000-token limit: the retry fits it
      assert.isBelow(second.text.length / 4, 16_000)
      assert.match(response.headers.get(Proxy.reportHeader) ?? "", /^compacted; cause=overflow;/)
      assert.strictEqual(completion.choices[0]!.message.content, `received ${second.body.messages.length} messages`)
    }))

  it.scopedLive("a second overflow goes back to the client as the upstream's own error", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake, { window: 128_000 })
      fake.script.push({ _tag: "json", status: 400, body: overflowError }, {
        _tag: "json",
        status: 400,
        body: overflowError
      })
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const error = yield* Effect.promise(() =>
        client.chat.completions.create({ model: "gpt-test", messages: session.slice(0, 200) }).then(
          () => undefined,
          (e) => e
        )
      )
      assert.instanceOf(error, OpenAI.BadRequestError)
      assert.strictEqual((error as any).code, "context_length_exceeded")
      assert.strictEqual(fake.received.length, 2, "retried once, not more")
    }))

  it.scopedLive("a client that disconnects mid-stream cancels the upstream request", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      fake.script.push({ _tag: "stream", chunks: FakeUpstream.openAiStream("one two", 10), endless: true })
      const controller = new AbortController()
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      yield* Effect.promise(async () => {
        const stream = await client.chat.completions.create({
          model: "gpt-test",
          messages: session.slice(0, 20),
          stream: true
        }, { signal: controller.signal })
        try {
          for await (const _ of stream) {
            controller.abort()
          }
        } catch {
          // aborted, as meant
        }
      })
      const closed = yield* Effect.promise(() =>
        Promise.race([
          fake.closedEarly.then(() => true),
          new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5_000))
        ])
      )
      assert.isTrue(closed, "the upstream's connection stayed open after the client left")
    }))
})

describe("Proxy with the Anthropic client", () => {
  it.scopedLive("a Messages request is compacted, alternating roles and tool_use/tool_result pairs kept; the key reaches the upstream", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      const client = new Anthropic({ baseURL: base, apiKey: "sk-ant-test", maxRetries: 0 })
      const message = yield* Effect.promise(() =>
        client.messages.create({
          model: "claude-test",
          max_tokens: 1024,
          system: anthropicSession.system,
          messages: anthropicSession.messages as any
        })
      )
      const sent = fake.received[0]!
      assert.strictEqual(sent.path, "/v1/messages")
      assert.include(String(sent.headers["x-api-key"] ?? sent.headers["authorization"]), "sk-ant-test")
      assert.strictEqual(sent.body.max_tokens, 1024)
      assert.strictEqual(sent.body.system, anthropicSession.system)
      assert.isBelow(sent.body.messages.length, anthropicSession.messages.length / 3)
      sent.body.messages.forEach((m: any, i: number) => assert.strictEqual(m.role, i % 2 === 0 ? "user" : "assistant"))
      const uses = new Set(
        sent.body.messages.flatMap((m: any) =>
          Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_use").map((b: any) => b.id) : []
        )
      )
      for (const m of sent.body.messages) {
        for (const block of Array.isArray(m.content) ? m.content : []) {
          if (block.type === "tool_result") assert.isTrue(uses.has(block.tool_use_id))
        }
      }
      assert.strictEqual(
        message.content[0]!.type === "text" && message.content[0]!.text,
        `received ${sent.body.messages.length} messages`
      )
    }))

  it.scopedLive("the input tokens a stream reports are the next request's signal: an uncounted-small session compacts", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake, { window: 200_000 })
      const client = new Anthropic({ baseURL: base, apiKey: "sk-ant-test", maxRetries: 0 })
      const short = anthropicSession.messages.slice(0, 61)
      fake.usageTokens = 190_000
      const streamed = yield* Effect.promise(async () => {
        const stream = client.messages.stream({ model: "claude-test", max_tokens: 64, messages: short as any }, {
          headers: { [Proxy.sessionHeader]: "s-usage" }
        })
        return (await stream.finalMessage()).content
      })
      assert.strictEqual(streamed[0]!.type === "text" && streamed[0]!.text, `received ${short.length} messages`)
      assert.strictEqual(
        fake.received[0]!.body.messages.length,
        short.length,
        "counted, the session is far under the trigger"
      )
      const { response } = yield* Effect.promise(() =>
        client.messages.create({
          model: "claude-test",
          max_tokens: 64,
          messages: anthropicSession.messages.slice(0, 63) as any
        }, { headers: { [Proxy.sessionHeader]: "s-usage" } }).withResponse()
      )
      assert.match(response.headers.get(Proxy.reportHeader) ?? "", /^compacted; cause=trigger;/)
      assert.isBelow(fake.received[1]!.body.messages.length, 63)
      assert.isUndefined(fake.received[1]!.headers[Proxy.sessionHeader], "the proxy's own headers are not sent on")
    }))
})

describe("Proxy: everything else, and its token", () => {
  it.scopedLive("other requests pass through unchanged, query and headers included; a request it cannot read goes on as it came", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake)
      fake.script.push({ _tag: "json", status: 200, body: { object: "list", data: [{ id: "gpt-test" }] } })
      const models = yield* Effect.promise(() =>
        fetch(`${base}/v1/models?limit=2`, { headers: { authorization: "Bearer k", "x-custom": "kept" } }).then((r) =>
          r.json()
        )
      )
      assert.deepStrictEqual(models, { object: "list", data: [{ id: "gpt-test" }] })
      assert.strictEqual(fake.received[0]!.path, "/v1/models?limit=2")
      assert.strictEqual(fake.received[0]!.headers["x-custom"], "kept")
      assert.strictEqual(fake.received[0]!.headers["authorization"], "Bearer k")
      assert.isUndefined(fake.received[0]!.headers["traceparent"], "the proxy adds no headers of its own")
      const odd = JSON.stringify({ model: "m", messages: [{ role: "wizard", content: "hi" }], n: 12345678901234567890 })
      const answer = yield* Effect.promise(() =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: odd
        })
      )
      assert.strictEqual(fake.received[1]!.text, odd, "sent on byte for byte")
      assert.match(answer.headers.get(Proxy.reportHeader) ?? "", /^passed-through; reason=.*wizard/)
    }))

  it.scopedLive("with a token, a request without it gets 401 and nothing reaches the upstream", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { base } = yield* proxy(fake, { token: Redacted.make("proxy-secret") })
      const refused = yield* Effect.promise(() =>
        fetch(`${base}/v1/models`, { headers: { authorization: "Bearer sk" } })
      )
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(fake.received.length, 0)
      const allowed = yield* Effect.promise(() =>
        fetch(`${base}/v1/models`, { headers: { [Proxy.tokenHeader]: "proxy-secret" } })
      )
      assert.strictEqual(allowed.status, 200)
      assert.isUndefined(fake.received[0]!.headers[Proxy.tokenHeader], "the proxy's token is not sent on")
    }))

  it.scopedLive("with an admin port, serve's event stream over the same engine reports the proxy's compactions", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-proxy-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const context = yield* Layer.build(
        Proxy.layerNode({ upstream: fake.url, port: 0, adminPort: 0, directory, env: () => ({}), window: 32_000 })
      )
      const address = (value: HttpCompat.Address) => {
        const tcp = HttpCompat.tcpAddress(value)
        return tcp === undefined ? "" : `http://127.0.0.1:${tcp.port}`
      }
      const base = address(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
      const admin = address(Option.getOrThrow(Context.getOption(context as Context.Context<never>, Proxy.AdminAddress)))
      assert.notStrictEqual(admin, base)
      const controller = new AbortController()
      yield* Effect.addFinalizer(() => Effect.sync(() => controller.abort()))
      const events = yield* Effect.promise(() => fetch(`${admin}/v1/events`, { signal: controller.signal }))
      const reader = events.body!.pipeThrough(new TextDecoderStream()).getReader()
      yield* Effect.promise(() => reader.read())
      yield* Effect.promise(() =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", [Proxy.sessionHeader]: "watched-proxy" },
          body: JSON.stringify({ model: "m", messages: session })
        })
      )
      const seen = yield* Effect.promise(async () => {
        let text = ""
        while (!text.includes("event: compacted")) text += (await reader.read()).value ?? ""
        return text
      }).pipe(Effect.timeout("10 seconds"))
      assert.include(seen, `"sessionId":"watched-proxy"`)
    }))

  it("upstream URLs: the path follows the prefix, a /v1 not doubled", () => {
    assert.strictEqual(
      Proxy.upstreamUrl("https://api.openai.com", "/v1/chat/completions"),
      "https://api.openai.com/v1/chat/completions"
    )
    assert.strictEqual(
      Proxy.upstreamUrl("https://api.openai.com/v1/", "/v1/chat/completions"),
      "https://api.openai.com/v1/chat/completions"
    )
    assert.strictEqual(
      Proxy.upstreamUrl("http://127.0.0.1:8000/openai", "/v1/models?x=1"),
      "http://127.0.0.1:8000/openai/v1/models?x=1"
    )
  })
})
