import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as ProxyOpenAiCompaction from "../../../../src/apps/http/ProxyOpenAiCompaction.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))

/** The example session as a Responses input. */
const input: ReadonlyArray<any> = Histories.toResponsesInput(
  JSON.parse(Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8"))
).slice(0, 120)

const proxy = (fake: FakeUpstream.FakeUpstream, options: Partial<Proxy.Options> = {}) =>
  ProxyServer.serve({ upstream: fake.url, window: 32_000, ...options })

const { upstream } = ProxyServer

const clientOf = (base: string) => new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-test-key", maxRetries: 0 })

const next = { role: "user", content: "Now run the tests again." }

/** What an input holds that came before a compaction: any item of the original input but its last. */
const fromBefore = (sent: ReadonlyArray<any>): ReadonlyArray<string> =>
  sent.flatMap((item) =>
    input.slice(0, -1).some((original) => JSON.stringify(original) === JSON.stringify(item))
      ? [JSON.stringify(item).slice(0, 80)]
      : []
  )

describe("Proxy: OpenAI's compaction emulated (issue 45)", () => {
  it.scopedLive("a compaction_trigger gets exactly one compaction item, the upstream never called; sending it back continues from the block alone", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake))
      const triggered = yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [...input, { type: "compaction_trigger" }] as any })
      )
      assert.strictEqual(fake.received.length, 0)
      assert.strictEqual(triggered.output.length, 1)
      const item = triggered.output[0] as any
      assert.strictEqual(item.type, "compaction")
      assert.match(item.encrypted_content, /^ccx1\./)
      const answer = yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [...triggered.output, next] as any }).withResponse()
      )
      assert.strictEqual(fake.received.length, 1)
      const sent = fake.received[0]!.body
      assert.strictEqual(sent.input.length, 2)
      assert.strictEqual(sent.input[0].role, "user")
      assert.isAbove(sent.input[0].content[0].text.length, 200)
      assert.deepStrictEqual(sent.input[1], next)
      // Sent with the instructions before it, as Codex sends its developer messages: they stay, the history goes.
      yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [input[0], input[1], ...triggered.output, next] as any })
      )
      const withInstructions = fake.received[1]!.body.input
      assert.strictEqual(withInstructions.length, 3)
      assert.deepStrictEqual(withInstructions[0], input[0])
      assert.strictEqual(input[0].role, "system")
      assert.strictEqual(input[1].role, "user")
      assert.deepStrictEqual(withInstructions[1], sent.input[0])
      assert.deepStrictEqual(fromBefore(sent.input), [])
      assert.notInclude(fake.received[0]!.text, "compaction")
      assert.match(
        answer.response.headers.get(Proxy.reportHeader) ?? "",
        /^emulated; not-compacted; .*expanded-compaction=1/
      )
    }))

  it.scopedLive("streamed, the trigger's answer is one compaction item in the API's events", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake))
      const events = yield* Effect.promise(async () => {
        const stream = await client.responses.create({
          model: "gpt-test",
          input: [...input, { type: "compaction_trigger" }] as any,
          stream: true
        })
        const seen: Array<any> = []
        for await (const event of stream) seen.push(event)
        return seen
      })
      assert.deepStrictEqual(events.map((event) => event.type), [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.output_item.done",
        "response.completed"
      ])
      const completed = events.at(-1).response
      assert.strictEqual(completed.output.length, 1)
      assert.strictEqual(completed.output[0].type, "compaction")
      assert.strictEqual(fake.received.length, 0)
    }))

  it.scopedLive("POST /v1/responses/compact answers in the API's shape with one compaction item and never calls the upstream", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake))
      const compacted = yield* Effect.promise(() =>
        client.responses.compact({ model: "gpt-test", input: input as any })
      )
      assert.strictEqual(compacted.object, "response.compaction")
      assert.strictEqual(compacted.output.filter((item) => item.type === "compaction").length, 1)
      assert.strictEqual(compacted.output.at(-1)!.type, "compaction")
      assert.isTrue(compacted.output.slice(0, -1).every((item: any) => item.role === "user"))
      assert.isAbove(compacted.usage.input_tokens, compacted.usage.output_tokens)
      assert.strictEqual(fake.received.length, 0)
      yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [...compacted.output, next] as any })
      )
      assert.strictEqual(fake.received[0]!.body.input.length, 2)
    }))

  it.scopedLive("context_management compacts past compact_threshold (the item first in the output), not under it; the upstream never sees it", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake))
      const under = yield* Effect.promise(() =>
        client.responses.create({
          model: "gpt-test",
          input: input as any,
          context_management: [{ type: "compaction", compact_threshold: 10_000_000 }]
        } as any)
      )
      assert.strictEqual(fake.received[0]!.body.input.length, input.length)
      assert.notProperty(fake.received[0]!.body, "context_management")
      assert.isFalse(under.output.some((item) => item.type === "compaction"))
      const past = yield* Effect.promise(() =>
        client.responses.create({
          model: "gpt-test",
          input: input as any,
          context_management: [{ type: "compaction", compact_threshold: 2_000 }]
        } as any).withResponse()
      )
      const sent = fake.received[1]!.body
      assert.notProperty(sent, "context_management")
      assert.isBelow(sent.input.length, input.length / 2)
      assert.strictEqual(past.data.output[0]!.type, "compaction")
      assert.strictEqual(past.data.output[1]!.type, "message")
      assert.match(past.response.headers.get(Proxy.reportHeader) ?? "", /^emulated; compacted; items=120->\d+/)
      // The next turn, sent as the API's client would: the answer's output appended, then a new message.
      yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [...input, ...past.data.output, next] as any })
      )
      const continued = fake.received[2]!.body.input
      assert.strictEqual(continued.length, 4)
      assert.deepStrictEqual(continued[0], input[0])
      assert.deepStrictEqual(fromBefore(continued.slice(1)), [])
      assert.strictEqual(continued[2].type, "message")
      assert.deepStrictEqual(continued[3], next)
    }))

  it.scopedLive("a forged or altered compaction item is refused with 400 in the Responses error shape", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake))
      const triggered = yield* Effect.promise(() =>
        client.responses.create({ model: "gpt-test", input: [...input, { type: "compaction_trigger" }] as any })
      )
      const token: string = (triggered.output[0] as any).encrypted_content
      const [head, payload, signature] = token.split(".") as [string, string, string]
      const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
      const altered = `${head}.${
        Buffer.from(JSON.stringify({ ...decoded, n: decoded.n + 1 })).toString("base64url")
      }.${signature}`
      const refusals = yield* Effect.promise(() =>
        Promise.all(
          [altered, `${token.slice(0, -2)}xx`, "gAAAAABopenai-encrypted", ""].map((encrypted) =>
            client.responses.create({
              model: "gpt-test",
              input: [{ type: "compaction", encrypted_content: encrypted }, next] as any
            }).then(() => undefined, (error) => error)
          )
        )
      )
      for (const refusal of refusals) {
        assert.instanceOf(refusal, OpenAI.BadRequestError)
        assert.strictEqual(refusal.status, 400)
        assert.strictEqual(refusal.code, "invalid_encrypted_content")
        assert.match(refusal.message, /context-compressor proxy: /)
      }
      assert.strictEqual(fake.received.length, 0)
    }))

  it.scopedLive("in pass mode a compaction request is forwarded byte for byte and not compacted", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const client = clientOf(yield* proxy(fake, { nativeCompaction: "pass" }))
      const body = { model: "gpt-test", input, context_management: [{ type: "compaction", compact_threshold: 2_000 }] }
      yield* Effect.promise(() => client.responses.create(body as any).withResponse())
      assert.strictEqual(fake.received[0]!.text, JSON.stringify(body))
      yield* Effect.promise(() =>
        client.responses.compact({ model: "gpt-test", input: input as any }).catch(() => undefined)
      )
      assert.strictEqual(fake.received[1]!.path, "/v1/responses/compact")
      assert.strictEqual(fake.received[1]!.body.input.length, input.length)
    }))

  it("auto mode passes to api.openai.com and emulates elsewhere", () => {
    assert.strictEqual(ProxyOpenAiCompaction.resolveMode("auto", "https://api.openai.com"), "pass")
    assert.strictEqual(ProxyOpenAiCompaction.resolveMode("auto", "https://API.openai.com/v1"), "pass")
    assert.strictEqual(ProxyOpenAiCompaction.resolveMode("auto", "http://127.0.0.1:8000/v1"), "emulate")
    assert.strictEqual(ProxyOpenAiCompaction.resolveMode("pass", "http://127.0.0.1:8000"), "pass")
    assert.strictEqual(ProxyOpenAiCompaction.resolveMode("emulate", "https://api.openai.com"), "emulate")
  })
})
