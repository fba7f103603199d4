/**
 * The built-in rules and policies are the same values since they are written once in the shared
 * core (docs/effect4.md): every export of `context-compressor/rules` prints the same and encodes
 * to the same Schema value as the record taken before, and decoding that record gives a value the
 * Schema's equivalence holds equal to the export.
 */
import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import * as Policy from "../../../../src/face/models/Policy.js"
import * as Rule from "../../../../src/face/models/Rule.js"
import { exported, write, type Written } from "../../../support/BuiltInValues.js"

const recorded: Record<string, Written> = JSON.parse(
  readFileSync(new URL("./fixtures/built-in-values.json", import.meta.url), "utf8")
)

const sameRule = Compat.toEquivalence(Rule.Rule)
const samePolicy = Compat.toEquivalence(Policy.Policy)

describe("the built-in rules and policies", () => {
  it("exports the names it exported before, no more and no fewer", () => {
    assert.deepStrictEqual(exported().map(([name]) => name), Object.keys(recorded).sort())
  })

  it("every export prints and encodes as recorded, and equals the recorded value by its Schema's equivalence", () => {
    const rules = exported().filter(([, value]) => write(value).kind !== "value")
    assert.isAtLeast(rules.length, 24)
    for (const [name, value] of exported()) {
      const before = recorded[name]!
      assert.deepStrictEqual(write(value), before, name)
      if (before.kind === "rule") {
        assert.isTrue(sameRule(value as Rule.Rule, Schema.decodeUnknownSync(Rule.Rule)(before.encoded)), name)
      }
      if (before.kind === "policy") {
        assert.isTrue(samePolicy(value as Policy.Policy, Schema.decodeUnknownSync(Policy.Policy)(before.encoded)), name)
      }
    }
  })

  it("the comparison sees a changed rule", () => {
    const [name, value] = exported().find(([name]) => name === "Identity.keepIds")!
    assert.notDeepEqual(write(Rule.named(value as Rule.Rule, "other")), recorded[name])
  })
})
