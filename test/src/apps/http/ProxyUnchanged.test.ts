/**
 * The proxy's fast path: a view the engine left as the request's own
 * messages goes upstream as the caller's exact bytes; any view that differs
 * is written anew.
 */
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as ProxyCompaction from "../../../../src/apps/http/ProxyCompaction.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const proxy = (fake: FakeUpstream.FakeUpstream) => ProxyServer.serve({ upstream: fake.url, window: 32_000 })

const { upstream } = ProxyServer

const post = (base: string, path: string, body: string | Uint8Array) =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-test", [Proxy.sessionHeader]: "s-1" },
      body
    })
    await response.text()
    return response.headers.get(Proxy.reportHeader) ?? ""
  })

const call = (id: string) => ({ id, type: "function", function: { name: "bash", arguments: "{\"cmd\":\"ls\"}" } })

describe("Proxy: a view left as it came goes on as the caller's bytes", () => {
  it.scopedLive("an unchanged chat request reaches the upstream byte for byte, formatting and escapes included", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const messages = [
        { role: "system", content: "You are terse." },
        { role: "user", content: "list the files" },
        { role: "assistant", content: null, tool_calls: [call("call_1")] },
        { role: "tool", tool_call_id: "call_1", content: "a.ts\nb.ts" },
        { role: "user", content: "caf\u00e9 \u2603" }
      ]
      // Indented, keys in an odd order, a non-ASCII character escaped: a new text would say it otherwise.
      const first = JSON.stringify({ temperature: 0.5, messages: messages.slice(0, 4), model: "gpt-test" }, null, 2)
        .replace("a.ts", "\\u0061.ts")
      const second = JSON.stringify({ temperature: 0.5, messages, model: "gpt-test" }, null, 1)
      assert.match(yield* post(base, "/v1/chat/completions", first), /^unchanged/)
      assert.match(yield* post(base, "/v1/chat/completions", second), /^unchanged/)
      assert.strictEqual(fake.received[0]!.text, first)
      assert.strictEqual(fake.received[1]!.text, second)
    }))

  it.scopedLive("an unchanged body goes upstream as its very bytes; one not valid UTF-8 as its text, as before", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const valid = new TextEncoder().encode(
        JSON.stringify({ model: "gpt-test", messages: [{ role: "user", content: "caf\u00e9 \u2603 \ud83d\ude00" }] })
      )
      assert.match(yield* post(base, "/v1/chat/completions", valid), /^unchanged/)
      assert.deepStrictEqual(new Uint8Array(fake.received[0]!.bytes), valid)
      // A lone continuation byte and a truncated sequence inside a string: each read as U+FFFD, and sent as its UTF-8.
      const prefix = new TextEncoder().encode(`{"model":"gpt-test","messages":[{"role":"user","content":"a`)
      const suffix = new TextEncoder().encode(`b"}]}`)
      const invalid = new Uint8Array([...prefix, 0x80, 0xe2, 0x98, ...suffix])
      assert.match(yield* post(base, "/v1/chat/completions", invalid), /^unchanged/)
      const decoded = new TextDecoder().decode(invalid)
      assert.include(decoded, "\ufffd")
      assert.deepStrictEqual(new Uint8Array(fake.received[1]!.bytes), new TextEncoder().encode(decoded))
    }))

  it.scopedLive("a request the engine repaired is written anew, not sent as it came", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      // A tool call with no result before the next user turn: the view answers it, so it differs from the request.
      const body = JSON.stringify(
        {
          model: "gpt-test",
          messages: [
            { role: "user", content: "list the files" },
            { role: "assistant", content: null, tool_calls: [call("call_1")] },
            { role: "user", content: "never mind" }
          ]
        },
        null,
        2
      )
      const report = yield* post(base, "/v1/chat/completions", body)
      assert.notStrictEqual(fake.received[0]!.text, body, report)
    }))
})

describe("ProxyCompaction.sameDocument", () => {
  const read = [{ role: "user", content: "hi" }, { role: "assistant", content: "hello" }]
  const body = { model: "m", messages: read, tools: [{ type: "function" }] }

  it("holds for the body's own fields and message values", () => {
    assert.isTrue(ProxyCompaction.sameDocument(body, { ...body, messages: [...read] }, "messages"))
  })

  it("fails for a message that is equal but not the value read, a field changed, added or missing, a length", () => {
    const copy = { ...read[1]! }
    assert.isFalse(ProxyCompaction.sameDocument(body, { ...body, messages: [read[0], copy] }, "messages"))
    assert.isFalse(ProxyCompaction.sameDocument(body, { ...body, tools: [...body.tools] }, "messages"))
    assert.isFalse(ProxyCompaction.sameDocument(body, { ...body, extra: 1 }, "messages"))
    const { tools: _, ...withoutTools } = body
    assert.isFalse(ProxyCompaction.sameDocument(body, { ...withoutTools, other: body.tools }, "messages"))
    assert.isFalse(ProxyCompaction.sameDocument(body, { ...body, messages: read.slice(0, 1) }, "messages"))
    assert.isFalse(ProxyCompaction.sameDocument(body, read, "messages"))
  })
})
