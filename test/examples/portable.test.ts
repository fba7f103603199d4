import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { fileURLToPath } from "node:url"
import { replay } from "../../examples/portable.js"

const read = (path: string) => Fs.readFileSync(fileURLToPath(new URL(path, import.meta.url)), "utf8")

interface ChatMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: ReadonlyArray<{ readonly id: string }>
  readonly tool_call_id?: string
}

describe("examples/portable.ts on Effect 3", () => {
  it.effect("replays the example session, compacting its requests and keeping every tool call with its result", () =>
    Effect.gen(function*() {
      const history: ReadonlyArray<ChatMessage> = JSON.parse(read("../../examples/session/agent-session.json"))
      const requests = (yield* replay("portable-test", history)) as ReadonlyArray<ReadonlyArray<ChatMessage>>
      assert.strictEqual(requests.length, history.filter((message, k) => message.role === "assistant" && k > 0).length)
      // Until the first compaction each request is the history as it was (its tool results reduced
      // by the built-in policy); then fewer messages.
      const first = requests.findIndex((request, k) => request.length < requests[k - 1]?.length!)
      assert.isAbove(first, 0)
      for (const request of requests.slice(0, first)) {
        const prefix = history.slice(0, request.length)
        assert.deepStrictEqual(request.map((message) => message.role), prefix.map((message) => message.role))
        request.forEach((message, k) => {
          if (message.role !== "tool") assert.deepStrictEqual(message, prefix[k])
        })
      }
      for (const request of requests.slice(first)) {
        assert.strictEqual(request[0]!.role, "system")
        assert.match(String(request.find((message) => message.role !== "system")!.content), /compacted/i)
        const calls = request.flatMap((message) => (message.tool_calls ?? []).map((call) => call.id))
        const answered = request.flatMap((
          message
        ) => (message.tool_call_id === undefined ? [] : [message.tool_call_id]))
        assert.deepStrictEqual([...answered].sort(), [...calls].sort())
      }
      // The last request ends with the history's newest message before the last assistant turn.
      const last = requests.at(-1)!.at(-1)!
      const newest = history[history.findLastIndex((message) => message.role === "assistant") - 1]!
      assert.deepStrictEqual([last.role, last.tool_call_id], [newest.role, newest.tool_call_id])
    }))

  it("docs/integration.md shows the program as it is, but for its imports of node:", () => {
    const source = read("../../examples/portable.ts")
    const program = source
      .slice(source.indexOf("import { Compactor }"), source.indexOf("// ---- Run"))
      .split("\n")
      .filter((line) => !line.includes("from \"node:"))
      .join("\n")
      .trimEnd()
    assert.isAbove(program.length, 1000)
    assert.include(read("../../docs/integration.md"), `\`\`\`ts\n${program}\n\`\`\``)
  })
})
