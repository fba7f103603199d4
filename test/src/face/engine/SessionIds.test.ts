/**
 * The identity of a session (`Session`): ids derived from a history's opening,
 * scoped to a caller, and the branches of a derived id, on both Effects. How
 * the front ends derive the same id is Session.test.ts.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Session from "../../../../src/face/engine/Session.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"
import * as Transcripts from "../../../transcripts.js"

describe("Session.idOf", () => {
  prop("a history keeps its id as messages are appended to it", [
    Transcripts.transcript(6),
    Transcripts.transcript(3)
  ], ([history, more]) => {
    const grown = [...history, ...more.slice(1)]
    assert.strictEqual(Session.idOf(grown), Session.idOf(history))
  })

  it("two tasks under the same system prompt are two sessions; a history without a user message is named by its first message", () => {
    const system = new Transcript.SystemMessage({ id: "m0", content: "You are a coding agent." })
    const task = (content: string) => [system, new Transcript.UserMessage({ id: "m1", content })]
    assert.notStrictEqual(Session.idOf(task("Fix the parser.")), Session.idOf(task("Write the docs.")))
    assert.strictEqual(
      Session.idOf([system]),
      Session.idOf([system, new Transcript.AssistantMessage({ id: "m1", content: "Ready.", toolCalls: [] })])
    )
    assert.match(Session.idOf([]), /^session-[0-9a-f]{16}$/)
  })

  prop("ids are the prefix and 16 hex digits", [Transcripts.transcript(3)], ([history]) => {
    assert.match(Session.idOf(history), /^session-[0-9a-f]{16}$/)
  }, { fastCheck: { numRuns: 20 } })
})

/** A caller's digest, or none (a request without a credential). */
const caller = fc.option(
  fc.string({ minLength: 1 }).filter((key) => key.trim() !== "").map((key) =>
    Session.callerOf([["authorization", key]])!
  ),
  {
    nil: undefined
  }
)
/** A session id: anything, a derived one, or one that already ends as a scoped one. */
const sessionId = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.hexaString({ minLength: 16, maxLength: 16 }).map((hex) => `${Session.idPrefix}${hex}`),
  fc.tuple(fc.string({ minLength: 1 }), caller.filter((digest) => digest !== undefined)).map(([id, digest]) =>
    Session.scoped(digest, id)
  )
)

describe("Session.scoped", () => {
  prop("scoping is idempotent: an id a report gave the caller names the same session when sent back", [
    caller,
    sessionId
  ], ([caller, id]) => {
    const once = Session.scoped(caller, id)
    assert.strictEqual(Session.scoped(caller, once), once)
    assert.isTrue(Session.belongsTo(caller, once))
  })

  prop("two callers never share a session, whatever ids they send (a caller without a credential included)", [
    caller,
    caller,
    sessionId,
    sessionId
  ], ([a, b, idOfA, idOfB]) => {
    fc.pre(a !== b)
    assert.notStrictEqual(Session.scoped(a, idOfA), Session.scoped(b, idOfB))
    assert.isFalse(Session.belongsTo(b, Session.scoped(a, idOfA)))
  })

  it("without a credential an id stays as it is; a credential's digest is its SHA-256, not the credential", () => {
    assert.strictEqual(Session.scoped(undefined, "my-task"), "my-task")
    assert.strictEqual(Session.scoped(undefined, "session-0123456789abcdef"), "session-0123456789abcdef")
    assert.strictEqual(Session.callerOf([["authorization", undefined], ["x-api-key", "  "]]), undefined)
    const digest = Session.callerOf([["authorization", "Bearer sk-secret-key"]])!
    assert.match(digest, /^[0-9a-f]{32}$/)
    assert.notInclude(Session.scoped(digest, "my-task"), "sk-secret-key")
    assert.strictEqual(Session.scoped(digest, "my-task"), `my-task${Session.callerSuffix}${digest}`)
    assert.notStrictEqual(
      Session.callerOf([["authorization", "k"]]),
      Session.callerOf([["x-api-key", "k"]]),
      "the credential's name is part of it"
    )
  })
})

describe("Session.branchOf", () => {
  const derived = Transcripts.transcript(3).map((history) => Session.idOf(history))
  prop(
    "a branch of a caller's derived id stays the caller's, names its family, and differs from every other branch",
    [
      caller,
      derived,
      fc.integer({ min: 0, max: Session.maxBranches - 1 }),
      fc.integer({ min: 0, max: Session.maxBranches - 1 })
    ],
    ([caller, id, n, m]) => {
      const own = Session.scoped(caller, id)
      const branch = Session.branchOf(own, n)
      assert.isTrue(Session.belongsTo(caller, branch))
      assert.strictEqual(Session.scoped(caller, branch), branch)
      assert.strictEqual(Session.familyOf(branch), own)
      assert.include(Session.branchesOf(own), branch)
      assert.strictEqual(branch === Session.branchOf(own, m), n === m)
    }
  )

  it("branch 0 is the id itself; the others put .branch-N before the caller's suffix", () => {
    const digest = Session.callerOf([["authorization", "Bearer sk-user-a"]])!
    const own = Session.scoped(digest, "session-0123456789abcdef")
    assert.strictEqual(Session.branchOf(own, 0), own)
    assert.strictEqual(Session.branchOf(own, 3), `session-0123456789abcdef.branch-3${Session.callerSuffix}${digest}`)
    assert.strictEqual(Session.branchOf("my-task", 1), "my-task.branch-1")
    assert.strictEqual(Session.familyOf("my-task"), "my-task")
    assert.lengthOf(new Set(Session.branchesOf(own)), Session.maxBranches)
  })
})
