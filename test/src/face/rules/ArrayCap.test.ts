import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Interpreter from "../../../../src/core/reduce/Interpreter.js"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as Rule from "../../../../src/face/models/Rule.js"
import * as Selector from "../../../../src/face/models/Selector.js"
import * as ArrayCap from "../../../../src/face/rules/ArrayCap.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { prop } from "../../../support/Property.js"

const reduce = (input: unknown) => Reduce.reduce(input, { policies: builtInPolicies, cap: 200_000 })

const capAt = (max: number) =>
  Rule.cap(Selector.path("**", "array"), max, { name: "capSmaller", reason: "a smaller cap" })

const envelope = (data: unknown) => ({
  protocol: "agentic-workspace/v1",
  tool: "workspace_inspect",
  action: "overview",
  ok: true,
  data
})

describe("ArrayCap.capArrays (SPEC R1.6)", () => {
  it("an array inside an array keeps 20 entries plus its counter, as one inside an object does", () => {
    const inner = Array.from({ length: 30 }, (_, i) => i)
    const out = reduce(envelope({ rows: [inner, [1, 2]], list: inner })).value as {
      data: { rows: Array<Array<unknown>>; list: Array<number>; listOmitted: number }
    }
    assert.deepStrictEqual(out.data.rows[0], [...inner.slice(0, 20), { arrayEntriesOmitted: 10 }])
    assert.deepStrictEqual(out.data.rows[1], [1, 2])
    assert.deepStrictEqual(out.data.list, inner.slice(0, 20))
    assert.strictEqual(out.data.listOmitted, 10)
  })

  it("the report counts the entries of an array inside an array, not its counter", () => {
    const result = Interpreter.interpret(ArrayCap.capArrays, { rows: [Array.from({ length: 25 }, (_, i) => i)] })
    assert.deepStrictEqual(result.rules[0]?.entries, [{ action: "capped", path: "rows.0", before: 25, after: 20 }])
  })

  it("reducing again leaves a capped array inside an array as it is, and a smaller cap adds to its counter", () => {
    const value = { rows: [Array.from({ length: 33 }, (_, i) => `entry ${i}`)] }
    const once = Interpreter.interpret(ArrayCap.capArrays, value).value
    assert.deepStrictEqual(Interpreter.interpret(ArrayCap.capArrays, once).value, once)
    const smaller = Interpreter.interpret(capAt(5), once).value as { rows: Array<Array<unknown>> }
    assert.deepStrictEqual(smaller.rows[0], [...value.rows[0]!.slice(0, 5), { arrayEntriesOmitted: 28 }])
  })

  prop(
    "an array inside an array of any length keeps min(length, 20) entries, and a counter exactly when it was longer",
    [fc.array(fc.array(fc.integer(), { maxLength: 60 }), { minLength: 1, maxLength: 4 }), fc.boolean()],
    ([rows, share]) => {
      const out = Interpreter.interpret(ArrayCap.capArrays, { rows }, { shareUnchanged: share }).value
      rows.forEach((row, index) => {
        const reduced = (out as { rows: Array<Array<unknown>> }).rows[index]!
        if (row.length <= 20) assert.deepStrictEqual(reduced, row)
        else assert.deepStrictEqual(reduced, [...row.slice(0, 20), { arrayEntriesOmitted: row.length - 20 }])
      })
      assert.deepStrictEqual(Interpreter.interpret(ArrayCap.capArrays, out, { shareUnchanged: share }).value, out)
    }
  )
})
