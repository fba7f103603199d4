import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Histories from "../../../support/Histories.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)
/** A 29,934-character tool result early in the session: compacted away on the first request. */
const original: string = session[4].content
const sessionId = "s-recall"
const handle = Recall.handleOf(sessionId, original)

const anthropicMessages = Histories.toAnthropicMessages(session).messages

const proxy = (upstream: FakeUpstream.FakeUpstream, recall: boolean) =>
  Effect.gen(function*() {
    const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
      Layer.provideMerge(Testing.layer({ archive: TranscriptArchiveMemory.layer() }))
    )
    const server = Proxy.layer({ upstream: upstream.url, window: 32_000, recall }).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(engine),
      Layer.provide(Compat.nodeHttpClient)
    )
    const address = HttpCompat.tcpAddress(
      Context.get(yield* Layer.build(server), HttpCompat.HttpServer.HttpServer).address
    )
    if (address === undefined) throw new Error("not a TCP address")
    return `http://127.0.0.1:${address.port}`
  })

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

const post = (url: string, body: unknown) =>
  Effect.promise(async () => {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", [Proxy.sessionHeader]: sessionId },
      body: JSON.stringify(body)
    })
    return {
      status: response.status,
      report: response.headers.get(Proxy.reportHeader) ?? "",
      text: await response.text()
    }
  })

const sse = (data: unknown, event?: string) =>
  `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`

const openAiCall = (
  calls: ReadonlyArray<{ id: string; name: string; arguments: unknown }>,
  promptTokens = 1000
): FakeUpstream.Reply => ({
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
        tool_calls: calls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.arguments) }
        }))
      },
      finish_reason: "tool_calls"
    }],
    usage: { prompt_tokens: promptTokens, completion_tokens: 10, total_tokens: promptTokens + 10 }
  }
})

const recallCall = (id: string, args: unknown = { handle }) => ({ id, name: Recall.toolName, arguments: args })

const openAiBody = (extra: Record<string, unknown> = {}) => ({
  model: "gpt-test",
  messages: session,
  tools: [{ type: "function", function: { name: "bash", parameters: { type: "object" } } }],
  ...extra
})

/** The tool results the proxy answered recall calls with, in the follow-up it sent. */
const toolAnswers = (received: FakeUpstream.Received): ReadonlyArray<string> =>
  received.body.messages.filter((message: any) => message.role === "tool" && message.tool_call_id.startsWith("recall"))
    .map((message: any) => message.content)

