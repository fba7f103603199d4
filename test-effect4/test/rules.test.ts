/**
 * The Effect 4 face of the rules (docs/effect4.md): `src/effect4/rules` gives the built-in policies as
 * Effect 4 Schema classes that encode to exactly what the Effect 3 face's encode to; the face's
 * `Reduce` reduces every example envelope and shared fixture over them to the bytes and report of
 * the Effect 3 face; a rule of one's own composes with the built-in policy; and the algebra's laws
 * hold through the face's `Rule.normalize` and `Rule.equivalence`.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Condition, Policy, Reduce, Rule, Selector } from "../../src/effect4/index.js"
import { agenticWorkspaceV1, builtInPolicies, Identity, Truncation } from "../../src/effect4/rules/index.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Reductions {
  readonly policies: ReadonlyArray<unknown>
  readonly cases: ReadonlyArray<{
    readonly file: string
    readonly cap: number
    readonly input: string
    readonly text: string
    readonly report: unknown
  }>
}

// The Effect 3 face's answers, from a process of its own on the package's Effect 3 (through tsx).
const effect3: Effect3Reductions = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Reductions.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024
  })
)

describe("the rules on the Effect 4 face", () => {
  it("the built-in policies are Effect 4 classes that encode to what the Effect 3 face's encode to", () => {
    assert.instanceOf(agenticWorkspaceV1, Policy.Policy)
    assert.instanceOf(agenticWorkspaceV1.rule, Rule.All)
    assert.instanceOf(Identity.keepIds, Rule.Decide)
    const encoded = builtInPolicies.map((policy) => Schema.encodeSync(Policy.Policy)(policy))
    assert.deepStrictEqual(JSON.parse(JSON.stringify(encoded)), effect3.policies)
    const decoded = effect3.policies.map((policy) => Schema.decodeUnknownSync(Policy.Policy)(policy))
    assert.isTrue(Schema.toEquivalence(Policy.Policy)(decoded[0]!, agenticWorkspaceV1))
  })

  it("Reduce over the built-in policies gives every example envelope and shared fixture the bytes and report of the Effect 3 face", () => {
    assert.isAtLeast(effect3.cases.length, 8)
    for (const { cap, file, input, report, text } of effect3.cases) {
      const reduction = Reduce.reduce(input, { policies: builtInPolicies, cap })
      assert.strictEqual(reduction.text, text, `${file} at ${cap}`)
      assert.strictEqual(JSON.stringify(reduction.report), JSON.stringify(report), `${file} at ${cap}`)
    }
  })

  it("a rule of one's own composed with the built-in policy decides beside it, and prints", () => {
    const dropNotes = Rule.omit("data.notes", { name: "dropNotes", reason: "notes are re-read from the ticket" })
    const policy = Policy.make({
      name: "tickets+workspace",
      description: "the built-in policy and a rule of our own",
      accepts: agenticWorkspaceV1.accepts,
      rule: Rule.all(agenticWorkspaceV1.rule, Rule.forTool(dropNotes, "workspace_tasks")),
      carry: agenticWorkspaceV1.carry,
      overflow: agenticWorkspaceV1.overflow
    })
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_tasks",
      action: "show",
      ok: true,
      summary: "Board todo_1 has 2 open items",
      data: { board: "todo_1", notes: "a long note", truncated: true, itemsOmitted: 3 }
    }
    const builtIn = Reduce.reduce(JSON.stringify(envelope), { policies: [agenticWorkspaceV1] })
    const composed = Reduce.reduce(JSON.stringify(envelope), { policies: [policy] })
    assert.strictEqual(composed.report.policy, "tickets+workspace")
    assert.include(builtIn.text, "a long note")
    assert.notInclude(composed.text, "a long note")
    assert.include(composed.text, `"itemsOmitted":3`)
    assert.deepStrictEqual(
      composed.report.rules.find((rule) => rule.rule === "dropNotes")?.entries.map((entry) => entry.path),
      ["data.notes"]
    )
    assert.include(Policy.format(policy), "when tool = \"workspace_tasks\":\n    dropNotes: omit [data.notes]")
  })
})

const paths = Schema.Literals(["tool", "action", "data.n"])
const values = Schema.Literals(["workspace_edit", "stage", "show"])
const Leaf = Schema.Union([
  Schema.Struct({ _tag: Schema.Literal("Always") }),
  Schema.Struct({ _tag: Schema.Literal("Equals"), path: paths, value: values }),
  Schema.Struct({ _tag: Schema.Literal("Exists"), path: paths })
])
const Drawn = Schema.Union([
  Leaf,
  Schema.Struct({ _tag: Schema.Literal("And"), conditions: Schema.Array(Leaf).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Or"), conditions: Schema.Array(Leaf).check(Schema.isMaxLength(3)) }),
  Schema.Struct({ _tag: Schema.Literal("Not"), condition: Leaf })
])
const Envelope = Schema.Struct({
  tool: Schema.optionalKey(values),
  action: Schema.optionalKey(values),
  data: Schema.optionalKey(Schema.Struct({ n: Schema.optionalKey(values) }))
})

// A drawn condition as the face's own value: decoded by the face's Schema into its classes.
const toCondition = (drawn: unknown): Condition.Condition => Schema.decodeUnknownSync(Condition.Condition)(drawn)

describe("the rule algebra's laws through the Effect 4 face", () => {
  it.prop("a rule's normal form takes part with the same primitives, is equivalent, and is its own normal form", [
    Drawn,
    Drawn,
    Envelope
  ], ([outer, inner, envelope]) => {
    const keep = (name: string) => Rule.keep(Selector.path(name), { name, reason: "law" })
    const rule = Rule.first(
      Rule.when(Rule.when(keep("a"), toCondition(inner)), toCondition(outer)),
      Rule.all(Rule.all(), keep("b"), Rule.when(keep("c"), toCondition(inner))),
      keep("d")
    )
    const normal = Rule.normalize(rule)
    assert.deepStrictEqual(
      Rule.activeRules(normal, envelope).map((decide) => decide.name),
      Rule.activeRules(rule, envelope).map((decide) => decide.name)
    )
    assert.isTrue(Rule.equivalence(normal, rule))
    assert.isTrue(Schema.toEquivalence(Rule.Rule)(Rule.normalize(normal), normal))
    assert.strictEqual(
      Condition.holds(Condition.normalize(toCondition(outer)), envelope),
      Condition.holds(toCondition(outer), envelope)
    )
  })

  it("`all` is associative with the empty `all` as identity, nested `when`s are one `when`, and a changed rule is not equivalent", () => {
    const a = Truncation.keepTruncationFlags
    const b = Identity.keepIds
    const c = Identity.keepHeader
    assert.isTrue(Rule.equivalence(Rule.all(Rule.all(a, b), c), Rule.all(a, Rule.all(b, c), Rule.all())))
    const tool = Condition.tool("workspace_edit")
    const action = Condition.equals("action", "stage")
    assert.isTrue(Rule.equivalence(Rule.when(Rule.when(a, action), tool), Rule.when(a, Condition.and(tool, action))))
    assert.isFalse(Rule.equivalence(Rule.all(a, b), Rule.all(a, Rule.named(b, "other"))))
  })
})
