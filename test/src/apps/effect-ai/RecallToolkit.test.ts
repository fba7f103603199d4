import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as RecallToolkit from "../../../../src/apps/effect-ai/RecallToolkit.js"
import * as Handles from "../../../../src/core/block/Handles.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Generated from "../../../transcripts.js"

const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 }, archive: TranscriptArchiveMemory.layer() }))
)

describe("RecallToolkit", () => {
  it.effect("the toolkit's handler gives a listed handle's page back, and returns another session's handle as a RecallError", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "agent-1",
        transcript: Generated.longSession,
        model: "m",
        contextWindow: 8_000
      })
      const block = checkpoint.view.find((message) => message._tag === "Compacted")!
      const handle = Handles.fromBlock(block.content).lines[0]!.handle
      const run = (sessionId: string) =>
        Effect.gen(function*() {
          const toolkit = yield* RecallToolkit.RecallToolkit
          return yield* TestCompat.handleTool(toolkit, Recall.toolName, { handle, length: 100 })
        }).pipe(Effect.provide(RecallToolkit.layer(sessionId)))
      const own = yield* run("agent-1")
      assert.isFalse(own.isFailure)
      const page = own.result as Recall.Page
      assert.strictEqual(page.text.length, 100)
      assert.strictEqual(page.nextOffset, 100)
      const original = Generated.longSession.find((message) => message.id === page.messageId)!
      assert.strictEqual(page.text, Handles.textOf(original)!.slice(0, 100))
      const foreign = yield* run("agent-2")
      assert.isTrue(foreign.isFailure)
      assert.strictEqual((foreign.result as Recall.RecallError).reason, "other-session")
    }).pipe(Effect.provide(engine)))
})
