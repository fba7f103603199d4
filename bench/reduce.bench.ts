/**
 * Reduction throughput: `Reduce.reduce(text, { policies: builtInPolicies })`
 * against the baseline `JSON.stringify(JSON.parse(text))` on the same text,
 * for envelopes of about 1 KB, 100 KB and 10 MB in several shapes, generated
 * deterministically (bench/generate.ts).
 *
 * Run: `npm run -s bench` (add `-- --size 10MB --shape tree` to narrow it,
 * `--budget 2` to scale the time spent per case). Runs with `--expose-gc`
 * collect garbage before each timed run of the large cases; without it, the
 * bench runs all the same.
 */
import * as Reduce from "../src/face/engine/Reduce.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { argValue, generate, type Shape, shapeNames } from "./generate.js"
import { median } from "./timing.js"

interface Size {
  readonly label: string
  readonly chars: number
  /** Time spent measuring one case, in milliseconds (before the budget factor). */
  readonly budgetMs: number
  readonly minSamples: number
  readonly maxSamples: number
  readonly warmups: number
}

const sizes: ReadonlyArray<Size> = [
  { label: "1KB", chars: 1024, budgetMs: 250, minSamples: 15, maxSamples: 41, warmups: 3 },
  { label: "100KB", chars: 100 * 1024, budgetMs: 500, minSamples: 9, maxSamples: 41, warmups: 2 },
  { label: "10MB", chars: 10 * 1024 * 1024, budgetMs: 4000, minSamples: 3, maxSamples: 15, warmups: 1 }
]

const cap = Reduce.defaultCap // 32_000

// --- arguments -------------------------------------------------------------

const onlySize = argValue("--size")
const onlyShape = argValue("--shape")
const budgetFactor = Number(argValue("--budget") ?? "1") || 1

// --- timing ----------------------------------------------------------------

const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc

const now = (): bigint => process.hrtime.bigint()

let sink = 0

const baseline = (text: string): number => JSON.stringify(JSON.parse(text)).length

const reduce = (text: string): number => Reduce.reduce(text, { policies: builtInPolicies, cap }).text.length

/** Milliseconds per run of `f`, over `reps` runs. */
const time = (f: (text: string) => number, text: string, reps: number): number => {
  const start = now()
  for (let i = 0; i < reps; i++) sink += f(text)
  return Number(now() - start) / 1e6 / reps
}

const countNodes = (value: unknown): number => {
  if (typeof value !== "object" || value === null) return 1
  let count = 1
  if (Array.isArray(value)) { for (const item of value) count += countNodes(item) }
  else for (const key of Object.keys(value)) count += countNodes((value as Record<string, unknown>)[key])
  return count
}

interface Result {
  readonly size: string
  readonly shape: Shape
  readonly inputChars: number
  readonly inputBytes: number
  readonly nodes: number
  readonly baselineMs: number
  readonly reduceMs: number
  readonly samples: number
  readonly route: string
  readonly outputChars: number
}

/** Above this many milliseconds per reduction, a large case takes fewer samples, to keep the whole run near a minute. */
const slowMs = 1500

const measure = (size: Size, shape: Shape, text: string): Result => {
  const large = text.length >= 1_000_000
  // The first reduction gives the route and output size, and is the first warm-up run.
  const firstStart = now()
  const first = Reduce.reduce(text, { policies: builtInPolicies, cap })
  const firstMs = Number(now() - firstStart) / 1e6
  // Small inputs run in batches, so that one sample lasts about 2 ms.
  const reps = large
    ? 1
    : Math.min(Math.max(Math.ceil(2 / Math.max(time(baseline, text, 1), time(reduce, text, 1), 1e-3)), 1), 5000)
  for (let i = 0; i < size.warmups; i++) {
    time(baseline, text, reps)
    if (!large || i > 0) time(reduce, text, reps)
  }
  const minSamples = large && firstMs > slowMs ? 2 : size.minSamples
  const baselineSamples: Array<number> = []
  const reduceSamples: Array<number> = []
  const budget = size.budgetMs * budgetFactor
  const started = performance.now()
  while (
    baselineSamples.length < minSamples ||
    (baselineSamples.length < size.maxSamples && performance.now() - started < budget)
  ) {
    // Interleaved, alternating which goes first, so drift hits both alike.
    const order = baselineSamples.length % 2 === 0 ? [baseline, reduce] : [reduce, baseline]
    for (const f of order) {
      if (large) gc?.()
      const ms = time(f, text, reps)
      ;(f === baseline ? baselineSamples : reduceSamples).push(ms)
    }
  }
  return {
    size: size.label,
    shape,
    inputChars: text.length,
    inputBytes: Buffer.byteLength(text, "utf8"),
    nodes: countNodes(JSON.parse(text)),
    baselineMs: median(baselineSamples),
    reduceMs: median(reduceSamples),
    samples: baselineSamples.length,
    route: first.report.route,
    outputChars: first.text.length
  }
}

