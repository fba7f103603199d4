/**
 * The rules' interpretation on Effect 4 (docs/effect4.md): the shared core reduces envelopes over
 * policies given as plain data, with effect@4 the only Effect there is; it gives the same bytes as
 * the Effect 3 face over the same policies; and a rule of one's own composes with the built-in
 * policy.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Reduce from "../../src/core/reduce/Reduce.js"
import type * as RuleData from "../../src/core/reduce/RuleData.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Reductions {
  readonly policies: ReadonlyArray<RuleData.Policy>
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

const agenticWorkspaceV1 = effect3.policies.find((policy) => policy.name === "agentic-workspace/v1")!

describe("the rules' interpretation on Effect 4", () => {
  it("reduces every example envelope and shared fixture to the bytes the Effect 3 face gives, report included", () => {
    assert.isAtLeast(effect3.cases.length, 8)
    for (const { cap, file, input, report, text } of effect3.cases) {
      const reduction = Reduce.reduce(input, { policies: effect3.policies, cap })
      assert.strictEqual(reduction.text, text, `${file} at ${cap}`)
      assert.strictEqual(JSON.stringify(reduction.report), JSON.stringify(report), `${file} at ${cap}`)
    }
  })

  it("a rule of one's own composed with the built-in policy decides beside it", () => {
    const dropNotes: RuleData.Rule = {
      _tag: "Decide",
      name: "dropNotes",
      reason: "notes are re-read from the ticket",
      selector: { _tag: "Path", pattern: "data.notes" },
      decision: { _tag: "Omit" }
    }
    const policy: RuleData.Policy = {
      ...agenticWorkspaceV1,
      rule: { _tag: "All", rules: [agenticWorkspaceV1.rule, dropNotes] }
    }
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
    assert.strictEqual(composed.report.route, "envelope")
    assert.include(builtIn.text, "a long note")
    assert.notInclude(composed.text, "a long note")
    assert.include(composed.text, `"itemsOmitted":3`)
    assert.deepStrictEqual(
      composed.report.rules.find((rule) => rule.rule === "dropNotes")?.entries.map((entry) => entry.path),
      ["data.notes"]
    )
  })

  it("a declared omission wins over the rule of one's own that keeps the path", () => {
    const keepNotes: RuleData.Rule = {
      _tag: "Decide",
      name: "keepNotes",
      reason: "notes matter",
      selector: { _tag: "Path", pattern: "data.notes" },
      decision: { _tag: "Keep" }
    }
    const policy: RuleData.Policy = {
      ...agenticWorkspaceV1,
      rule: { _tag: "All", rules: [agenticWorkspaceV1.rule, keepNotes] }
    }
    const envelope = {
      protocol: "agentic-workspace/v1",
      tool: "workspace_tasks",
      action: "show",
      ok: true,
      data: { notes: "secret" },
      retention: { omit_when_summarizing: ["data.notes"] }
    }
    assert.notInclude(Reduce.reduce(JSON.stringify(envelope), { policies: [policy] }).text, "secret")
  })
})
