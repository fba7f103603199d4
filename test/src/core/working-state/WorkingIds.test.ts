import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as WorkingIds from "../../../../src/core/working-state/WorkingIds.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { prop } from "../../../support/Property.js"

const result = (id: string, content: string) => new Transcript.ToolResult({ id, toolCallId: `c-${id}`, content })
const call = (id: string, args: unknown) =>
  new Transcript.AssistantMessage({
    id,
    content: "",
    toolCalls: [new Transcript.ToolCall({ id: `c-${id}`, name: "tool", arguments: JSON.stringify(args) })]
  })

describe("WorkingIds.extract", () => {
  it("an id a tool result gave and a later call used is a working id, whatever its shape; one only shown, or only used, is not", () => {
    const span: Transcript.Transcript = [
      call("a0", { user_id: "mia_li_3668" }),
      result("r0", JSON.stringify({ reservations: ["ZFA04Y", "HXDUBJ7"], payment: "credit_card_4421566" })),
      call("a1", { reservation_id: "ZFA04Y" }),
      result("r1", "flight HAT170 on 2024-05-20 confirmed"),
      call("a2", { flight: "HAT170", date: "2024-05-20", file: "src/app_v2.py" })
    ]
    assert.deepStrictEqual(WorkingIds.extract(span), ["ZFA04Y", "HAT170"])
  })

  it("an id used again moves to the end, and an earlier state's ids and an earlier block's text count", () => {
    const span: Transcript.Transcript = [call("a0", { id: "job_77aa1" }), call("a1", { id: "tx_00ff31" })]
    assert.deepStrictEqual(WorkingIds.extract(span, ["job_77aa1", "run_5521x"], "staged tx_00ff31 earlier"), [
      "run_5521x",
      "job_77aa1",
      "tx_00ff31"
    ])
  })

  prop("keeps at most the limit, the most recently used, and only ids a result showed", [
    fc.array(fc.stringMatching(/^[A-Z]{3}\d{3,5}$/), { maxLength: 80 })
  ], ([ids]) => {
    const span: Transcript.Transcript = [result("r0", ids.join(" ")), ...ids.map((id, i) => call(`a${i}`, { id }))]
    const found = WorkingIds.extract(span)
    assert.isAtMost(found.length, WorkingIds.limit)
    for (const id of found) assert.include(ids, id)
    const distinct = [...new Set([...ids].reverse())].reverse()
    const lastUse = distinct.map((id) => [id, ids.lastIndexOf(id)] as const).sort((a, b) => a[1] - b[1]).map(([id]) =>
      id
    )
    assert.deepStrictEqual(found, lastUse.slice(-WorkingIds.limit))
  })
})

describe("WorkingIds.testCommands", () => {
  const isTest = (command: string) => /pytest|npm test/.test(command)
  it("keeps the latest three test commands, oldest first, a command run again moving to the end, after an earlier state's", () => {
    const span: Transcript.Transcript = [
      call("a0", { command: "python -m pytest tests/a.py" }),
      call("a1", { command: "ls src" }),
      call("a2", { command: "npm test -- b" }),
      call("a3", { command: "python -m pytest tests/c.py" }),
      call("a4", { command: "npm test -- b" })
    ]
    assert.deepStrictEqual(WorkingIds.testCommands(span, isTest, ["pytest tests/old.py"]), [
      "python -m pytest tests/a.py",
      "python -m pytest tests/c.py",
      "npm test -- b"
    ])
    assert.deepStrictEqual(WorkingIds.testCommands([], isTest, ["pytest tests/old.py"]), ["pytest tests/old.py"])
  })
})

