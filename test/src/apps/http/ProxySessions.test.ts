import { it } from "#test-compat"
import Anthropic from "@anthropic-ai/sdk"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import OpenAI from "openai"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"
import * as ProxyServer from "../../../support/ProxyServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
/** The example session: 371 OpenAI chat messages, compacted on its first request through the proxy. */
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)
/** A 29,934-character tool result early in the session: moved out of the view, listed by handle. */
const original: string = session[4].content

/** The opening two callers shared when one's card number reached the other's upstream request. */
const opening = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Hello" },
  { role: "assistant", content: "Hi! How can I help?" }
] as const
/** Two last messages of the same length (30 characters), as in the finding. */
const cardOfA = "My card is 4111-1111-1111-1111"
const questionOfB = "What is the capital of France?"

const proxy = (fake: FakeUpstream.FakeUpstream, options: Partial<Proxy.Options> = {}) =>
  ProxyServer.serve(
    { upstream: fake.url, window: 32_000, ...options },
    ProxyServer.testEngine(Testing.layer({ archive: TranscriptArchiveMemory.layer() }))
  )

const { upstream } = ProxyServer

/** Each upstream request carries its caller's text and never the other's. */
const assertOwnText = (received: ReadonlyArray<FakeUpstream.Received>, callers: ReadonlyArray<string>) => {
  assert.strictEqual(received.length, callers.length)
  for (const [index, request] of received.entries()) {
    const mine = callers[index] === "a" ? cardOfA : questionOfB
    const theirs = callers[index] === "a" ? questionOfB : cardOfA
    assert.include(request.text, mine, `request ${index} (caller ${callers[index]})`)
    assert.notInclude(request.text, theirs, `request ${index} (caller ${callers[index]})`)
  }
}

const recallCall = (handle: string): FakeUpstream.Reply => ({
  _tag: "json",
  status: 200,
  body: {
    id: "chatcmpl-r",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "recall-1",
          type: "function",
          function: { name: Recall.toolName, arguments: JSON.stringify({ handle }) }
        }]
      },
      finish_reason: "tool_calls"
    }],
    usage: { prompt_tokens: 1000, completion_tokens: 10, total_tokens: 1010 }
  }
})

/** The handles the compacted block of an upstream request lists. */
const handlesIn = (received: FakeUpstream.Received): ReadonlyArray<string> =>
  Array.from(new Set(received.text.match(/ctx_[A-Za-z0-9]{10,}/g) ?? []))

const recallAnswer = (received: FakeUpstream.Received): string =>
  received.body.messages.find((message: any) => message.role === "tool" && message.tool_call_id === "recall-1")
    ?.content ?? ""

describe("Proxy: sessions belong to a caller", () => {
  it.scopedLive("two API keys with the same opening (openai client): each upstream request carries its own caller's text only", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const ask = (apiKey: string, text: string) =>
        Effect.promise(() =>
          new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 }).chat.completions.create({
            model: "gpt-test",
            messages: [...opening, { role: "user", content: text }]
          })
        )
      yield* ask("sk-user-a", cardOfA)
      yield* ask("sk-user-b", questionOfB)
      yield* ask("sk-user-a", cardOfA)
      yield* ask("sk-user-b", questionOfB)
      assertOwnText(fake.received, ["a", "b", "a", "b"])
    }))

  it.scopedLive("two API keys naming the same x-session-id (openai client) are two sessions", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const ask = (apiKey: string, text: string) =>
        Effect.promise(() =>
          new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 }).chat.completions.create(
            { model: "gpt-test", messages: [...opening, { role: "user", content: text }] },
            { headers: { [Proxy.sessionHeader]: "support-chat" } }
          )
        )
      yield* ask("sk-user-a", cardOfA)
      yield* ask("sk-user-b", questionOfB)
      assertOwnText(fake.received, ["a", "b"])
    }))

  it.scopedLive("two keys with the same opening (Anthropic client): each upstream request carries its own caller's text only", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const ask = (apiKey: string, text: string) =>
        Effect.promise(() =>
          new Anthropic({ baseURL: base, apiKey, maxRetries: 0 }).messages.create({
            model: "claude-test",
            max_tokens: 100,
            system: opening[0].content,
            messages: [
              { role: "user", content: opening[1].content },
              { role: "assistant", content: opening[2].content },
              { role: "user", content: text }
            ]
          })
        )
      yield* ask("sk-ant-user-a", cardOfA)
      yield* ask("sk-ant-user-b", questionOfB)
      assertOwnText(fake.received, ["a", "b"])
      const keyOfB = fake.received[1]!.headers["x-api-key"] ?? fake.received[1]!.headers["authorization"]
      assert.include(String(keyOfB), "sk-ant-user-b", "the key reaches the upstream as sent")
    }))

  it.scopedLive("with --recall, a handle issued to one API key is refused to another naming the same session", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, { recall: true })
      const ask = (apiKey: string) =>
        Effect.promise(() =>
          new OpenAI({ baseURL: `${base}/v1`, apiKey, maxRetries: 0 }).chat.completions.create(
            {
              model: "gpt-test",
              messages: session as any,
              tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }]
            },
            { headers: { [Proxy.sessionHeader]: "s-shared" } }
          )
        )
      // Caller A recalls one of its own handles: served.
      yield* ask("sk-user-a")
      const issuedToA = handlesIn(fake.received[0]!)
      assert.isNotEmpty(issuedToA, "the compacted block lists handles")
      fake.script.push(recallCall(issuedToA[0]!))
      yield* ask("sk-user-a")
      assert.notMatch(recallAnswer(fake.received[2]!), /failed/)

      // Caller B, same body and session id, asks for every handle A was given: each refused, nothing read.
      for (const handle of issuedToA.slice(0, 3)) {
        const before = fake.received.length
        fake.script.push(recallCall(handle))
        yield* ask("sk-user-b")
        assert.notInclude(handlesIn(fake.received[before]!), handle, "B's block lists handles of its own")
        const answer = recallAnswer(fake.received[before + 1]!)
        assert.match(answer, /^context_recall failed \((other-session|not-found)\)/)
        assert.notInclude(answer, original.slice(0, 200))
      }
    }))
})

