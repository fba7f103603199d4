import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Approvals from "../../../../src/core/working-state/Approvals.js"
import { prop } from "../../../support/Property.js"

const approvalId = fc.stringMatching(/^[a-z0-9]{4,10}$/).map((tail) => `approval_${tail}`)
const command = fc.constantFrom("/accept", "/reject", "/deny", "/ACCEPT", "/Reject")
const words = fc.array(fc.constantFrom("ok", "go", "ahead", "please", "thanks"), { maxLength: 4 }).map((list) =>
  list.join(" ")
)

describe("Approvals", () => {
  prop("a bare /accept, /reject or /deny answers every approval, with an id or without", [
    command,
    words,
    fc.option(approvalId, { nil: undefined })
  ], ([answer, text, id]) => {
    const given = Approvals.answerIn(`${text} ${answer}`.trim())
    assert.isDefined(given)
    assert.deepStrictEqual(given!.named, [])
    assert.isTrue(Approvals.answers(given!, id))
  })

  prop("an answer that names approvals answers those and no other, and never one without an id", [
    command,
    fc.uniqueArray(approvalId, { minLength: 2, maxLength: 4 })
  ], ([answer, ids]) => {
    const [named, ...others] = ids as [string, ...Array<string>]
    const given = Approvals.answerIn(`${answer} ${named}`)!
    assert.deepStrictEqual(given.named, [named])
    assert.isTrue(Approvals.answers(given, named))
    for (const other of others) assert.isFalse(Approvals.answers(given, other))
    assert.isFalse(Approvals.answers(given, undefined))
  })

  it("a command inside a word or a path is no answer, nor is text without one", () => {
    for (
      const text of ["please accept", "see docs/accept.md", "x/accept", "/acceptance test", "accept approval_ab12"]
    ) {
      assert.isUndefined(Approvals.answerIn(text), text)
    }
  })

  it("a result stages an approval only when its envelope's data.status is pending_approval, and the cheap test lets every such text through", () => {
    const staged = {
      protocol: "agentic-workspace/v1",
      data: { status: "pending_approval", approval: { id: "approval_x1" } }
    }
    assert.isTrue(Approvals.stages(staged))
    assert.isTrue(Approvals.mayStage(JSON.stringify(staged)))
    assert.isFalse(Approvals.stages({ data: { status: "applied" } }))
    assert.isFalse(Approvals.stages({ status: "pending_approval" }))
    assert.isFalse(Approvals.stages("pending_approval"))
    assert.isFalse(Approvals.mayStage(JSON.stringify({ data: { status: "applied" } })))
  })
})
