import { assert, describe, it } from "@effect/vitest"
import * as fc from "effect/FastCheck"
import * as ViewRepair from "../../../../src/internal/checkpoint/ViewRepair.js"
import * as Transcript from "../../../../src/Transcript.js"

/** A transcript of turns; each tool call answered, lost, answered twice or answered late, as the flags say. */
const transcript = fc
  .array(fc.record({ calls: fc.integer({ min: 0, max: 3 }), fault: fc.constantFrom("none", "none", "none", "lost", "twice", "late") }), { minLength: 1, maxLength: 30 })
  .map((turns) => {
    const messages: Array<Transcript.Message> = [new Transcript.UserMessage({ id: "u0", content: "Fix the importer." })]
    let late: Transcript.ToolResult | undefined
    turns.forEach((turn, t) => {
      const calls = Array.from({ length: turn.calls }, (_, c) => new Transcript.ToolCall({ id: `c${t}_${c}`, name: "bash", arguments: "{}" }))
      messages.push(new Transcript.AssistantMessage({ id: `a${t}`, content: `turn ${t}`, toolCalls: calls }))
      calls.forEach((call, c) => {
        const result = new Transcript.ToolResult({ id: `r${t}_${c}`, toolCallId: call.id, name: "bash", content: `exit code 0 (${t}.${c})` })
        if (c === 0 && turn.fault === "lost") return
        if (c === 0 && turn.fault === "late" && late === undefined) {
          late = result
          return
        }
        messages.push(result)
        if (c === 0 && turn.fault === "twice") messages.push(new Transcript.ToolResult({ ...result, id: `r${t}_${c}_again` }))
      })
      messages.push(new Transcript.UserMessage({ id: `u${t + 1}`, content: `next ${t}` }))
      if (late !== undefined && t % 2 === 1) {
        messages.push(late)
        late = undefined
      }
    })
    return messages
  })

/** The same messages as new objects, as a caller that rebuilds its messages at every checkpoint hands them. */
const rebuilt = (messages: Transcript.Transcript): Transcript.Transcript =>
  messages.map((message) => Object.assign(Object.create(Object.getPrototypeOf(message) as object) as Transcript.Message, message))

describe("ViewRepair.scan", () => {
  it.prop("finds a transcript clean exactly when the repair changes nothing", [transcript], ([messages]) => {
    const repaired = ViewRepair.repair(messages)
    const clean = "malformed" in repaired ? false : repaired.repairs.length === 0
    assert.strictEqual(ViewRepair.scan(messages) !== undefined, clean)
  })

  it.prop("scanning on from a clean prefix, of the same objects or of rebuilt ones, says what a whole scan says", [transcript, fc.nat()], ([messages, at]) => {
    const cut = 1 + (at % messages.length)
    const prefix = ViewRepair.scan(messages.slice(0, cut))
    if (prefix === undefined) return
    const whole = ViewRepair.scan(messages) !== undefined
    assert.strictEqual(ViewRepair.scan(messages, prefix) !== undefined, whole)
    const again = ViewRepair.scan(messages.slice(0, cut))!
    const onRebuilt = ViewRepair.scan(rebuilt(messages), again)
    assert.strictEqual(onRebuilt !== undefined, whole)
    if (onRebuilt !== undefined) assert.strictEqual(onRebuilt.trusted, true)
  })

  it("a prefix whose last message is another one (not the same id, kind and length) is not trusted: the transcript is scanned whole", () => {
    const call = new Transcript.ToolCall({ id: "c1", name: "bash", arguments: "{}" })
    const clean = [
      new Transcript.UserMessage({ id: "m0", content: "go" }),
      new Transcript.AssistantMessage({ id: "m1", content: "", toolCalls: [call] }),
      new Transcript.ToolResult({ id: "m2", toolCallId: "c1", content: "ok" })
    ]
    const prefix = ViewRepair.scan(clean)!
    // Same length, same ids (as an adapter numbering messages gives), but the result is gone.
    const other = [clean[0]!, clean[1]!, new Transcript.UserMessage({ id: "m2", content: "and?" }), new Transcript.UserMessage({ id: "m3", content: "hello" })]
    assert.isUndefined(ViewRepair.scan(other, prefix))
  })
})

describe("ViewRepair.repairView: the repair stage", () => {
  it.prop("a clean transcript is used as it is and its scan kept; one needing repair is repaired whole, its scan started again", [transcript], ([messages]) => {
    const stage = ViewRepair.repairView(messages, ViewRepair.empty)
    const repaired = ViewRepair.repair(messages)
    if ("malformed" in repaired) return assert.strictEqual(stage._tag, "Malformed")
    assert.strictEqual(stage._tag, "Repaired")
    if (stage._tag !== "Repaired") return
    if (repaired.repairs.length === 0 && repaired.transcript === messages) {
      assert.strictEqual(stage.transcript, messages)
      assert.deepStrictEqual(stage.repairs, [])
    } else {
      assert.deepStrictEqual(stage.transcript, repaired.transcript)
      assert.deepStrictEqual(stage.repairs, repaired.repairs)
      assert.strictEqual(stage.clean, ViewRepair.empty)
    }
  })
})
