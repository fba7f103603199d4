import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { program } from "../../examples/agent-loop.js"

describe("examples/agent-loop.ts", () => {
  it.effect("an @effect/ai agent loop keeps its whole history and sends a compacted view once it nears the window", () =>
    Effect.gen(function*() {
      const log = yield* program(12)
      assert.strictEqual(log.length, 12)
      assert.isTrue(log.some((entry) => entry.compacted))
      for (const entry of log) assert.strictEqual(entry.history, 1 + 2 * entry.turn)
      const last = log[log.length - 1]!
      assert.isBelow(last.view, last.history)
      // Until the first compaction, the view is the history without the reply still to come.
      const first = log.findIndex((entry) => entry.compacted)
      for (const entry of log.slice(0, first)) assert.strictEqual(entry.view, entry.history - 1)
    }))
})
