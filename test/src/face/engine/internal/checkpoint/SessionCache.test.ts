import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as SessionCache from "../../../../../../src/face/engine/internal/checkpoint/SessionCache.js"
import * as Transcript from "../../../../../../src/face/models/Transcript.js"

const view = (length: number) =>
  Array.from({ length }, (_, i) => new Transcript.UserMessage({ id: `m${i}`, content: "x".repeat(1_000) }))

describe("SessionCache", () => {
  it("past its bound the least recently used session is forgotten first, never the one just measured", () => {
    const sessions = SessionCache.make(2 * SessionCache.bytesOf({ ...sessionOf(view(10)) }) + 1)
    const settle = (id: string) => {
      const session = sessions.get(id)
      const { settled } = SessionCache.settle(session, {
        checkpoint: { view: view(10), tokens: 10, trigger: 100, compacted: undefined, ladder: [] },
        base: view(10),
        lastView: session.lastView,
        transcriptLength: 10,
        transcriptDigest: "d10",
        renamed: undefined,
        repairs: []
      })
      sessions.commit(id, { settled })
      return sessions.get(id)
    }
    const a = settle("a")
    settle("b")
    sessions.get("a")
    settle("c")
    assert.strictEqual(sessions.get("a"), a, "a was used after b: b is forgotten")
    assert.isUndefined(sessions.get("b").lastView)
  })

  it("a checkpoint's view is stable when it starts with the last view sent, and counts the messages since the last compaction", () => {
    const sessions = SessionCache.make(Infinity)
    const first = view(3)
    const settled = (messages: Transcript.Transcript, length: number) => {
      const session = sessions.get("s")
      const { checkpoint, settled } = SessionCache.settle(session, {
        checkpoint: { view: messages, tokens: 1, trigger: 100, compacted: undefined, ladder: [] },
        base: messages,
        lastView: session.lastView,
        transcriptLength: length,
        transcriptDigest: `d${length}`,
        renamed: undefined,
        repairs: []
      })
      sessions.commit("s", { settled })
      return checkpoint
    }
    assert.isFalse(settled(first, 3).prefixStable)
    const next = settled([...first, ...view(1)], 4)
    assert.isTrue(next.prefixStable)
    assert.strictEqual(next.sinceCompaction, 4)
  })
})

describe("SessionCache: one place where a session's memory changes", () => {
  it("a snapshot a checkpoint read is left as it was; the changes it gave are applied once, at its end", () => {
    const sessions = SessionCache.make(Infinity)
    const before = sessions.get("s")
    const sent = view(2)
    const { settled } = SessionCache.settle(before, {
      checkpoint: { view: sent, tokens: 7, trigger: 100, compacted: {} as never, ladder: [] },
      base: sent,
      lastView: undefined,
      transcriptLength: 2,
      transcriptDigest: "d2",
      renamed: undefined,
      repairs: []
    })
    sessions.commit("s", { hints: { boundaryHint: 3, pinnedHint: [1] }, settled })
    assert.strictEqual(before.boundaryHint, 0)
    assert.isUndefined(before.lastView)
    const after = sessions.get("s")
    assert.strictEqual(after.boundaryHint, 3)
    assert.deepStrictEqual(after.pinnedHint, [1])
    assert.deepStrictEqual(after.lastSent, { tokens: 7, digest: "d2" })
    assert.strictEqual(after.compactedAt, 2)
    assert.strictEqual(after.lastView?.sent, sent)
  })

  it.effect("serialized: the checkpoints of one session run one at a time, in the order they asked; another session's at once", () =>
    Effect.gen(function*() {
      const sessions = SessionCache.make(Infinity)
      const order: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const step = (name: string, wait: boolean) =>
        Effect.gen(function*() {
          order.push(`${name} starts`)
          if (wait) yield* Deferred.await(gate)
          order.push(`${name} ends`)
        })
      const a = yield* TestCompat.forkChild(sessions.serialized("s", step("a", true)))
      yield* Compat.yieldNow
      const b = yield* TestCompat.forkChild(sessions.serialized("s", step("b", false)))
      const c = yield* TestCompat.forkChild(sessions.serialized("t", step("c", false)))
      yield* Fiber.join(c)
      yield* Compat.yieldNow
      assert.deepStrictEqual(order, ["a starts", "c starts", "c ends"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(a)
      yield* Fiber.join(b)
      assert.deepStrictEqual(order, ["a starts", "c starts", "c ends", "a ends", "b starts", "b ends"])
      // A lock no checkpoint holds or waits for is not kept: the session's next checkpoint runs at once.
      yield* sessions.serialized("s", step("d", false))
    }))
})

const sessionOf = (sent: Transcript.Transcript): SessionCache.Session => ({
  ...SessionCache.make(Infinity).get("x"),
  lastView: { base: sent, sent }
})