// --- table -----------------------------------------------------------------

const mib = 1024 * 1024

const formatMs = (
  ms: number
): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3))

const formatCount = (n: number): string => n.toLocaleString("en-US")

const columns: ReadonlyArray<
  { readonly title: string; readonly right: boolean; readonly cell: (r: Result) => string }
> = [
  { title: "size", right: false, cell: (r) => r.size },
  { title: "shape", right: false, cell: (r) => r.shape },
  { title: "input bytes", right: true, cell: (r) => formatCount(r.inputBytes) },
  { title: "nodes", right: true, cell: (r) => formatCount(r.nodes) },
  { title: "baseline ms", right: true, cell: (r) => formatMs(r.baselineMs) },
  { title: "baseline MB/s", right: true, cell: (r) => (r.inputBytes / mib / (r.baselineMs / 1000)).toFixed(0) },
  { title: "reduce ms", right: true, cell: (r) => formatMs(r.reduceMs) },
  { title: "reduce MB/s", right: true, cell: (r) => (r.inputBytes / mib / (r.reduceMs / 1000)).toFixed(0) },
  { title: "ratio", right: true, cell: (r) => (r.reduceMs / r.baselineMs).toFixed(2) },
  { title: "route", right: false, cell: (r) => r.route },
  { title: "output chars", right: true, cell: (r) => formatCount(r.outputChars) },
  { title: "samples", right: true, cell: (r) => String(r.samples) }
]

const widths = columns.map((c) => c.title.length)

const row = (cells: ReadonlyArray<string>): string =>
  cells.map((cell, i) => (columns[i]!.right ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd()

const printTable = (results: ReadonlyArray<Result>): void => {
  const cells = results.map((r) => columns.map((c) => c.cell(r)))
  for (const line of cells) line.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, cell.length)))
  console.log(row(columns.map((c) => c.title)))
  console.log(row(widths.map((w) => "-".repeat(w))))
  let previous: string | undefined
  results.forEach((r, i) => {
    if (previous !== undefined && previous !== r.size) console.log("")
    previous = r.size
    console.log(row(cells[i]!))
  })
}

// --- main ------------------------------------------------------------------

const main = (): void => {
  const selectedSizes = sizes.filter((s) => onlySize === undefined || s.label.toLowerCase() === onlySize.toLowerCase())
  const selectedShapes = shapeNames.filter((s) => onlyShape === undefined || s === onlyShape)
  if (selectedSizes.length === 0 || selectedShapes.length === 0) {
    console.error(`nothing selected: sizes ${sizes.map((s) => s.label).join(", ")}; shapes ${shapeNames.join(", ")}`)
    process.exitCode = 2
    return
  }
  const startedAt = performance.now()
  console.log(
    `context-compressor reduction benchmark: node ${process.version}, ${process.platform}/${process.arch}, cap ${cap}, policies builtInPolicies`
  )
  console.log(
    "ratio = reduce time / (JSON.parse + JSON.stringify) time on the same input, same run; target <= 2.0 at 10 MB"
  )
  console.log(
    `times are medians of interleaved samples after warm-up; MB = 2^20 bytes of compact JSON input; global.gc ${
      gc === undefined
        ? "not exposed (run with --expose-gc to collect between large samples)"
        : "called before each large sample"
    }`
  )
  console.log("")

  // JIT warm-up over every shape at the 100 KB size, so the first case measured is not the coldest.
  for (const shape of selectedShapes) {
    const text = generate(shape, 100 * 1024)
    for (let i = 0; i < 3; i++) sink += baseline(text) + reduce(text)
  }

  const results: Array<Result> = []
  for (const size of selectedSizes) {
    for (const shape of selectedShapes) {
      const text = generate(shape, size.chars)
      results.push(measure(size, shape, text))
      process.stderr.write(`  measured ${size.label} ${shape}\n`)
    }
  }
  console.log("")
  printTable(results)
  console.log("")
  const large = results.filter((r) => r.size === "10MB")
  if (large.length > 0) {
    const over = large.filter((r) => r.reduceMs / r.baselineMs > 2)
    console.log(
      over.length === 0
        ? "10 MB: every shape within the target ratio of 2.0"
        : `10 MB: over the target ratio of 2.0: ${
          over.map((r) => `${r.shape} (${(r.reduceMs / r.baselineMs).toFixed(2)})`).join(", ")
        }`
    )
  }
  console.log(`total ${((performance.now() - startedAt) / 1000).toFixed(1)} s (checksum ${sink % 997})`)
}

main()
