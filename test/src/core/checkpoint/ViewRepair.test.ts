import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as ViewRepair from "../../../../src/core/checkpoint/ViewRepair.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

/** A transcript of turns; each tool call answered, lost, answered twice or answered late, as the flags say. */
const transcript = fc
  .array(
    fc.record({
      calls: fc.integer({ min: 0, max: 3 }),
      fault: fc.constantFrom("none", "none", "none", "lost", "twice", "late")
    }),
    { minLength: 1, maxLength: 30 }
  )
  .map((turns) => {
    const messages: Array<Transcript.Message> = [new Transcript.UserMessage({ id: "u0", content: "Fix the importer." })]
    let late: Transcript.ToolResult | undefined
    turns.forEach((turn, t) => {
      const calls = Array.from(
        { length: turn.calls },
        (_, c) => new Transcript.ToolCall({ id: `c${t}_${c}`, name: "bash", arguments: "{}" })
      )
      messages.push(new Transcript.AssistantMessage({ id: `a${t}`, content: `turn ${t}`, toolCalls: calls }))
      calls.forEach((call, c) => {
        const result = new Transcript.ToolResult({
          id: `r${t}_${c}`,
          toolCallId: call.id,
          name: "bash",
          content: `exit code 0 (${t}.${c})`
        })
        if (c === 0 && turn.fault === "lost") return
        if (c === 0 && turn.fault === "late" && late === undefined) {
          late = result
          return
        }
        messages.push(result)
        if (c === 0 && turn.fault === "twice") {
          messages.push(new Transcript.ToolResult({ ...result, id: `r${t}_${c}_again` }))
        }
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
  messages.map((message) =>
    Object.assign(Object.create(Object.getPrototypeOf(message) as object) as Transcript.Message, message)
  )

describe("ViewRepair.scan", () => {
  prop("finds a transcript clean exactly when the repair changes nothing", [transcript], ([messages]) => {
    const repaired = ViewRepair.repair(messages, Transcript.kit)
    const clean = "malformed" in repaired ? false : repaired.repairs.length === 0
    assert.strictEqual(ViewRepair.scan(messages) !== undefined, clean)
  })

  prop("scanning on from a clean prefix, of the same objects or of rebuilt ones, says what a whole scan says", [
    transcript,
    fc.nat()
  ], ([messages, at]) => {
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
    const other = [
      clean[0]!,
      clean[1]!,
      new Transcript.UserMessage({ id: "m2", content: "and?" }),
      new Transcript.UserMessage({ id: "m3", content: "hello" })
    ]
    assert.isUndefined(ViewRepair.scan(other, prefix))
  })

  prop(
    "a prefix with any message changed in place (the same length, first and last messages) is scanned again: on from it, the scan says what a whole scan says",
    [
      transcript,
      fc.nat(),
      fc.nat()
    ],
    ([messages, at, which]) => {
      const cut = 1 + (at % messages.length)
      const prefix = ViewRepair.scan(messages.slice(0, cut))
      if (prefix === undefined) return
      // A result answering another call than its own, anywhere in the prefix: a repair is needed.
      const results = messages.slice(0, cut).flatMap((message, index) => message._tag === "ToolResult" ? [index] : [])
      if (results.length === 0) return
      const index = results[which % results.length]!
      const edited = messages.map((message, i) =>
        i === index
          ? new Transcript.ToolResult({ ...(message as Transcript.ToolResult), toolCallId: "c-none" })
          : message
      )
      assert.strictEqual(ViewRepair.scan(edited, prefix) !== undefined, ViewRepair.scan(edited) !== undefined)
      assert.isUndefined(ViewRepair.scan(edited))
    }
  )
})

describe("ViewRepair.repairView: the repair stage", () => {
  prop(
    "a clean transcript is used as it is and its scan kept; one needing repair is repaired whole, its scan started again",
    [transcript],
    ([messages]) => {
      const stage = ViewRepair.repairView(messages, ViewRepair.empty, Transcript.kit)
      const repaired = ViewRepair.repair(messages, Transcript.kit)
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
    }
  )
})

/**
 * Turns whose calls draw their ids from a pool of two, inside one message and
 * across messages, each call's results (none, one or two) after its message in
 * the order of its calls, some turns' results shuffled among themselves.
 */
const reusedIds = fc
  .array(
    fc.record({
      ids: fc.array(fc.constantFrom("call_00_a", "call_00_b"), { minLength: 1, maxLength: 4 }),
      answers: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 4, maxLength: 4 }),
      shuffle: fc.boolean()
    }),
    { minLength: 1, maxLength: 12 }
  )
  .map((turns) => {
    const messages: Array<Transcript.Message> = [new Transcript.UserMessage({ id: "u", content: "go" })]
    turns.forEach(({ answers, ids, shuffle }, t) => {
      const calls = ids.map((id, c) =>
        new Transcript.ToolCall({ id, name: "bash", arguments: JSON.stringify({ command: `step ${t}.${c}` }) })
      )
      messages.push(new Transcript.AssistantMessage({ id: `a${t}`, content: "", toolCalls: calls }))
      const results = calls.flatMap((call, c) =>
        Array.from(
          { length: answers[c]! },
          (_, k) =>
            new Transcript.ToolResult({
              id: `r${t}_${c}_${k}`,
              toolCallId: call.id,
              name: "bash",
              content: `out ${t}.${c}.${k}`
            })
        )
      )
      messages.push(...(shuffle ? results.reverse() : results))
      messages.push(new Transcript.UserMessage({ id: `u${t}`, content: `next ${t}` }))
    })
    return messages
  })

/** Where a view's pairing fails: a result no open call of its turn makes (a stray), or a turn left with a call unanswered. */
const pairingProblems = (view: Transcript.Transcript): ReadonlyArray<string> => {
  const problems: Array<string> = []
  let open: Array<string> = []
  for (const message of view) {
    if (message._tag === "ToolResult") {
      const at = open.indexOf(message.toolCallId)
      if (at === -1) problems.push(`stray result ${message.toolCallId} (${message.id})`)
      else open.splice(at, 1)
      continue
    }
    if (open.length > 0) problems.push(`${open.join(", ")} unanswered before ${message.id}`)
    open = message._tag === "Assistant" ? message.toolCalls.map((call) => call.id) : []
  }
  return problems
}

describe("ViewRepair.repair: call ids used again, inside one message and across messages", () => {
  prop(
    "for any sequence of reused ids with results missing, doubled or out of order, the repaired view with the ids as sent has no stray result and no unanswered call, keeps every call, and each result it keeps is one of the transcript's",
    [reusedIds],
    ([messages]) => {
      const repaired = ViewRepair.repair(messages, Transcript.kit)
      assert.isFalse("malformed" in repaired)
      if ("malformed" in repaired) return
      const view = ViewRepair.restoreIds(repaired.transcript, repaired.renamed)
      assert.deepStrictEqual(pairingProblems(view), [])
      const callsOf = (transcript: Transcript.Transcript) =>
        transcript.flatMap((m) => m._tag === "Assistant" ? m.toolCalls.map((call) => call.arguments) : [])
      assert.deepStrictEqual(callsOf(view), callsOf(messages))
      const sent = new Set(messages.map((m) => m.id))
      for (const message of view) {
        if (message._tag === "ToolResult" && !message.id.includes(":lost:")) assert.isTrue(sent.has(message.id))
      }
    }
  )

  it("two calls under one id in one message, each followed by its result: both results kept, in order, each on its own call", () => {
    const messages = [
      new Transcript.UserMessage({ id: "u", content: "compare" }),
      new Transcript.AssistantMessage({
        id: "a",
        content: "",
        toolCalls: [
          new Transcript.ToolCall({ id: "call_00_x", name: "bash", arguments: "{\"command\":\"cat a.py\"}" }),
          new Transcript.ToolCall({ id: "call_00_x", name: "bash", arguments: "{\"command\":\"cat b.py\"}" })
        ]
      }),
      new Transcript.ToolResult({ id: "ra", toolCallId: "call_00_x", name: "bash", content: "a" }),
      new Transcript.ToolResult({ id: "rb", toolCallId: "call_00_x", name: "bash", content: "b" }),
      new Transcript.UserMessage({ id: "u2", content: "thanks" })
    ]
    const unique = ViewRepair.uniqueCallIds(messages)
    const calls = (unique.transcript[1] as Transcript.AssistantMessage).toolCalls.map((call) => call.id)
    assert.deepStrictEqual(calls, ["call_00_x", "call_00_x#2"])
    assert.deepStrictEqual(unique.transcript.slice(2, 4).map((m) => [m.id, (m as Transcript.ToolResult).toolCallId]), [[
      "ra",
      "call_00_x"
    ], ["rb", "call_00_x#2"]])
    const repaired = ViewRepair.repair(messages, Transcript.kit)
    assert.isFalse("malformed" in repaired)
    if (!("malformed" in repaired)) assert.deepStrictEqual(repaired.repairs, [])
  })
})
