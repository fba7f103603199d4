/**
 * The rule algebra's laws on Effect 4 (docs/effect4.md): the shared core's normal forms, built
 * with a kit of plain data, keep what a condition and a rule decide, and are idempotent; the
 * conditions and envelopes are drawn from Effect 4 Schemas.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as RuleData from "../../src/core/reduce/RuleData.js"
import * as RuleForms from "../../src/core/reduce/RuleForms.js"

// Plain data: the structural equality of JSON-like values with `_tag`s (what a face's Schema equivalence is).
const same = (self: unknown, that: unknown): boolean => JSON.stringify(self) === JSON.stringify(that)

const kit: RuleForms.Kit = {
  always: { _tag: "Always" },
  and: (conditions) => ({ _tag: "And", conditions }),
  or: (conditions) => ({ _tag: "Or", conditions }),
  not: (condition) => ({ _tag: "Not", condition }),
  sameCondition: same,
  all: (rules) => ({ _tag: "All", rules }),
  first: (rules) => ({ _tag: "First", rules }),
  when: (condition, rule) => ({ _tag: "When", condition, rule }),
  sameRule: same
}

const paths = Schema.Literals(["tool", "action", "data.n"])
const values = Schema.Literals(["workspace_edit", "stage", "show"])

const Leaf = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Always") }),
  Schema.Struct({ _tag: Schema.Literal("Equals"), path: paths, value: values }),
  Schema.Struct({ _tag: Schema.Literal("Exists"), path: paths })
])
const Level1 = Schema.Union([
  Leaf,
  Schema.Struct({ _tag: Schema.Literal("And"), conditions: Schema.Array(Leaf).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Or"), conditions: Schema.Array(Leaf).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Not"), condition: Leaf })
])
const Condition = Schema.Union([
  Level1,
  Schema.Struct({ _tag: Schema.Literal("And"), conditions: Schema.Array(Level1).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Or"), conditions: Schema.Array(Level1).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Not"), condition: Level1 })
])
const Envelope = Schema.Struct({
  tool: Schema.optionalKey(values),
  action: Schema.optionalKey(values),
  data: Schema.optionalKey(Schema.Struct({ n: Schema.optionalKey(values) }))
})

const decide = (name: string): RuleData.Rule => ({
  _tag: "Decide",
  name,
  reason: "law",
  selector: { _tag: "Path", pattern: name },
  decision: { _tag: "Keep" }
})

describe("the rule algebra's laws on Effect 4", () => {
  it.prop(
    "a condition's normal form holds for the same envelopes, and is its own normal form",
    [Condition, Envelope],
    ([
      condition,
      envelope
    ]) => {
      const normal = RuleForms.normalizeCondition(kit, condition)
      assert.strictEqual(RuleData.holds(normal, envelope), RuleData.holds(condition, envelope))
      assert.isTrue(same(RuleForms.normalizeCondition(kit, normal), normal))
    }
  )

  it.prop("a rule's normal form takes part with the same primitives, in order, and is its own normal form", [
    Condition,
    Condition,
    Envelope
  ], ([outer, inner, envelope]) => {
    const rule: RuleData.Rule = {
      _tag: "First",
      rules: [
        { _tag: "When", condition: outer, rule: { _tag: "When", condition: inner, rule: decide("a") } },
        {
          _tag: "All",
          rules: [{ _tag: "All", rules: [] }, decide("b"), { _tag: "When", condition: inner, rule: decide("c") }]
        },
        decide("d")
      ]
    }
    const normal = RuleForms.normalizeRule(kit, rule)
    assert.deepStrictEqual(
      RuleData.activeRules(normal, envelope).map((decide) => decide.name),
      RuleData.activeRules(rule, envelope).map((decide) => decide.name)
    )
    assert.isTrue(same(RuleForms.normalizeRule(kit, normal), normal))
  })

  it("`all` is associative with the empty `all` as identity, and nested `when`s are one `when` of both conditions", () => {
    const tool: RuleData.Condition = { _tag: "Equals", path: "tool", value: "workspace_edit" }
    const action: RuleData.Condition = { _tag: "Equals", path: "action", value: "stage" }
    const a = decide("a")
    const b = decide("b")
    const c = decide("c")
    const normal = (rule: RuleData.Rule) => RuleForms.normalizeRule(kit, rule)
    assert.isTrue(
      same(normal(kit.all([kit.all([a, b]), c])), normal(kit.all([a, kit.all([b, c]), kit.all([])])))
    )
    assert.isTrue(same(normal(kit.when(tool, kit.when(action, a))), normal(kit.when(kit.and([tool, action]), a))))
    assert.strictEqual(
      RuleForms.formatRule(normal(kit.when(tool, kit.when(action, a)))),
      "when tool = \"workspace_edit\" and action = \"stage\":\n  a: keep [a] — law"
    )
  })
})
