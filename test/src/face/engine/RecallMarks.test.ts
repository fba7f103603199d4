/**
 * No message is cut in a view without a way back to its whole text (issue 43, item 4): every tool result the
 * degradation ladder reduced or clipped names a recall handle, and recalling it gives the result as the caller
 * sent it, byte for byte.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** Every page of a recalled message, joined. */
const recallWhole = async (compactor: CompactorPromise.Compactor, sessionId: string, handle: string) => {
  let text = ""
  let offset: number | undefined = 0
  while (offset !== undefined) {
    const page: CompactorPromise.RecallPage = await compactor.recall({ sessionId, handle, offset })
    text += page.text
    offset = page.nextOffset
  }
  return text
}

describe("the ladder's cuts", () => {
  it.effect(
    "every tool result a view reduced or clipped names a recall handle that gives its whole text back",
    () =>
      Effect.promise(async () => {
        const compactor = await CompactorPromise.createCompactor()
        try {
          let cut = 0
          for (let length = 20; length <= session.length; length += 7) {
            const history = session.slice(0, length)
            const { messages } = await compactor.compact(history, { sessionId: "marks", contextWindow: 16_000 })
            for (const message of messages as ReadonlyArray<any>) {
              if (message.role !== "tool") continue
              const sent = history.find((original) =>
                original.role === "tool" && original.tool_call_id === message.tool_call_id
              )
              if (sent === undefined || sent.content === message.content) continue
              cut++
              // A reduced envelope stays JSON, the note a key of its own.
              if (message.content.startsWith("{") && !message.content.includes("[context-compressor clipped")) {
                assert.include(JSON.parse(message.content).context_compressor, `the whole result`)
              }
              const handle = /recall handle (ctx_[A-Za-z0-9_-]+)/.exec(message.content)?.[1]
              assert.isDefined(
                handle,
                `result ${message.tool_call_id} was cut at ${length} messages without a recall handle`
              )
              assert.strictEqual(await recallWhole(compactor, "marks", handle!), sent.content)
            }
          }
          assert.isAbove(cut, 10, "the ladder cut too few results for the check to mean anything")
        } finally {
          await compactor.close()
        }
      }),
    { timeout: 120_000 }
  )
})