describe("Proxy --recall, OpenAI chat completions", () => {
  it.scopedLive("a recall-only answer is served by the proxy: the follow-up carries the original text, the client gets the final answer with usage summed", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      fake.script.push(openAiCall([recallCall("recall-1")]))
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody())
      assert.strictEqual(answer.status, 200)
      assert.strictEqual(fake.received.length, 2)
      const first = fake.received[0]!.body
      assert.deepStrictEqual(first.tools.map((tool: any) => tool.function.name), ["bash", Recall.toolName])
      assert.include(JSON.stringify(first.messages), "ctx_", "the compacted block lists handles")
      const [page] = toolAnswers(fake.received[1]!)
      assert.include(page!, `characters 0 to `)
      assert.include(page!, `of ${original.length}`)
      assert.include(page!, original.slice(0, 2_000))
      const final = JSON.parse(answer.text)
      assert.match(final.choices[0].message.content, /^received \d+ messages$/)
      assert.strictEqual(final.usage.prompt_tokens, 1000 + fake.usageTokens)
      assert.match(answer.report, /^compacted; .*; recall=1$/)
      assert.notInclude(answer.text, Recall.toolName)
    }))

  it.scopedLive("a streamed answer is buffered until it shows a recall, served, and the final stream reaches the client with usage summed", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      const chunk = (delta: unknown, finish: string | null = null, usage?: unknown) =>
        sse({
          id: "c",
          object: "chat.completion.chunk",
          created: 1,
          model: "gpt-test",
          choices: [{ index: 0, delta, finish_reason: finish }],
          ...(usage === undefined ? {} : { usage })
        })
      fake.script.push({
        _tag: "stream",
        chunks: [
          chunk({
            role: "assistant",
            tool_calls: [{
              index: 0,
              id: "recall-s",
              type: "function",
              function: { name: Recall.toolName, arguments: "" }
            }]
          }),
          chunk({
            tool_calls: [{
              index: 0,
              function: { arguments: JSON.stringify({ handle, offset: 100, length: 50 }).slice(0, 10) }
            }]
          }),
          chunk({
            tool_calls: [{
              index: 0,
              function: { arguments: JSON.stringify({ handle, offset: 100, length: 50 }).slice(10) }
            }]
          }),
          chunk({}, "tool_calls"),
          sse({
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "gpt-test",
            choices: [],
            usage: { prompt_tokens: 700, completion_tokens: 5, total_tokens: 705 }
          }),
          "data: [DONE]\n\n"
        ]
      })
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody({ stream: true }))
      assert.strictEqual(fake.received.length, 2)
      assert.isTrue(fake.received[1]!.body.stream)
      const [page] = toolAnswers(fake.received[1]!)
      assert.isTrue(page!.startsWith(`[${handle}, message `))
      assert.isTrue(page!.endsWith(`\n${original.slice(100, 150)}`))
      assert.include(answer.text, "received")
      assert.notInclude(answer.text, Recall.toolName)
      assert.include(answer.text, `"prompt_tokens":${700 + fake.usageTokens}`)
      assert.match(answer.report, /; recall=1$/)
    }))

  it.scopedLive("a mixed answer: the recall call is served and the upstream asked again, so the client sees only its own tool", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      fake.script.push(
        openAiCall([{ id: "bash-1", name: "bash", arguments: { command: "ls" } }, recallCall("recall-m")])
      )
      fake.script.push(openAiCall([{ id: "bash-2", name: "bash", arguments: { command: "ls" } }], 1200))
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody())
      assert.strictEqual(fake.received.length, 2)
      const appended = fake.received[1]!.body.messages.slice(-2)
      assert.deepStrictEqual(
        appended[0].tool_calls.map((call: any) => call.function.name),
        [Recall.toolName],
        "only the recall call is answered"
      )
      assert.strictEqual(appended[1].tool_call_id, "recall-m")
      const final = JSON.parse(answer.text)
      assert.deepStrictEqual(final.choices[0].message.tool_calls.map((call: any) => call.function.name), ["bash"])
      assert.strictEqual(final.usage.prompt_tokens, 2200)
    }))

  it.scopedLive("after 3 rounds the proxy stops: the fourth answer reaches the client without its recall call, and the header says so", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      for (let round = 0; round < 4; round++) fake.script.push(openAiCall([recallCall(`recall-${round}`)], 100))
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody())
      assert.strictEqual(fake.received.length, 4)
      assert.match(answer.report, /; recall=3; recall-limit-reached$/)
      const final = JSON.parse(answer.text)
      assert.isUndefined(final.choices[0].message.tool_calls)
      assert.strictEqual(final.choices[0].finish_reason, "stop")
      assert.strictEqual(final.usage.prompt_tokens, 400)
    }))

  it.scopedLive("after 3 streamed rounds the fourth stream reaches the client without its recall call's events, ending on stop", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      const chunk = (delta: unknown, finish: string | null = null) =>
        sse({
          id: "c",
          object: "chat.completion.chunk",
          created: 1,
          model: "gpt-test",
          choices: [{ index: 0, delta, finish_reason: finish }]
        })
      for (let round = 0; round < 4; round++) {
        fake.script.push({
          _tag: "stream",
          chunks: [
            chunk({ role: "assistant", content: "" }),
            chunk({
              tool_calls: [{
                index: 0,
                id: `recall-${round}`,
                type: "function",
                function: { name: Recall.toolName, arguments: JSON.stringify({ handle }) }
              }]
            }),
            chunk({}, "tool_calls"),
            "data: [DONE]\n\n"
          ]
        })
      }
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody({ stream: true }))
      assert.strictEqual(fake.received.length, 4)
      assert.match(answer.report, /; recall=3; recall-limit-reached$/)
      assert.notInclude(answer.text, Recall.toolName)
      assert.notInclude(answer.text, "recall-3")
      assert.include(answer.text, `"finish_reason":"stop"`)
      assert.include(answer.text, "data: [DONE]")
    }))

  it.scopedLive("a handle of another session and a handle that does not exist are answered with why, never with content", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      fake.script.push(openAiCall([
        recallCall("recall-foreign", { handle: Recall.handleOf("another-session", original) }),
        recallCall("recall-missing", { handle: Recall.handleOf(sessionId, "never archived") })
      ]))
      yield* post(`${base}/v1/chat/completions`, openAiBody())
      const [foreign, missing] = toolAnswers(fake.received[1]!)
      assert.match(foreign!, /^context_recall failed \(other-session\)/)
      assert.match(missing!, /^context_recall failed \(not-found\)/)
      assert.notInclude(foreign! + missing!, original.slice(0, 200))
    }))

  it.scopedLive("with --recall, a streamed answer that opens with text is relayed as the upstream sent it, byte for byte", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      const chunks = FakeUpstream.openAiStream("a plain answer in several words", 321)
      fake.script.push({ _tag: "stream", chunks })
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody({ stream: true }))
      assert.strictEqual(fake.received.length, 1)
      assert.strictEqual(answer.text, chunks.join(""))
      assert.notInclude(answer.report, "recall")
    }))

  it.scopedLive("a client that offers its own context_recall keeps it: the proxy adds none and relays the call", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      const reply = openAiCall([recallCall("client-recall")])
      fake.script.push(reply)
      const own = { type: "function", function: { name: Recall.toolName, parameters: { type: "object" } } }
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody({ tools: [own] }))
      assert.strictEqual(fake.received.length, 1)
      assert.deepStrictEqual(fake.received[0]!.body.tools, [own])
      assert.strictEqual(answer.text, JSON.stringify((reply as any).body))
    }))

  it.scopedLive("without --recall nothing changes: no tool is added and the upstream's answer reaches the client byte for byte", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, false)
      const reply = openAiCall([recallCall("recall-x")])
      fake.script.push(reply)
      const answer = yield* post(`${base}/v1/chat/completions`, openAiBody())
      assert.strictEqual(fake.received.length, 1)
      assert.deepStrictEqual(fake.received[0]!.body.tools.map((tool: any) => tool.function.name), ["bash"])
      assert.strictEqual(answer.text, JSON.stringify((reply as any).body))
      assert.notInclude(answer.report, "recall")
    }))
})

