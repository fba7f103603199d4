import { assert, describe, it } from "@effect/vitest"
import * as Option from "effect/Option"
import * as SessionCache from "../../../../src/internal/checkpoint/SessionCache.js"
import * as Transcript from "../../../../src/Transcript.js"

const view = (length: number) => Array.from({ length }, (_, i) => new Transcript.UserMessage({ id: `m${i}`, content: "x".repeat(1_000) }))

describe("SessionCache", () => {
  it("past its bound the least recently used session is forgotten first, never the one just measured", () => {
    const sessions = SessionCache.make(2 * SessionCache.bytesOf({ ...sessionOf(view(10)) }) + 1)
    const settle = (id: string) => {
      const session = sessions.get(id)
      sessions.settle(id, session, { checkpoint: { view: view(10), tokens: 10, trigger: 100, compacted: Option.none(), ladder: [] }, base: view(10), transcriptLength: 10, renamed: undefined, repairs: [] })
      return session
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
    const session = sessions.get("s")
    const first = view(3)
    const settled = (messages: Transcript.Transcript, length: number) =>
      sessions.settle("s", session, { checkpoint: { view: messages, tokens: 1, trigger: 100, compacted: Option.none(), ladder: [] }, base: messages, transcriptLength: length, renamed: undefined, repairs: [] })
    assert.isFalse(settled(first, 3).prefixStable)
    const next = settled([...first, ...view(1)], 4)
    assert.isTrue(next.prefixStable)
    assert.strictEqual(next.sinceCompaction, 4)
  })
})

const sessionOf = (sent: Transcript.Transcript): SessionCache.Session => {
  const session = SessionCache.make(Infinity).get("x")
  session.lastView = { base: sent, sent }
  return session
}
