/**
 * Example-based tests of the built-in policies over the protocol's example
 * envelopes in ../shared/fixtures (one file per tool shape).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import * as Envelope from "../../../../src/face/models/Envelope.js"
import * as Json from "../../../../src/face/models/Json.js"
import { resumeLimitChars, resumeRecovery } from "../../../../src/face/rules/Approvals.js"
import { arrayCap } from "../../../../src/face/rules/ArrayCap.js"
import { bulkyChars } from "../../../../src/face/rules/Bulky.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import { indexEntryFields, jobFields } from "../../../../src/face/rules/Records.js"
import { snippetChars } from "../../../../src/face/rules/Sources.js"
import { sharedFixturesDirectory } from "../../../openai.js"

const fixturesDir = sharedFixturesDirectory
const available = fs.existsSync(fixturesDir)
const fixtureFiles = available ? fs.readdirSync(fixturesDir).filter((file) => file.endsWith(".json")).sort() : []

const smallCap = 2_000

type Loose = Record<string, any>

const readText = (file: string): string => fs.readFileSync(path.join(fixturesDir, file), "utf8")
const readJson = (file: string): Loose => JSON.parse(readText(file))
const reduce = (input: unknown, cap?: number): Reduce.Reduction =>
  Reduce.reduce(input, cap === undefined ? { policies: builtInPolicies } : { policies: builtInPolicies, cap })
/** Reduces a fixture's text and parses the output (which must be JSON). */
const reduced = (file: string, cap?: number): { readonly out: Loose; readonly reduction: Reduce.Reduction } => {
  const reduction = reduce(readText(file), cap)
  return { out: JSON.parse(reduction.text), reduction }
}
const entriesOf = (reduction: Reduce.Reduction, rule: string) =>
  reduction.report.rules.filter((r) => r.rule === rule).flatMap((r) => r.entries)
const clipMarker = /\n…\[clipped: (\d+) of (\d+) characters omitted\]…\n/

/** The argument names of R1.8's recovery calls, by the id prefix they take. */
const idArguments: Record<string, string> = {
  plan_id: "plan_",
  transaction_id: "tx_",
  job_id: "job_",
  board_id: "todo_",
  research_id: "research_",
  run_id: "run_"
}

const suite = available ? describe : describe.skip
const suiteName = available
  ? `built-in policies over the example envelopes in ${fixturesDir}`
  : `built-in policies over the example envelopes (skipped: no fixtures directory at ${fixturesDir}; these tests need ../shared beside the repository)`

