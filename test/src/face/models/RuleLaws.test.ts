/**
 * The laws of the rule algebra: `Rule.normalize` and `Rule.equivalence` on
 * normal forms. Structural laws run over any generated rule
 * (`TestCompat.arbitrary(Rule.Rule)`); the meaning laws run over rules drawn from a
 * small vocabulary of paths and conditions that the generated envelopes
 * actually hold, so that interpreting them decides something.
 */
import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import * as Interpreter from "../../../../src/core/reduce/Interpreter.js"
import * as Condition from "../../../../src/face/models/Condition.js"
import * as Decision from "../../../../src/face/models/Decision.js"
import * as Json from "../../../../src/face/models/Json.js"
import * as Rule from "../../../../src/face/models/Rule.js"
import * as Selector from "../../../../src/face/models/Selector.js"
import { agenticWorkspaceV1Rule } from "../../../../src/face/rules/AgenticWorkspaceV1.js"
import * as Arb from "../../../arbitraries.js"
import { prop } from "../../../support/Property.js"

const anyRule = TestCompat.arbitrary(Rule.Rule)
/**
 * Runs of a law over `anyRule`: a rule drawn from the Schema nests conditions and rules up to ~30
 * deep (a few thousand class instances, ~50 ms to draw), so these laws draw fewer; the laws over
 * the vocabulary rules below, cheap to draw, run 100 to 300 times.
 */
const anyRuleRuns = 15
const anyCondition = TestCompat.arbitrary(Condition.Condition)
const structurallyEqual = Compat.toEquivalence(Rule.Rule)

const naming = (name: string) => ({ name, reason: `because ${name}` })

// Paths and conditions the generated envelopes hold, so the rules below decide something.
const patterns = [
  "data.*",
  "data.approval.resume",
  "data.approval",
  "**.id",
  "**.*Truncated",
  "data.items",
  "data.content",
  "**",
  "summary",
  "data.rows.[]"
]

const selector: fc.Arbitrary<Selector.Selector> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...patterns).map((pattern) => Selector.path(pattern)) },
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constantFrom(...patterns),
      fc.constantFrom("string", "array", "object", "number") as fc.Arbitrary<Selector.ValueType>
    ).map(([pattern, type]) => Selector.path(pattern, type))
  },
  { weight: 1, arbitrary: fc.constant(Selector.declared("retention.omit_when_summarizing", ["protocol", "retention"])) }
)

const decision: fc.Arbitrary<Decision.Decision> = fc.oneof(
  fc.constant(new Decision.Omit()),
  fc.constant(new Decision.Keep()),
  fc.constant(new Decision.Prune()),
  fc.constant(new Decision.Verbatim({})),
  fc.constant(
    new Decision.Verbatim({
      limit: new Decision.VerbatimLimit({
        measure: "arguments",
        maxChars: 2_000,
        recovery: "inspect",
        idPath: "data.approval.id",
        idKey: "approvalId"
      })
    })
  ),
  fc.integer({ min: 1, max: 25 }).map((max) => new Decision.Cap({ max })),
  fc.integer({ min: 128, max: 600 }).map((max) => new Decision.Clip({ max })),
  fc.integer({ min: 256, max: 1_500 }).map((maxChars) => new Decision.Bulky({ maxChars, elideBinary: true }))
)

const decide: fc.Arbitrary<Rule.Rule> = fc
  .tuple(selector, decision, fc.constantFrom("r1", "r2", "r3", "r4"))
  .map(([sel, dec, name]) => Rule.decide(sel, dec, naming(name)))

const condition: fc.Arbitrary<Condition.Condition> = fc.letrec<{ condition: Condition.Condition }>((tie) => ({
  condition: fc.oneof(
    { depthSize: "small", maxDepth: 3 },
    fc.constantFrom(
      Condition.tool("workspace_edit"),
      Condition.toolAction("workspace_inspect", "changes"),
      Condition.equals("data.status", "pending_approval"),
      Condition.exists("data.items", "array"),
      Condition.exists("data.approval"),
      Condition.always
    ),
    fc.array(tie("condition"), { maxLength: 3 }).map((cs) => Condition.and(...cs)),
    fc.array(tie("condition"), { maxLength: 3 }).map((cs) => Condition.or(...cs)),
    tie("condition").map(Condition.not)
  )
})).condition