describe("Proxy --recall, Anthropic Messages", () => {
  const toolUse = (id: string, input: unknown, inputTokens = 900): FakeUpstream.Reply => ({
    _tag: "json",
    status: 200,
    body: {
      id: "msg_r",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "Let me look." }, { type: "tool_use", id, name: Recall.toolName, input }],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: 7 }
    }
  })

  it.scopedLive("tool_use of context_recall is answered with a tool_result and the final message has usage summed", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      fake.script.push(toolUse("toolu_1", { handle, length: 300 }))
      const answer = yield* post(`${base}/v1/messages`, {
        model: "claude-test",
        max_tokens: 64,
        messages: anthropicMessages
      })
      assert.strictEqual(fake.received.length, 2)
      assert.deepStrictEqual(fake.received[0]!.body.tools.map((tool: any) => tool.name), [Recall.toolName])
      const [assistant, user] = fake.received[1]!.body.messages.slice(-2)
      assert.deepStrictEqual(assistant.content.map((block: any) => block.type), ["text", "tool_use"])
      assert.strictEqual(user.content[0].tool_use_id, "toolu_1")
      assert.isTrue(user.content[0].content.endsWith(`\n${original.slice(0, 300)}`))
      const final = JSON.parse(answer.text)
      assert.strictEqual(final.content[0].text.startsWith("received"), true)
      assert.strictEqual(final.usage.input_tokens, 900 + fake.usageTokens)
    }))

  it.scopedLive("a streamed tool_use is buffered, served, and the final stream reaches the client", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const base = yield* proxy(fake, true)
      const input = JSON.stringify({ handle })
      fake.script.push({
        _tag: "stream",
        chunks: [
          sse({
            type: "message_start",
            message: {
              id: "msg_s",
              type: "message",
              role: "assistant",
              model: "claude-test",
              content: [],
              stop_reason: null,
              usage: { input_tokens: 500, output_tokens: 1 }
            }
          }, "message_start"),
          sse({
            type: "content_block_start",
            index: 0,
            content_block: { type: "tool_use", id: "toolu_s", name: Recall.toolName, input: {} }
          }, "content_block_start"),
          sse({
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: input.slice(0, 7) }
          }, "content_block_delta"),
          sse({
            type: "content_block_delta",
            index: 0,
            delta: { type: "input_json_delta", partial_json: input.slice(7) }
          }, "content_block_delta"),
          sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
          sse({
            type: "message_delta",
            delta: { stop_reason: "tool_use", stop_sequence: null },
            usage: { output_tokens: 12 }
          }, "message_delta"),
          sse({ type: "message_stop" }, "message_stop")
        ]
      })
      const answer = yield* post(`${base}/v1/messages`, {
        model: "claude-test",
        max_tokens: 64,
        stream: true,
        messages: anthropicMessages
      })
      assert.strictEqual(fake.received.length, 2)
      const user = fake.received[1]!.body.messages.at(-1)
      assert.strictEqual(user.content[0].tool_use_id, "toolu_s")
      assert.include(user.content[0].content, original.slice(0, 1000))
      assert.include(answer.text, "received")
      assert.notInclude(answer.text, Recall.toolName)
      assert.include(answer.text, `"input_tokens":${500 + fake.usageTokens}`)
      assert.match(answer.report, /; recall=1$/)
    }))
})
