import * as HttpServer from "@effect/platform/HttpServer"
import { assert, describe, it } from "@effect/vitest"
import type { ModelMessage } from "ai"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { answerWithRecall, recallingModel } from "../../examples/recall-middleware.js"
import { askThroughProxy } from "../../examples/recall-proxy.js"
import * as Caller from "../../src/apps/http/Caller.js"
import * as Proxy from "../../src/apps/http/Proxy.js"
import { createCompactor } from "../../src/apps/promise/index.js"
import * as Recall from "../../src/face/engine/Recall.js"
import * as Session from "../../src/face/engine/Session.js"
import * as FakeUpstream from "../support/FakeUpstream.js"

const read = (path: string) => Fs.readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")
const userPart = (source: string) => {
  const from = source.indexOf("// ---- what a user writes")
  return source.slice(source.indexOf("\n", from) + 1, source.indexOf("// ----", from + 10)).trim()
}

const logHistory = (): Array<ModelMessage> => {
  const history: Array<ModelMessage> = []
  for (let i = 0; i < 12; i++) {
    history.push({ role: "user", content: `Read log ${i}.` })
    history.push({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: `c${i}`, toolName: "bash", input: { command: `cat log${i}.txt` } }]
    })
    history.push({
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: `c${i}`,
        toolName: "bash",
        output: { type: "text", value: `log ${i}: ` + "a line of the log\n".repeat(400) }
      }]
    })
  }
  return history
}

describe("docs/recall.md", () => {
  it.scoped("the middleware example: the model recalls a handle of the compacted block and gets the original text back", () =>
    Effect.gen(function*() {
      const compactor = yield* Effect.acquireRelease(
        Effect.promise(() => createCompactor()),
        (c) => Effect.promise(() => c.close())
      )
      const history = logHistory()
      const before = JSON.stringify(history)
      const { recalled, text } = yield* Effect.promise(async () =>
        answerWithRecall(compactor, await recallingModel(), history, 8_000)
      )
      assert.strictEqual(text, "Done.")
      assert.strictEqual(recalled.length, 1)
      const page = recalled[0] as { handle: string; messageId: string; text: string; total: number }
      const original = history.flatMap((message) => message.role === "tool" ? message.content : []).find((part) =>
        part.type === "tool-result" && page.text.length > 0 &&
        (part.output as { value: string }).value.startsWith(page.text)
      )
      assert.isDefined(original, "the page is the head of an original tool result")
      assert.strictEqual(page.total, (original as { output: { value: string } }).output.value.length)
      assert.strictEqual(JSON.stringify(history), before, "recall never changes the history")
      const foreign = yield* Effect.promise(() =>
        compactor.recall({ sessionId: "another-run", handle: page.handle }).catch((error: unknown) => error)
      )
      assert.strictEqual((foreign as { reason: string }).reason, "other-session")
    }))

  it.scoped("the proxy example: an OpenAI client through proxy --recall gets the final answer; the proxy served the recall from its folder's archive", () =>
    Effect.gen(function*() {
      const fake = yield* Effect.acquireRelease(
        Effect.promise(() => FakeUpstream.start()),
        (f) => Effect.promise(() => f.close())
      )
      const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-recall-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
      const context = yield* Layer.build(
        Proxy.layerNode({ upstream: fake.url, port: 0, directory, window: 16_000, recall: true })
      )
      const address = Context.get(context, HttpServer.HttpServer).address
      if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
      const messages: Array<any> = []
      for (let i = 0; i < 12; i++) {
        messages.push({ role: "user", content: `Read log ${i}.` })
        messages.push({
          role: "assistant",
          content: null,
          tool_calls: [{
            id: `c${i}`,
            type: "function",
            function: { name: "bash", arguments: JSON.stringify({ command: `cat log${i}.txt` }) }
          }]
        })
        messages.push({
          role: "tool",
          tool_call_id: `c${i}`,
          content: `log ${i}: ` + "a line of the log\n".repeat(400)
        })
      }
      // The proxy keeps the session named run-42 as this client's own: scoped by its key (docs/proxy.md).
      const caller = Caller.of(
        { authorization: `Bearer ${process.env["OPENAI_API_KEY"] ?? "sk-test"}` },
        Caller.proxyCredentials
      )
      const handle = Recall.handleOf(Session.scoped(caller, "run-42"), messages[2].content)
      fake.script.push({
        _tag: "json",
        status: 200,
        body: {
          id: "r",
          object: "chat.completion",
          created: 1,
          model: "gpt-4.1",
          choices: [{
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{
                id: "recall-1",
                type: "function",
                function: { name: "context_recall", arguments: JSON.stringify({ handle }) }
              }]
            },
            finish_reason: "tool_calls"
          }],
          usage: { prompt_tokens: 900, completion_tokens: 9, total_tokens: 909 }
        }
      })
      const { message, report, usage } = yield* Effect.promise(() =>
        askThroughProxy(`http://127.0.0.1:${address.port}`, messages)
      )
      assert.match(message.content ?? "", /^received \d+ messages$/)
      assert.match(report ?? "", /^compacted; .*; recall=1$/)
      assert.strictEqual(usage?.prompt_tokens, 900 + fake.usageTokens)
      const served = fake.received[1]!.body.messages.at(-1)
      assert.strictEqual(served.tool_call_id, "recall-1")
      // A page of 5 % of the 16,000-token window: 2,400 characters of the 7,208, read from the archive's files.
      assert.isTrue(served.content.startsWith(`[${handle}, message `))
      assert.include(served.content, `characters 0 to 2400 of ${messages[2].content.length}; more from offset 2400]`)
      assert.isTrue(served.content.endsWith(`\n${messages[2].content.slice(0, 2400)}`))
      assert.isTrue(Fs.readdirSync(NodePath.join(directory, "transcripts")).length > 0)
    }))

  it("shows both examples as they are", () => {
    const docs = read("../../docs/recall.md")
    for (const example of ["../../examples/recall-middleware.ts", "../../examples/recall-proxy.ts"]) {
      const code = userPart(read(example))
      assert.isAbove(code.length, 200)
      assert.include(docs, code)
    }
  })
})