const rule: fc.Arbitrary<Rule.Rule> = fc.letrec<{ rule: Rule.Rule }>((tie) => ({
  rule: fc.oneof(
    { depthSize: "small", maxDepth: 4 },
    decide,
    fc.array(tie("rule"), { maxLength: 4 }).map((rs) => Rule.all(...rs)),
    fc.array(tie("rule"), { maxLength: 4 }).map((rs) => Rule.first(...rs)),
    fc.tuple(tie("rule"), condition).map(([r, c]) => Rule.when(r, c)),
    fc.tuple(tie("rule"), condition, condition).map(([r, c, d]) => Rule.when(Rule.when(r, c), d)),
    fc.tuple(tie("rule"), fc.constantFrom("group", "scope")).map(([r, name]) => Rule.named(r, name))
  )
})).rule

/** What interpreting a rule over an envelope gives: the output text and every decision. */
const meaning = (r: Rule.Rule, envelope: unknown) => {
  const result = Interpreter.interpret(r, envelope)
  return { text: Json.stringify(result.value), rules: result.rules, applies: Rule.applies(r, envelope) }
}

describe("Rule.normalize and Rule.equivalence: the algebra's laws", () => {
  prop(
    "all is associative: all(all(a, b), c) is equivalent to all(a, all(b, c))",
    [anyRule, anyRule, anyRule],
    ([a, b, c]) => {
      assert.isTrue(Rule.equivalence(Rule.all(Rule.all(a, b), c), Rule.all(a, Rule.all(b, c))))
      assert.isTrue(Rule.equivalence(Rule.all(Rule.all(a, b), c), Rule.all(a, b, c)))
    },
    { fastCheck: { numRuns: anyRuleRuns } }
  )

  it("associativity needs the normal form: the two groupings are different values", () => {
    const [a, b, c] = ["data.a", "data.b", "data.c"].map((path) => Rule.keep(path, naming(path))) as [
      Rule.Rule,
      Rule.Rule,
      Rule.Rule
    ]
    const left = Rule.all(Rule.all(a, b), c)
    const right = Rule.all(a, Rule.all(b, c))
    assert.isFalse(structurallyEqual(left, right))
    assert.isTrue(Rule.equivalence(left, right))
    assert.isTrue(structurallyEqual(Rule.normalize(left), Rule.normalize(right)))
  })

  prop("the empty all is the identity of all, on either side", [anyRule, anyRule], ([a, b]) => {
    assert.isTrue(Rule.equivalence(Rule.all(Rule.all(), a), Rule.all(a)))
    assert.isTrue(Rule.equivalence(Rule.all(a, Rule.all()), Rule.all(a)))
    assert.isTrue(Rule.equivalence(Rule.all(a, Rule.all(), b), Rule.all(a, b)))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  prop("first is associative too", [anyRule, anyRule, anyRule], ([a, b, c]) => {
    assert.isTrue(Rule.equivalence(Rule.first(Rule.first(a, b), c), Rule.first(a, Rule.first(b, c))))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  prop("nested whens fuse into one when of both conditions", [anyRule, anyCondition, anyCondition], ([r, c, d]) => {
    assert.isTrue(Rule.equivalence(Rule.when(Rule.when(r, c), d), Rule.when(r, Condition.and(d, c))))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  it("a fused when is one When whose condition is the and of both", () => {
    const inner = Rule.omit("data.x", naming("x"))
    const fused = Rule.normalize(
      Rule.when(Rule.when(inner, Condition.equals("action", "stage")), Condition.tool("workspace_edit"))
    )
    assert.strictEqual(fused._tag, "When")
    const when = fused as Rule.When
    assert.strictEqual(when.rule, inner)
    assert.strictEqual(Condition.format(when.condition), "tool = \"workspace_edit\" and action = \"stage\"")
  })

  prop("normalize is idempotent", [anyRule], ([r]) => {
    const once = Rule.normalize(r)
    assert.isTrue(structurallyEqual(Rule.normalize(once), once))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  prop("normalize is idempotent on the vocabulary rules", [rule], ([r]) => {
    const once = Rule.normalize(r)
    assert.isTrue(structurallyEqual(Rule.normalize(once), once))
  })

  prop(
    "Condition.normalize is idempotent and keeps what a condition holds for",
    [condition, Arb.envelope],
    ([c, generated]) => {
      const once = Condition.normalize(c)
      assert.isTrue(Compat.toEquivalence(Condition.Condition)(Condition.normalize(once), once))
      assert.strictEqual(Condition.holds(once, generated.envelope), Condition.holds(c, generated.envelope))
    }
  )

  prop(
    "normalize keeps the meaning: the same output, the same decisions, and whether it applies",
    [rule, Arb.envelope],
    ([r, generated]) => {
      assert.deepStrictEqual(meaning(Rule.normalize(r), generated.envelope), meaning(r, generated.envelope))
    },
    { fastCheck: { numRuns: 300 } }
  )

  prop("equivalent rules mean the same inside a first too", [rule, rule, Arb.envelope], ([a, b, generated]) => {
    const grouped = Rule.first(Rule.all(Rule.all(a), b), a)
    const flat = Rule.first(Rule.all(a, b), a)
    assert.isTrue(Rule.equivalence(grouped, flat))
    assert.deepStrictEqual(meaning(grouped, generated.envelope), meaning(flat, generated.envelope))
  })

  it("the built-in policy's rule means the same in its normal form", () => {
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_edit",
      action: "stage",
      ok: true,
      summary: "staged",
      data: {
        status: "pending_approval",
        mode: "ask",
        items: Array.from({ length: 30 }, (_, i) => ({ id: `tx_${i}`, body: "b".repeat(2_000) })),
        approval: {
          id: "approval_1",
          kind: "transaction",
          resume: { tool: "workspace_edit", arguments: { stdin: "s", id: "tx_1" } }
        }
      },
      retention: { importance: "high", omit_when_summarizing: ["data.approval.resume.arguments.stdin"] }
    }
    assert.deepStrictEqual(
      meaning(Rule.normalize(agenticWorkspaceV1Rule), envelope),
      meaning(agenticWorkspaceV1Rule, envelope)
    )
  })

  it("all of one when is not the when: a first notices that the all always applies", () => {
    const scoped = Rule.when(Rule.omit("data.a", naming("a")), Condition.tool("nope"))
    const fallback = Rule.omit("data.b", naming("b"))
    const envelope = { tool: "t", data: { a: 1, b: 2 } }
    assert.isFalse(Rule.equivalence(Rule.all(scoped), scoped))
    assert.deepStrictEqual(Interpreter.interpret(Rule.first(scoped, fallback), envelope).value, {
      tool: "t",
      data: { a: 1 }
    })
    assert.deepStrictEqual(Interpreter.interpret(Rule.first(Rule.all(scoped), fallback), envelope).value, envelope)
  })

  it("alternatives after one that always applies are dropped, and so are repeats", () => {
    const a = Rule.forTool(Rule.omit("data.a", naming("a")), "t")
    const b = Rule.omit("data.b", naming("b"))
    const c = Rule.omit("data.c", naming("c"))
    assert.isTrue(structurallyEqual(Rule.normalize(Rule.first(a, a, b, c)), Rule.normalize(Rule.first(a, b))))
    assert.isTrue(structurallyEqual(Rule.normalize(Rule.first(b)), b))
  })
})

describe("Rule.named on a when", () => {
  it("a named when stays a When, labelled when printed, and means what it meant", () => {
    const scoped = Rule.when(Rule.omit("data.a", naming("a")), Condition.tool("t"))
    const named = Rule.named(scoped, "scopedToT")
    assert.strictEqual(named._tag, "When")
    assert.strictEqual(Rule.format(named).split("\n")[0], "when tool = \"t\" (scopedToT):")
    assert.isTrue(Rule.equivalence(named, scoped))
    // Inside a first it still applies only where its condition holds.
    const envelope = { tool: "u", data: { a: 1, b: 2 } }
    const first = Rule.first(named, Rule.omit("data.b", naming("b")))
    assert.deepStrictEqual(Interpreter.interpret(first, envelope).value, { tool: "u", data: { a: 1 } })
  })
})
