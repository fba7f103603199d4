/**
 * The carried approval: `Reduce.reduce` of a staged-approval envelope whose
 * resume is a 30-action browser batch (carried whole), with and without
 * declared omissions inside the resume, each against the baseline
 * `JSON.stringify(JSON.parse(text))` of the same text, measured in this run.
 * The envelope's other data (about 100 KB) is what the rules reduce.
 *
 * Run: `npx tsx bench/approval.bench.ts`.
 */
import * as Reduce from "../src/face/engine/Reduce.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const actions = Array.from(
  { length: 30 },
  (_, i) => ({ type: "type", selector: `#field-${i}`, text: `value ${i} `.repeat(20) })
)

const envelope = (omit: ReadonlyArray<string>) =>
  JSON.stringify({
    protocol: "agentic-workspace/v1",
    tool: "workspace_browser",
    action: "batch",
    ok: true,
    summary: "staged a browser batch for approval",
    data: {
      status: "pending_approval",
      mode: "ask",
      approval: {
        id: "approval_b3",
        kind: "browser",
        title: "fill the form",
        destructive: false,
        resume: { tool: "workspace_browser", arguments: { action: "batch", actions } }
      },
      pages: Array.from(
        { length: 200 },
        (_, i) => ({
          id: `source_${i}`,
          url: `https://example.com/${i}`,
          html: "<p>lorem ipsum</p>".repeat(25),
          truncated: i % 7 === 0
        })
      )
    },
    retention: {
      importance: "high",
      facts: ["approval_b3 pending"],
      omit_when_summarizing: ["data.pages.html", ...omit]
    }
  })

const cases = [
  { name: "no omission inside the resume", text: envelope([]) },
  {
    name: "30 omissions inside the resume (actions.text)",
    text: envelope(["data.approval.resume.arguments.actions.text"])
  },
  {
    name: "one omitted entry inside the resume (actions.3)",
    text: envelope(["data.approval.resume.arguments.actions.3"])
  }
]

let sink = 0
const sample = (f: () => number, reps: number): number => {
  const start = now()
  for (let i = 0; i < reps; i++) sink += f()
  return elapsedMs(start) / reps
}

const rows = cases.map(({ name, text }) => {
  const baseline = () => JSON.stringify(JSON.parse(text)).length
  const reduce = () => Reduce.reduce(text, { policies: builtInPolicies }).text.length
  for (let i = 0; i < 20; i++) sink += baseline() + reduce()
  const baselineMs: Array<number> = []
  const reduceMs: Array<number> = []
  // Interleaved, so both feel the same load on a shared machine.
  for (let i = 0; i < 25; i++) {
    baselineMs.push(sample(baseline, 10))
    reduceMs.push(sample(reduce, 10))
  }
  const b = median(baselineMs)
  const r = median(reduceMs)
  return [name, `${Math.round(text.length / 1024)}`, formatMs(b), formatMs(r), `${(r / b).toFixed(2)}x`]
})

printTable(["case", "KB", "parse+stringify ms", "reduce ms", "ratio"], rows)
if (sink === 0) console.error("unreachable")