describe("Proxy: histories that open alike are two sessions", () => {
  /** The example session, and a second run of it: the same system prompt and first task, every later message its own. */
  const runs = [
    session,
    session.map((message, index) =>
      index < 2 || typeof message.content !== "string"
        ? message
        : { ...message, content: `${message.content} (second run)` }
    )
  ] as const

  /**
   * The two runs sent through a proxy in `order` by one client (`ask`: the run's history, its next user message
   * added, as the client sends it; the answer's report header): each compacts once, first when first asked, then
   * restores its own, and each upstream request carries its own run's messages, never the other's.
   */
  const alternating = (
    order: ReadonlyArray<0 | 1>,
    ask: (base: string, history: Array<any>) => Promise<string>
  ) =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake)
      const reports: Array<string> = []
      for (const [turn, run] of order.entries()) {
        // Each request of a conversation adds its next user message to the whole recorded run.
        const asked = order.slice(0, turn + 1).filter((r) => r === run).length
        const history = [...runs[run], { role: "user", content: `Run ${run}, request ${asked}: go on.` }]
        reports.push(`${run}: ${yield* Effect.promise(() => ask(base, history))}`)
      }
      const compacted = reports.filter((report) => /^\d: compacted;/.test(report))
      assert.deepStrictEqual(
        compacted.map((report) => report[0]),
        Array.from(new Set(order), String),
        reports.join("\n")
      )
      assert.lengthOf(reports.filter((report) => /^\d: restored/.test(report)), order.length - 2, reports.join("\n"))
      for (const [index, request] of fake.received.entries()) {
        assert.strictEqual(request.text.includes("(second run)"), order[index] === 1, `request ${index}`)
      }
    })

  it.scopedLive("one API key, two such conversations alternating (openai client): each compacts once, then restores its own", () =>
    alternating([0, 1, 0, 1, 0, 1, 1, 0], async (base, messages) => {
      const client = new OpenAI({ baseURL: `${base}/v1`, apiKey: "sk-user-a", maxRetries: 0 })
      const { response } = await client.chat.completions.create({ model: "gpt-test", messages }).withResponse()
      return response.headers.get(Proxy.reportHeader) ?? ""
    }))

  it.scopedLive("one API key, two such conversations alternating (anthropic client): each compacts once, then restores its own", () =>
    alternating([1, 0, 1, 0, 0, 1], async (base, history) => {
      const client = new Anthropic({ baseURL: base, apiKey: "sk-ant-user-a", maxRetries: 0 })
      const { messages, system } = Histories.toAnthropicMessages(history)
      const { response } = await client.messages.create({ model: "claude-test", max_tokens: 100, system, messages })
        .withResponse()
      return response.headers.get(Proxy.reportHeader) ?? ""
    }))
})