suite(suiteName, () => {
  describe("every fixture", () => {
    it("the fixture directory holds example envelopes", () => {
      assert.isAbove(fixtureFiles.length, 0)
    })

    for (const file of fixtureFiles) {
      describe(file, () => {
        const text = readText(file)
        const input: unknown = JSON.parse(text)
        const expectedRoute = Envelope.isEnvelope(input) ? "envelope" : "generic"

        it(`takes the ${expectedRoute} route with the default cap, and its output is valid JSON matching the reported value`, () => {
          const reduction = reduce(text)
          assert.strictEqual(reduction.report.route, expectedRoute)
          assert.strictEqual(reduction.report.cap, Reduce.defaultCap)
          assert.strictEqual(reduction.report.inputChars, text.length)
          assert.strictEqual(reduction.report.outputChars, reduction.text.length)
          assert.isAtMost(reduction.text.length, Reduce.defaultCap + reduction.report.carriedChars)
          const parsed: unknown = JSON.parse(reduction.text)
          assert.deepStrictEqual(parsed, reduction.value)
        })

        it("reducing the output again yields the identical text (default cap)", () => {
          const once = reduce(text)
          const twice = reduce(once.text)
          assert.strictEqual(twice.text, once.text)
        })

        it(`with a cap of ${smallCap} the output fits the cap plus exactly the carried approval, and reduces to itself`, () => {
          const once = reduce(text, smallCap)
          assert.strictEqual(once.report.cap, smallCap)
          // Envelope route: reducedChars - carried <= cap; overflow route: the list
          // minus the carried approval <= cap; generic route: carried is 0. The text
          // is never longer than the measured size, so no overhead is needed.
          assert.isAtMost(once.text.length, smallCap + once.report.carriedChars)
          if (once.report.carriedChars > 0) {
            const carried = Json.getPath(once.value, "data.approval")
            assert.strictEqual(once.report.carriedChars, JSON.stringify(carried).length)
          }
          if (once.report.route !== "generic") assert.deepStrictEqual(JSON.parse(once.text), once.value)
          const twice = reduce(once.text, smallCap)
          assert.strictEqual(twice.text, once.text)
        })
      })
    }
  })

  describe("edit-stage-pending.json", () => {
    const file = "edit-stage-pending.json"

    it("keeps data.approval.resume byte for byte, the approval record, data.status and data.mode", () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file)
      assert.strictEqual(reduction.report.route, "envelope")
      assert.strictEqual(JSON.stringify(out.data.approval.resume), JSON.stringify(input.data.approval.resume))
      assert.strictEqual(JSON.stringify(out.data.approval), JSON.stringify(input.data.approval))
      assert.strictEqual(out.data.status, "pending_approval")
      assert.strictEqual(out.data.mode, input.data.mode)
      assert.strictEqual(reduction.report.carriedChars, JSON.stringify(input.data.approval).length)
    })

    it("keeps the transaction id and files while the diff is clipped, with its counters", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      assert.strictEqual(out.data.transaction.id, input.data.transaction.id)
      assert.deepStrictEqual(out.data.transaction.files, input.data.transaction.files)
      assert.isAtMost(out.data.transaction.diff.length, bulkyChars)
      assert.match(out.data.transaction.diff, clipMarker)
      assert.strictEqual(out.data.diffBytes, input.data.diffBytes)
      assert.strictEqual(out.data.diffTruncated, input.data.diffTruncated)
    })

    it("with a cap of 1000 takes the overflow route and still carries data.approval verbatim ahead of the recovery list", () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file, 1_000)
      assert.strictEqual(reduction.report.route, "overflow")
      assert.strictEqual(JSON.stringify(out.data.approval), JSON.stringify(input.data.approval))
      assert.strictEqual(out.data.status, "pending_approval")
      assert.strictEqual(out.data.mode, input.data.mode)
      const keys = Object.keys(out.data)
      assert.isBelow(keys.indexOf("approval"), keys.indexOf("recovery"))
      assert.deepStrictEqual(out.data.recovery, [
        { tool: "workspace_inspect", arguments: { action: "changes" } },
        { tool: "workspace_edit", arguments: { action: "show", transaction_id: "tx_948fa8de" } }
      ])
      assert.isAtMost(reduction.text.length, 1_000 + reduction.report.carriedChars)
    })
  })

  describe("approval-huge-resume.json", () => {
    const file = "approval-huge-resume.json"

    it(`replaces a resume whose arguments pass ${resumeLimitChars} characters by a marker naming the recovery call and the approval id`, () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file)
      assert.isAbove(JSON.stringify(input.data.approval.resume.arguments).length, resumeLimitChars)
      const marker = out.data.approval.resume
      assert.strictEqual(marker.verbatimOmitted, true)
      assert.strictEqual(marker.recovery, resumeRecovery)
      assert.strictEqual(marker.recovery, "workspace_inspect { action: \"changes\" }")
      assert.strictEqual(marker.approvalId, input.data.approval.id)
      assert.strictEqual(marker.measuredChars, JSON.stringify(input.data.approval.resume.arguments).length)
      assert.strictEqual(marker.limitChars, resumeLimitChars)
      // A truncated call is not a call: nothing of the resume survives.
      assert.notInclude(reduction.text, "CREATE TABLE")
      assert.notProperty(marker, "tool")
      assert.notProperty(marker, "arguments")
      const replaced = entriesOf(reduction, "carryResumeVerbatim")
      assert.deepStrictEqual(replaced.map((e) => [e.action, e.path]), [["replaced", "data.approval.resume"]])
    })

    it("keeps the rest of the approval record and the pending status", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      for (const field of ["id", "kind", "title", "destructive"]) {
        assert.strictEqual(out.data.approval[field], input.data.approval[field], field)
      }
      assert.strictEqual(out.data.status, "pending_approval")
      assert.strictEqual(out.data.mode, input.data.mode)
    })
  })

  describe("browser-batch-pending.json", () => {
    const file = "browser-batch-pending.json"

    it("keeps all 30 actions of the verbatim resume (no array cap inside it) while the screenshot is elided", () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file)
      assert.strictEqual(input.data.approval.resume.arguments.actions.length, 30)
      assert.isAbove(30, arrayCap)
      assert.strictEqual(out.data.approval.resume.arguments.actions.length, 30)
      assert.notProperty(out.data.approval.resume.arguments, "actionsOmitted")
      assert.strictEqual(JSON.stringify(out.data.approval.resume), JSON.stringify(input.data.approval.resume))
      assert.strictEqual(
        out.data.screenshotBase64,
        `[elided: ${input.data.screenshotBase64.length} characters of binary-looking data]`
      )
      assert.notInclude(reduction.text, input.data.screenshotBase64.slice(0, 64))
    })

    it(`with a cap of ${smallCap} the 30-action resume is still carried whole, outside the cap`, () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file, smallCap)
      assert.strictEqual(JSON.stringify(out.data.approval.resume), JSON.stringify(input.data.approval.resume))
      assert.isAbove(reduction.text.length, smallCap)
      assert.isAtMost(reduction.text.length - reduction.report.carriedChars, smallCap)
    })
  })

  describe("command-pending-stdin.json", () => {
    it("keeps the 2 KB stdin of the resume verbatim", () => {
      const input = readJson("command-pending-stdin.json")
      const { out } = reduced("command-pending-stdin.json")
      assert.isAbove(input.data.approval.resume.arguments.stdin.length, bulkyChars)
      assert.strictEqual(out.data.approval.resume.arguments.stdin, input.data.approval.resume.arguments.stdin)
      assert.strictEqual(JSON.stringify(out.data.approval.resume), JSON.stringify(input.data.approval.resume))
      assert.strictEqual(out.data.status, "pending_approval")
      assert.strictEqual(out.data.mode, input.data.mode)
    })
  })

  describe("command-output-truncated.json", () => {
    const file = "command-output-truncated.json"

    it("keeps the truncation flags and counters, the job id and exit code, and clips stdout saying how much was cut", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      for (const key of ["stdoutTruncated", "stdoutBytes", "stdoutLinesOmitted", "stderrTruncated", "stderrChars"]) {
        assert.strictEqual(out.data[key], input.data[key], key)
      }
      for (const field of jobFields) assert.strictEqual(out.data.job[field], input.data.job[field], field)
      const stdout: string = out.data.stdout
      const original: string = input.data.stdout
      assert.isAtMost(stdout.length, bulkyChars)
      const match = clipMarker.exec(stdout)
      assert.isNotNull(match)
      const omitted = Number(match![1])
      assert.strictEqual(Number(match![2]), original.length)
      const head = stdout.slice(0, match!.index)
      const tail = stdout.slice(match!.index + match![0].length)
      assert.strictEqual(head.length + omitted + tail.length, original.length)
      assert.isTrue(original.startsWith(head))
      assert.isTrue(original.endsWith(tail))
    })

    it(`with a cap of ${smallCap} the recovery list names the job and lists every truncation flag and counter`, () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file, smallCap)
      assert.strictEqual(reduction.report.route, "overflow")
      assert.deepStrictEqual(out.data.recovery, [
        { tool: "workspace_inspect", arguments: { action: "changes" } },
        { tool: "workspace_command", arguments: { action: "status", job_id: input.data.job.id } }
      ])
      assert.deepStrictEqual(out.data.truncation, {
        "data.stdoutTruncated": input.data.stdoutTruncated,
        "data.stdoutBytes": input.data.stdoutBytes,
        "data.stdoutLinesOmitted": input.data.stdoutLinesOmitted,
        "data.stderrTruncated": input.data.stderrTruncated,
        "data.stderrChars": input.data.stderrChars
      })
      assert.deepStrictEqual(out.retention.facts, input.retention.facts)
    })
  })

  describe("plan-propose.json", () => {
    const file = "plan-propose.json"

    it("drops the declared omissions data.markdown and data.plan.steps and reports them", () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file)
      assert.deepStrictEqual(input.retention.omit_when_summarizing, ["data.markdown", "data.plan.steps"])
      assert.notProperty(out.data, "markdown")
      assert.notProperty(out.data.plan, "steps")
      assert.notProperty(out.data.plan, "stepsOmitted")
      assert.notInclude(reduction.text, input.data.plan.steps[0].text)
      assert.notInclude(reduction.text, input.data.markdown.slice(0, 40))
      const omitted = entriesOf(reduction, "omitDeclared").filter((e) => e.action === "omitted").map((e) => e.path)
      assert.sameMembers(omitted, ["data.markdown", "data.plan.steps"])
    })

    it("keeps the plan id, status, revision, supersedes, planPath, the propose call and the omit list", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      for (const field of ["id", "status", "revision", "supersedes", "planPath"]) {
        assert.strictEqual(out.data.plan[field], input.data.plan[field], field)
      }
      assert.strictEqual(out.data.propose, input.data.propose)
      assert.deepStrictEqual(out.retention, input.retention)
    })
  })

  describe("inspect-changes.json", () => {
    const file = "inspect-changes.json"

    it("keeps every entry (20 approvals, 3 plans, 20 jobs) with its identifying fields and prunes the rest", () => {
      const input = readJson(file)
      const { out, reduction } = reduced(file)
      assert.strictEqual(reduction.report.route, "envelope")
      assert.strictEqual(out.data.limit, input.data.limit)
      const expected: Record<string, { count: number; fields: ReadonlyArray<string>; pruned: string }> = {
        approvals: { count: 20, fields: indexEntryFields, pruned: "payloadPreview" },
        plans: { count: 3, fields: indexEntryFields, pruned: "body" },
        jobs: { count: 20, fields: [...new Set([...indexEntryFields, ...jobFields])], pruned: "stdout" }
      }
      for (const [list, { count, fields, pruned }] of Object.entries(expected)) {
        assert.strictEqual(out.data[list].length, count, list)
        assert.notProperty(out.data, `${list}Omitted`)
        out.data[list].forEach((entry: Loose, index: number) => {
          const original = input.data[list][index]
          const picked: Loose = {}
          for (const field of fields) if (field in original) picked[field] = original[field]
          assert.deepStrictEqual(entry, picked, `${list}.${index}`)
          assert.notProperty(entry, pruned)
        })
      }
      assert.deepStrictEqual(
        out.data.jobs.map((job: Loose) => Object.keys(job).sort()),
        input.data.jobs.map(() => ["executable", "exitCode", "id", "kind", "path", "startedAt", "status", "title"])
      )
    })
  })

  describe("inspect-overview.json", () => {
    const file = "inspect-overview.json"

    it("caps recentTransactions at 20 with recentTransactionsOmitted = 7 and keeps the permission fields and other collections", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      assert.strictEqual(input.data.recentTransactions.length, 27)
      assert.deepStrictEqual(out.data.recentTransactions, input.data.recentTransactions.slice(0, arrayCap))
      assert.strictEqual(out.data.recentTransactionsOmitted, 7)
      for (const field of ["permissionMode", "activePlan", "pendingPlan", "pendingApprovals"]) {
        assert.deepStrictEqual(out.data[field], input.data[field], field)
      }
      for (const collection of ["recentRuns", "recentTaskBoards", "recentResearchProjects"]) {
        assert.deepStrictEqual(out.data[collection], input.data[collection], collection)
      }
      assert.strictEqual(out.data.fileTreeEntries, input.data.fileTreeEntries)
      assert.strictEqual(out.data.fileTreeTruncated, input.data.fileTreeTruncated)
      assert.isAtMost(out.data.fileTree.length, bulkyChars)
      assert.deepStrictEqual(out.retention, input.retention)
    })
  })

  describe("inspect-capabilities.json", () => {
    it("keeps commitEdits, allowCommands, allowWeb, role, the budget and the permission fields", () => {
      const input = readJson("inspect-capabilities.json")
      const { out } = reduced("inspect-capabilities.json")
      for (const field of ["commitEdits", "allowCommands", "allowWeb", "role", "budget"]) {
        assert.deepStrictEqual(out.data.capabilities[field], input.data.capabilities[field], field)
      }
      for (const field of ["permissionMode", "activePlan", "pendingPlan", "pendingApprovals"]) {
        assert.deepStrictEqual(out.data[field], input.data[field], field)
      }
      assert.deepStrictEqual(out.retention.facts, input.retention.facts)
    })
  })

  describe("research-deep.json", () => {
    const file = "research-deep.json"

    it("keeps the project and agentRun wrappers and each source's url, title, fetchedAt, sha256 and contentPath", () => {
      const input = readJson(file)
      const { out } = reduced(file)
      assert.deepStrictEqual(out.data.project, input.data.project)
      assert.deepStrictEqual(out.data.agentRun, input.data.agentRun)
      assert.strictEqual(out.data.sources.length, input.data.sources.length)
      out.data.sources.forEach((source: Loose, index: number) => {
        const original = input.data.sources[index]
        for (const field of ["id", "url", "title", "fetchedAt", "sha256", "contentPath", "fetched"]) {
          assert.strictEqual(source[field], original[field], `sources.${index}.${field}`)
        }
        // The fetched content itself is bulky text, clipped like any other.
        assert.isAtMost(source.content.length, bulkyChars)
      })
      assert.strictEqual(out.data.reportChars, input.data.reportChars)
      assert.strictEqual(out.data.reportTruncated, input.data.reportTruncated)
    })

    it(`keeps snippets as discovery output: url, title and fetched flag, snippet text at most ${snippetChars} characters`, () => {
      const input = readJson(file)
      const { out } = reduced(file)
      assert.strictEqual(out.data.snippets.length, input.data.snippets.length)
      out.data.snippets.forEach((snippet: Loose, index: number) => {
        const original = input.data.snippets[index]
        assert.strictEqual(snippet.url, original.url)
        assert.strictEqual(snippet.title, original.title)
        assert.strictEqual(snippet.fetched, original.fetched)
        assert.isAtMost(snippet.snippet.length, snippetChars)
      })
    })

    it(`clips a snippet lengthened to 2,000 characters to at most ${snippetChars}, saying how much was cut`, () => {
      const input = readJson(file)
      const long = Array.from({ length: 100 }, (_, i) => `snippet line ${i} text`).join("\n").slice(0, 2_000)
      input.data.snippets[0].snippet = long
      const reduction = reduce(JSON.stringify(input))
      const out = JSON.parse(reduction.text)
      const clipped: string = out.data.snippets[0].snippet
      assert.isAtMost(clipped.length, snippetChars)
      const match = clipMarker.exec(clipped)
      assert.isNotNull(match)
      assert.strictEqual(Number(match![2]), long.length)
      const clips = entriesOf(reduction, "keepSnippetsAsDiscovery").filter((e) => e.action === "clipped")
      assert.deepStrictEqual(clips.map((e) => e.path), ["data.snippets.0.snippet"])
    })
  })

  describe("tasks-show.json", () => {
    it("caps the board's items at 20 with itemsOmitted", () => {
      const input = readJson("tasks-show.json")
      const { out } = reduced("tasks-show.json")
      assert.isAbove(input.data.board.items.length, arrayCap)
      assert.deepStrictEqual(out.data.board.items, input.data.board.items.slice(0, arrayCap))
      assert.strictEqual(out.data.board.itemsOmitted, input.data.board.items.length - arrayCap)
      assert.strictEqual(out.data.board.id, input.data.board.id)
      assert.deepStrictEqual(out.retention.facts, input.retention.facts)
    })
  })

  describe("not-an-envelope.json", () => {
    it("takes the generic route: unchanged within the default cap; under a small cap still JSON, its array capped with a counter", () => {
      const text = readText("not-an-envelope.json")
      const input = readJson("not-an-envelope.json")
      const whole = reduce(text)
      assert.strictEqual(whole.report.route, "generic")
      assert.isNull(whole.report.policy)
      assert.strictEqual(whole.text, text)
      const capped = reduce(text, smallCap)
      assert.strictEqual(capped.report.route, "generic")
      assert.isAtMost(capped.text.length, smallCap)
      const output = JSON.parse(capped.text)
      assert.deepStrictEqual(output.rows, input.rows.slice(0, 20))
      assert.strictEqual(output.rowsOmitted, input.rows.length - 20)
      assert.strictEqual(output.note, input.note)
      assert.isTrue(
        capped.report.notes.some((note) => note.includes(`${input.rows.length - 20} array entries past 20 omitted`))
      )
    })
  })

  describe(`overflow of the changes index and the overview at a cap of ${smallCap}`, () => {
    for (const file of ["inspect-changes.json", "inspect-overview.json"]) {
      it(`${file}: the recovery list starts with workspace_inspect { action: "changes" } and names only ids of the input`, () => {
        const text = readText(file)
        const input = readJson(file)
        const { out, reduction } = reduced(file, smallCap)
        assert.strictEqual(reduction.report.route, "overflow")
        assert.isAtMost(reduction.text.length, smallCap)
        for (const key of ["protocol", "tool", "action", "ok", "summary"]) assert.strictEqual(out[key], input[key], key)
        assert.strictEqual(out.data.overflow.capChars, smallCap)
        assert.isAbove(out.data.overflow.reducedChars, smallCap)
        const recovery: ReadonlyArray<Loose> = out.data.recovery
        assert.isAbove(recovery.length, 1)
        assert.isAtMost(recovery.length, arrayCap)
        assert.deepStrictEqual(recovery[0], { tool: "workspace_inspect", arguments: { action: "changes" } })
        const inputIds = new Set(Envelope.ids(input))
        for (const call of recovery.slice(1)) {
          for (const [argument, value] of Object.entries(call.arguments as Record<string, string>)) {
            if (argument === "action") continue
            const prefix = idArguments[argument]
            assert.isDefined(prefix, `unexpected argument ${argument}`)
            assert.isTrue(value.startsWith(prefix!), `${argument}: ${value}`)
            assert.isTrue(inputIds.has(value), `${value} does not occur in the input`)
            assert.include(text, `"${value}`)
          }
        }
        assert.strictEqual(new Set(recovery.map((call) => JSON.stringify(call))).size, recovery.length)
      })
    }

    const omissionCases: ReadonlyArray<{ readonly file: string; readonly omit: ReadonlyArray<string> }> = [
      { file: "inspect-changes.json", omit: ["data.jobs", "data.plans.1", "data.approvals.0.title"] },
      {
        file: "inspect-overview.json",
        omit: ["data.recentRuns", "data.fileTreeTruncated", "data.recentTaskBoards", "data.pendingApprovals"]
      }
    ]
    for (const { file, omit } of omissionCases) {
      it(`${file} with ${omit.join(", ")} declared omitted: no output names an omitted path or an id found only there`, () => {
        const input = readJson(file)
        input.retention = { ...input.retention, omit_when_summarizing: omit }
        const stripped = structuredClone(input)
        const omittedValues: Array<unknown> = []
        for (const declared of omit) {
          const keys = declared.split(".")
          const parent = Json.getPath(stripped, keys.slice(0, -1).join(".")) as Loose
          omittedValues.push(parent[keys[keys.length - 1]!])
          delete parent[keys[keys.length - 1]!]
        }
        const remaining = new Set(Envelope.ids(stripped))
        const onlyOmitted = Envelope.ids(omittedValues).filter((id) => !remaining.has(id))
        assert.isAbove(onlyOmitted.length, 0)

        for (const cap of [smallCap, Reduce.defaultCap]) {
          const reduction = reduce(JSON.stringify(input), cap)
          const out = JSON.parse(reduction.text)
          if (cap === smallCap) assert.strictEqual(reduction.report.route, "overflow")
          for (const declared of omit) {
            if (declared === "data.plans.1") {
              // An omitted array entry leaves null in its place, so indices stay stable.
              const entry = Json.getPath(out, declared)
              assert.isTrue(entry === undefined || entry === null)
            } else {
              assert.isUndefined(Json.getPath(out, declared), declared)
            }
            for (const listed of Object.keys(out.data.truncation ?? {})) {
              assert.isFalse(listed === declared || listed.startsWith(declared + "."), listed)
            }
          }
          for (const id of onlyOmitted) assert.notInclude(reduction.text, id, `cap ${cap}`)
          if (cap === smallCap) {
            assert.deepStrictEqual(out.data.recovery[0], {
              tool: "workspace_inspect",
              arguments: { action: "changes" }
            })
          }
        }
      })
    }
  })
})
