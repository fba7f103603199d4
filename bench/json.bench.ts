/**
 * JSON reader benchmark: `Json.parse` against the native `JSON.parse` of the
 * same text, measured in the same run, on the texts where the reader differs:
 *
 * 1. A 10 MB staged diff with an integer past 2^53 (the exact, iterative
 *    reader runs; `JSON.parse` would round the integer).
 * 2. 20,000 small records with 30-digit ids (many number literals to check).
 * 3. An ordinary envelope of 1 MB without such literals (the native path:
 *    the ratio shows the cost of the check alone).
 * 4. `Reduce.reduce` of 20,000 records no policy accepts (the generic JSON
 *    policy) against `JSON.stringify(JSON.parse(text))`.
 * 5. `Json.nestingDepth` up to the servers' depth limit (the check `serve`
 *    and the proxy make on a body before they parse it) against `JSON.parse`
 *    of the same body: a 16 MiB chat request of ordinary messages, and the
 *    envelope of case 3.
 *
 * Run: `npx tsx bench/json.bench.ts` (`--budget 2` scales the time per measurement).
 */
import * as BodyLimits from "../src/apps/http/BodyLimits.js"
import * as Reduce from "../src/face/engine/Reduce.js"
import * as Json from "../src/face/models/Json.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { elapsedMs, formatMs, gc, median, now, printTable } from "./timing.js"

const budgetArg = process.argv.indexOf("--budget")
const budget = budgetArg === -1 ? 1 : Number(process.argv[budgetArg + 1] ?? 1)

const sample = (f: () => unknown): number => {
  const times: Array<number> = []
  const deadline = Date.now() + 1_500 * budget
  while (times.length < 5 || (Date.now() < deadline && times.length < 50)) {
    gc?.()
    const start = now()
    f()
    times.push(elapsedMs(start))
  }
  return median(times)
}

const envelope = (data: string) =>
  `{"protocol":"agentic-workspace/v1","tool":"workspace_edit","action":"stage","ok":true,"summary":"Staged","data":${data}}`

const cases: ReadonlyArray<
  {
    readonly name: string
    readonly text: string
    readonly measured: (text: string) => unknown
    readonly baseline: (text: string) => unknown
  }
> = [
  {
    name: "10 MB diff + integer past 2^53: Json.parse / JSON.parse",
    text: envelope(`{"diff":"${"+line of the diff\\n".repeat(600_000)}","id":123456789012345678901234567890}`),
    measured: (text) => Json.parse(text),
    baseline: (text) => JSON.parse(text)
  },
  {
    name: "20,000 records with 30-digit ids: Json.parse / JSON.parse",
    text: `[${
      Array.from({ length: 20_000 }, (_, i) =>
        `{"id":1234567890123456789012345${String(i).padStart(5, "0")},"name":"record ${i}","ok":true}`).join(",")
    }]`,
    measured: (text) => Json.parse(text),
    baseline: (text) => JSON.parse(text)
  },
  {
    name: "1 MB envelope, ordinary numbers: Json.parse / JSON.parse",
    text: envelope(
      JSON.stringify({
        items: Array.from({ length: 12_000 }, (_, i) => ({ i, path: `src/module${i}.ts`, lines: i * 3 }))
      })
    ),
    measured: (text) => Json.parse(text),
    baseline: (text) => JSON.parse(text)
  },
  {
    name: "reduce, generic JSON policy, 20,000 records / JSON.stringify(JSON.parse)",
    text: JSON.stringify(
      Array.from({ length: 20_000 }, (_, i) => ({ i, note: "entry ".repeat(20), truncated: false }))
    ),
    measured: (text) => Reduce.reduce(text, { policies: builtInPolicies }),
    baseline: (text) => JSON.stringify(JSON.parse(text))
  },
  {
    name: "16 MiB chat request: Json.nestingDepth (depth limit) / JSON.parse",
    text: JSON.stringify({
      model: "gpt-test",
      messages: Array.from(
        { length: 4_000 },
        (_, i) => ({
          role: i % 2 === 0 ? "user" : "assistant",
          content: `step ${i}: ${"the output of the command, line by line\n".repeat(100)}`
        })
      )
    }),
    measured: (text) => Json.nestingDepth(text, BodyLimits.maxJsonDepth),
    baseline: (text) => JSON.parse(text)
  },
  {
    name: "envelope of 12,000 records: Json.nestingDepth (depth limit) / JSON.parse",
    text: envelope(
      JSON.stringify({
        items: Array.from({ length: 12_000 }, (_, i) => ({ i, path: `src/module${i}.ts`, lines: i * 3 }))
      })
    ),
    measured: (text) => Json.nestingDepth(text, BodyLimits.maxJsonDepth),
    baseline: (text) => JSON.parse(text)
  }
]

const rows = cases.map((c) => {
  const baseline = sample(() => c.baseline(c.text))
  const measured = sample(() => c.measured(c.text))
  return [
    c.name,
    `${(c.text.length / 1e6).toFixed(1)} MB`,
    formatMs(baseline),
    formatMs(measured),
    `${(measured / baseline).toFixed(2)}×`
  ]
})
printTable(["case", "text", "baseline", "measured", "ratio"], rows)