describe("WorkingIds.numbers", () => {
  const say = (id: string, content: string) => new Transcript.AssistantMessage({ id, content, toolCalls: [] })
  it("a number a tool result gave that a later assistant message used is a working number; one the assistant wrote first is not", () => {
    const span: Transcript.Transcript = [
      call("a0", { command: "grep -n get_order_by compiler.py" }),
      result("r0", "265:    def get_order_by(self):\n1886: x = 3.0.4 took 0.45s, port 8080"),
      call("a1", { command: "sed -n '265,400p' compiler.py" }),
      say("a2", "Version 3.0.4 and 400 lines; job 1234567 is an id"),
      result("r2", "400 lines")
    ]
    assert.deepStrictEqual(WorkingIds.numbers(span), ["265", "3.0.4"])
    assert.isTrue(WorkingIds.isWorkingNumber("3.0.4"))
    assert.isFalse(WorkingIds.isWorkingNumber("1234567"))
    assert.isFalse(WorkingIds.isWorkingNumber("ZFA04Y"))
  })

  it("the messages before the span say where a number came from; an earlier state's numbers come first", () => {
    const before: Transcript.Transcript = [result("r0", "line 1886 and 2256")]
    const span: Transcript.Transcript = [call("a1", { command: "sed -n '1886,1900p' f.py" })]
    assert.deepStrictEqual(WorkingIds.numbers(span), [])
    assert.deepStrictEqual(WorkingIds.numbers(span, ["777"], "", before), ["777", "1886"])
    assert.deepStrictEqual(WorkingIds.numbers(span, [], "block said 1886"), ["1886"])
  })
})

describe("WorkingIds.numbersIn", () => {
  // The reading of the rule in its doc comment, number by number: what the one pattern must give.
  const byRule = (text: string): ReadonlyArray<string> => {
    const found: Array<string> = []
    for (const match of text.matchAll(/\d+(?:\.\d+)*/g)) {
      const number = match[0]
      if (number.length < 3 || number.length > 64 || /[A-Za-z0-9_.-]/.test(text[match.index - 1] ?? "")) continue
      const end = match.index + number.length
      if (!/^[A-Za-z]{0,3}(?![A-Za-z0-9_])/.test(text.slice(end, end + 4))) continue
      if (!WorkingIds.isIdLike(number)) found.push(number)
    }
    return found
  }

  prop("gives the numbers the rule gives, in order, for any text of digits, dots, letters and separators", [
    fc.array(fc.constantFrom("1", "2", "9", "0", ".", "-", "_", "a", "ms", "s", "x", "Z", " ", "/", "\n", ":", "v"), {
      maxLength: 60
    }).map((parts) => parts.join(""))
  ], ([text]) => {
    assert.deepStrictEqual(WorkingIds.numbersIn(text), byRule(text))
  })

  it("takes a number whole or not at all: a decimal followed by a word is no number, nor its integer part", () => {
    assert.deepStrictEqual(WorkingIds.numbersIn("12.34abcd 0.45s took 812ms, v1.2.3 and 4096 bytes"), [
      "0.45",
      "812",
      "4096"
    ])
  })
})

describe("WorkingIds.idsIn", () => {
  // The rule as its doc comment states it, token by token: what the reading by character codes must give.
  const byRule = (text: string): ReadonlyArray<string> => {
    const found: Array<string> = []
    for (const match of text.matchAll(/[A-Za-z0-9][A-Za-z0-9_-]{4,63}/g)) {
      const token = match[0]
      const before = text[match.index - 1]
      const after = text[match.index + token.length]
      if (before === "/" || before === "." || after === "/" || after === ".") continue
      if (WorkingIds.isIdLike(token)) found.push(token)
    }
    return found
  }

  prop("gives the ids the rule gives, in order, for any text of word characters, joiners and separators", [
    fc.array(
      fc.constantFrom(
        "a",
        "Z",
        "7",
        "0",
        "_",
        "-",
        ".",
        "/",
        " ",
        "\n",
        "tx",
        "2024-05-20",
        "v1.2",
        "abcdefghij",
        "12345"
      ),
      { maxLength: 80 }
    ).map((parts) => parts.join(""))
  ], ([text]) => {
    assert.deepStrictEqual(WorkingIds.idsIn(text), byRule(text))
  })

  it("cuts a run longer than 64 into tokens as the pattern does", () => {
    const text = `${"a1".repeat(40)}_b2c3d4e5 x`
    assert.deepStrictEqual(WorkingIds.idsIn(text), byRule(text))
    assert.strictEqual(WorkingIds.idsIn(text)[0]!.length, 64)
  })
})
