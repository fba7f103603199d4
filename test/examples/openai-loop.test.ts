import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import OpenAI from "openai"
import { agentLoop } from "../../examples/openai-loop.js"
import * as ChatCompletionsServer from "../support/ChatCompletionsServer.js"

describe("examples/openai-loop.ts", () => {
  it.scoped("an OpenAI SDK loop keeps its whole history and sends the server a compacted view once it nears the window", () =>
    Effect.gen(function*() {
      const turns = 14
      const server = yield* ChatCompletionsServer.start(
        Array.from(
          { length: turns },
          (_, i) => ChatCompletionsServer.completion(`Done with task ${i}. ` + "Details of the change. ".repeat(120))
        )
      )
      const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-openai-loop-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
      const client = new OpenAI({ baseURL: server.baseUrl, apiKey: "test-key", maxRetries: 0 })
      const tasks = Array.from(
        { length: turns },
        (_, i) => `Task ${i}: refactor the next module. ` + "Keep the exports stable. ".repeat(40)
      )
      const history = yield* Effect.promise(() => agentLoop(client, tasks, "test-model", 12_000, directory))
      assert.strictEqual(history.length, 1 + 2 * turns)
      assert.strictEqual(
        history.at(-1)!.content,
        `Done with task ${turns - 1}. ` + "Details of the change. ".repeat(120)
      )
      const sent = (yield* server.received).map((request) =>
        (request.body as { messages: Array<{ role: string; content: string }> }).messages
      )
      assert.strictEqual(sent.length, turns)
      // Until the first compaction the whole history is sent; after it, fewer messages than the history holds.
      sent.forEach((messages, i) => assert.isAtMost(messages.length, 2 + 2 * i))
      const last = sent.at(-1)!
      assert.isBelow(last.length, 2 + 2 * (turns - 1))
      assert.strictEqual(last[0]!.role, "system")
      assert.match(last[1]!.content, /compacted/i)
      assert.strictEqual(last.at(-1)!.content, tasks.at(-1))
    }))

  it("docs/integration.md shows the loop of the example as it is", () => {
    const source = Fs.readFileSync(fileURLToPath(new URL("../../examples/openai-loop.ts", import.meta.url)), "utf8")
    const docs = Fs.readFileSync(fileURLToPath(new URL("../../docs/integration.md", import.meta.url)), "utf8")
    const loop = source.slice(
      source.indexOf("export async function agentLoop"),
      source.indexOf("// ----", source.indexOf("export async function agentLoop"))
    ).trim()
    assert.isAbove(loop.length, 200)
    assert.include(docs, loop)
  })
})
