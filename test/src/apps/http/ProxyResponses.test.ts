import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

/** The example session (371 OpenAI chat messages) as a Responses input: reasoning, messages, calls and outputs. */
const input: ReadonlyArray<any> = Histories.toResponsesInput(
  JSON.parse(Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8"))
)

/** The proxy on a free port of 127.0.0.1 in front of `upstream`, over the test layers; its base URL. */
const proxy = (fake: FakeUpstream.FakeUpstream, options: Partial<Proxy.Options> = {}) =>
  ProxyServer.serve({ upstream: fake.url, window: 32_000, ...options })

const { upstream } = ProxyServer

const tools = [{ type: "function" as const, name: "bash", parameters: { type: "object" }, strict: false }]

/** What makes an input one the Responses API refuses: an output before its call, a reasoning item cut from the item it preceded. */
const violations = (sent: ReadonlyArray<any>): ReadonlyArray<string> => {
  const found: Array<string> = []
  const calls = new Set<string>()
  const byId = new Map(input.filter((item) => item.id !== undefined).map((item) => [item.id, input.indexOf(item)]))
  sent.forEach((item, k) => {
    if (item.type === "function_call") calls.add(item.call_id)
    if (item.type === "function_call_output" && !calls.has(item.call_id)) {
      found.push(`the output of ${item.call_id} (item ${k}) comes before its call`)
    }
    if (item.type === "reasoning") {
      const original = input[byId.get(item.id)!]
      if (JSON.stringify(original) !== JSON.stringify(item)) found.push(`reasoning ${item.id} was changed`)
      const following = input[byId.get(item.id)! + 1]
      if (sent[k + 1]?.id !== following?.id) found.push(`reasoning ${item.id} lost the item it precedes`)
    }
  })
  return found
}

describe("Proxy /v1/responses with the openai client", () => {
  it.scopedLive("a long session's input is compacted: fewer items, every output after its call, reasoning byte for byte, the newest item last, the other fields untouched", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const { data: response, response: raw } = yield* Effect.promise(() =>
        client.responses.create({
          model: "gpt-test",
          input: input as any,
          instructions: "You are a coding agent.",
          tools,
          store: false,
          include: ["reasoning.encrypted_content"]
        }).withResponse()
      )
      assert.strictEqual(fake.received.length, 1)
      const sent = fake.received[0]!
      assert.strictEqual(sent.path, "/v1/responses")
      assert.strictEqual(sent.headers["authorization"], "Bearer sk-test-key")
      assert.strictEqual(sent.body.instructions, "You are a coding agent.")
      assert.deepStrictEqual(sent.body.tools, tools)
      assert.deepStrictEqual(sent.body.include, ["reasoning.encrypted_content"])
      assert.strictEqual(sent.body.store, false)
      assert.isBelow(sent.body.input.length, input.length / 4)
      assert.deepStrictEqual(violations(sent.body.input), [])
      assert.deepStrictEqual(sent.body.input.at(-1), input.at(-1))
      assert.strictEqual(sent.body.input[0].role, "system")
      assert.match(
        raw.headers.get(Proxy.reportHeader) ?? "",
        new RegExp(`^compacted; cause=trigger; messages=${input.length}->${sent.body.input.length}; tokens=\\d+->\\d+$`)
      )
      assert.strictEqual(response.output_text, `received ${sent.body.input.length} items`)
    }))

  it.scopedLive("a streamed answer is relayed event by event, and its response.completed usage is the next request's signal", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const history = input.slice(0, 40)
      // the upstream reports a prompt near the window: the proxy's own count of these items is far below it
      fake.usageTokens = 31_000
      const streamed = (items: ReadonlyArray<any>) =>
        Effect.promise(async () => {
          const { data: stream, response } = await client.responses.create({
            model: "gpt-test",
            input: items as any,
            stream: true
          }, { headers: { "x-session-id": "stream-1" } }).withResponse()
          const deltas: Array<string> = []
          let completed: any
          for await (const event of stream) {
            if (event.type === "response.output_text.delta") deltas.push(event.delta)
            if (event.type === "response.completed") completed = event.response
          }
          return { deltas, completed, header: response.headers.get(Proxy.reportHeader) ?? "" }
        })
      const first = yield* streamed(history)
      assert.deepStrictEqual(first.deltas, ["received", " 40", " items"])
      assert.strictEqual(first.completed.usage.input_tokens, 31_000)
      assert.match(first.header, /^unchanged; messages=40; tokens=\d+$/)
      assert.strictEqual(fake.received[0]!.text.includes("\"stream\":true"), true)
      const second = yield* streamed([...history, ...input.slice(40, 44)])
      assert.match(second.header, /^compacted; cause=trigger; messages=44->\d+;/)
      assert.isBelow(fake.received[1]!.body.input.length, 44)
      assert.deepStrictEqual(violations(fake.received[1]!.body.input), [])
    }))

  it.scopedLive("a request continuing a stored response passes through byte for byte, and the header says why", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, { window: 1_000 })
      const text = `{ "model": "gpt-test",\n  "previous_response_id": "resp_123", "input": ${JSON.stringify(input)} }`
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/responses`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer sk-test-key" },
          body: text
        })
      )
      yield* Effect.promise(() => response.json())
      assert.strictEqual(fake.received[0]!.text, text)
      assert.strictEqual(
        response.headers.get(Proxy.reportHeader),
        "passed-through; reason=previous_response_id: the history is held by the upstream"
      )
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })
      const { response: raw } = yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", previous_response_id: "resp_123", input: "and then?" })
          .withResponse()
      )
      assert.deepStrictEqual(fake.received[1]!.body, {
        model: "gpt-test",
        previous_response_id: "resp_123",
        input: "and then?"
      })
      assert.match(raw.headers.get(Proxy.reportHeader) ?? "", /^passed-through; reason=previous_response_id/)
    }))

  it.scopedLive("with nothing to compact, the input reaches the upstream as the client wrote it", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, { window: 1_000_000 })
      const text = JSON.stringify({ model: "gpt-test", input: input.slice(0, 60), tools, store: false })
      const response = yield* Effect.promise(() =>
        fetch(`${base}/v1/responses`, { method: "POST", headers: { "content-type": "application/json" }, body: text })
      )
      yield* Effect.promise(() => response.json())
      assert.strictEqual(fake.received[0]!.text, text)
      assert.match(response.headers.get(Proxy.reportHeader) ?? "", /^unchanged; messages=60; tokens=\d+$/)
    }))
})
