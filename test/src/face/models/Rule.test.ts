import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import * as fc from "fast-check"
import * as Interpreter from "../../../../src/core/reduce/Interpreter.js"
import * as Condition from "../../../../src/face/models/Condition.js"
import * as Json from "../../../../src/face/models/Json.js"
import * as Rule from "../../../../src/face/models/Rule.js"
import * as Selector from "../../../../src/face/models/Selector.js"
import { agenticWorkspaceV1Rule } from "../../../../src/face/rules/AgenticWorkspaceV1.js"
import { prop } from "../../../support/Property.js"

const naming = (name: string) => ({ name, reason: `because ${name}` })

const anyRule = TestCompat.arbitrary(Rule.Rule)
/** A rule drawn from the Schema holds a few thousand class instances (~50 ms to draw): its properties draw 40. */
const anyRuleRuns = 40

describe("Rule: rules are values", () => {
  prop("a rule survives encoding and decoding unchanged", [anyRule], ([rule]) => {
    const encoded = Schema.encodeSync(Rule.Rule)(rule)
    const decoded = Schema.decodeUnknownSync(Rule.Rule)(JSON.parse(JSON.stringify(encoded)))
    assert.isTrue(Compat.toEquivalence(Rule.Rule)(decoded, rule))
    assert.strictEqual(Rule.format(decoded), Rule.format(rule))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  prop("any generated rule interprets any JSON without throwing, and its size bound holds", [
    anyRule,
    fc.jsonValue()
  ], ([rule, value]) => {
    const result = Interpreter.interpret(rule, value)
    assert.isAtMost(result.minimumChars, Json.stringify(result.value).length)
    const shared = Interpreter.interpret(rule, value, { shareUnchanged: true })
    assert.strictEqual(Json.stringify(shared.value), Json.stringify(result.value))
  }, { fastCheck: { numRuns: anyRuleRuns } })

  it("two rules that differ in one decision are not equivalent", () => {
    assert.isFalse(Rule.equivalence(Rule.keep("data.a", naming("a")), Rule.prune("data.a", naming("a"))))
    assert.isTrue(Rule.equivalence(Rule.keep("data.a", naming("a")), Rule.keep("data.a", naming("a"))))
  })

  it("format prints the built-in policy as an outline naming every rule", () => {
    const printed = Rule.format(agenticWorkspaceV1Rule)
    for (
      const name of [
        "omitDeclared",
        "carryResumeVerbatim",
        "keepStagedApproval",
        "keepTruncationFlags",
        "capArrays",
        "pruneBulky"
      ]
    ) {
      assert.include(printed, name)
    }
    assert.include(printed, "when tool = \"workspace_inspect\" and action = \"changes\":")
  })
})

describe("Rule combinators", () => {
  const envelope = { tool: "t", action: "a", data: { secret: "s", keep: "k", other: "o" } }

  it("when applies a rule only where its condition holds", () => {
    const rule = Rule.omit("data.secret", naming("omitSecret"))
    assert.deepStrictEqual(Interpreter.interpret(Rule.when(rule, Condition.tool("t")), envelope).value, {
      tool: "t",
      action: "a",
      data: { keep: "k", other: "o" }
    })
    assert.deepStrictEqual(Interpreter.interpret(Rule.forTool(rule, "other"), envelope).value, envelope)
  })

  it("first applies only the first alternative whose scope accepts the envelope", () => {
    const rule = Rule.first(
      Rule.forTool(Rule.omit("data.keep", naming("wrongTool")), "nope"),
      Rule.forTool(Rule.omit("data.secret", naming("rightTool")), "t", "a"),
      Rule.omit("data.other", naming("fallback"))
    )
    const result = Interpreter.interpret(rule, envelope)
    assert.deepStrictEqual(result.value, { tool: "t", action: "a", data: { keep: "k", other: "o" } })
    assert.deepStrictEqual(result.rules.map((r) => r.rule), ["rightTool"])
  })

  it("an omission wins over a keep and a verbatim on the same path", () => {
    const rule = Rule.all(
      Rule.keep("data.secret", naming("keepIt")),
      Rule.verbatim("data.secret", naming("carryIt")),
      Rule.omit("data.secret", naming("omitIt"))
    )
    const result = Interpreter.interpret(rule, envelope)
    assert.isFalse("secret" in (result.value as { data: object }).data)
    assert.deepStrictEqual(result.rules.map((r) => [r.rule, r.counts]), [["omitIt", { omitted: 1 }]])
  })

  it("a keep protects a subtree from pruning, but arrays inside it are still capped", () => {
    const value = { data: { kept: { list: Array.from({ length: 25 }, (_, i) => i), text: "x ".repeat(1000) } } }
    const rule = Rule.all(
      Rule.keep("data.kept", naming("keepKept")),
      Rule.prune("data.*", naming("pruneAll")),
      Rule.bulky(Selector.path("**", "string"), { ...naming("bulky"), maxChars: 300 }),
      Rule.cap(Selector.path("**", "array"), 20, naming("cap"))
    )
    const out = Interpreter.interpret(rule, value).value as {
      data: { kept: { list: Array<number>; listOmitted: number; text: string } }
    }
    assert.strictEqual(out.data.kept.list.length, 20)
    assert.strictEqual(out.data.kept.listOmitted, 5)
    assert.strictEqual(out.data.kept.text, "x ".repeat(1000))
  })

  it("a pruned subtree keeps its kept descendants", () => {
    const value = { data: { blob: { id: "tx_1", body: "long", nested: { truncated: true, other: 1 } } } }
    const rule = Rule.all(
      Rule.prune("data.blob", naming("pruneBlob")),
      Rule.keep(Selector.path("**.id", "string"), naming("ids")),
      Rule.keep(Selector.path("**.truncated", "boolean"), naming("flags"))
    )
    assert.deepStrictEqual(Interpreter.interpret(rule, value).value, {
      data: { blob: { id: "tx_1", nested: { truncated: true } } }
    })
  })

  it("named renames a primitive rule in the report", () => {
    const rule = Rule.named(Rule.omit("data.secret", naming("x")), "renamed")
    assert.deepStrictEqual(Interpreter.interpret(rule, envelope).rules.map((r) => r.rule), ["renamed"])
  })

  it("the report lists where each rule decided and why", () => {
    const rule = Rule.all(Rule.omit("data.secret", naming("omitSecret")), Rule.keep("data.keep", naming("keepKeep")))
    const rules = Interpreter.interpret(rule, envelope).rules
    assert.deepStrictEqual(rules, [
      {
        rule: "omitSecret",
        reason: "because omitSecret",
        counts: { omitted: 1 },
        entries: [{ action: "omitted", path: "data.secret" }],
        entriesOmitted: 0
      },
      {
        rule: "keepKeep",
        reason: "because keepKeep",
        counts: { kept: 1 },
        entries: [{ action: "kept", path: "data.keep" }],
        entriesOmitted: 0
      }
    ])
  })
})

describe("Selector", () => {
  const select = (pattern: string, value: unknown) =>
    Interpreter.interpret(Rule.keep(pattern, naming("probe")), value).rules.flatMap((r) => r.entries.map((e) => e.path))

  const value = {
    data: {
      sources: [{ url: "a", id: "s1" }, { url: "b", id: "s2" }],
      nested: { deeper: { stdoutTruncated: true, bytesOmitted: 3 } }
    }
  }

  it("key segments pass through arrays; an index selects one entry; [] selects every entry", () => {
    assert.deepStrictEqual(select("data.sources.url", value), ["data.sources.0.url", "data.sources.1.url"])
    assert.deepStrictEqual(select("data.sources.1.url", value), ["data.sources.1.url"])
    assert.deepStrictEqual(select("data.sources.[]", value), ["data.sources.0", "data.sources.1"])
    assert.deepStrictEqual(select("data.sources.[0].id", value), ["data.sources.0.id"])
  })

  it("** matches any number of levels and globs match key suffixes", () => {
    assert.deepStrictEqual(select("**.*Truncated", value), ["data.nested.deeper.stdoutTruncated"])
    assert.deepStrictEqual(select("data.**.*Omitted", value), ["data.nested.deeper.bytesOmitted"])
    assert.deepStrictEqual(select("**.id", value), ["data.sources.0.id", "data.sources.1.id"])
  })

  it("a value type restricts what a pattern selects", () => {
    const typed = Interpreter.interpret(Rule.keep(Selector.path("**.*Omitted", "string"), naming("probe")), value)
    assert.deepStrictEqual(typed.rules, [])
  })

  it("patterns match own keys only, never the prototype chain", () => {
    assert.deepStrictEqual(select("data.constructor", value), [])
    assert.deepStrictEqual(select("data.__proto__", JSON.parse("{\"data\":{\"__proto__\":{\"x\":1}}}")), [
      "data.__proto__"
    ])
  })
})
