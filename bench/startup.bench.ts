/**
 * Startup benchmark: what importing the package and starting the program
 * cost, on the built `dist/` (built first by `npm run build`; `--no-build`
 * uses the one in place). Each sample is a fresh `node` process, timed from
 * spawn to exit, so the figure includes Node's own start; the baseline is a
 * process that only runs `import("effect")`, measured in the same run, and
 * every case is printed as a ratio to it.
 *
 * 1. `import()` of each entry point (`context-compressor`, `/rules`,
 *    `/adapters`, `/effect-ai`, `/services`, `/layers`, `/http`), resolved through the
 *    package's `exports` as a user's import is. Limit: the root at most 1.5×.
 * 2. `context-compressor --help`, and a `compact` of a four-message transcript
 *    that does not reach the trigger (so nothing is summarised: the SQLite
 *    state is opened, the messages counted with the o200k_base tokenizer, the
 *    transcript printed back), with the program as installed: the bundle
 *    `dist/cli/context-compressor.js` (`scripts/bundle-cli.mjs`). Limit: each
 *    at most 2×. The same two with the unbundled `dist/src/apps/cli/bin.js`, for
 *    comparison: what the bundle saves is Node's loading of ~730 module files.
 *
 * Samples are interleaved (one of each case per round) so that a busy
 * machine slows all cases alike; the figure is the median of the rounds.
 *
 * Run: `npm run -s bench` runs this first; alone: `npx tsx bench/startup.bench.ts`
 * (`--runs 15` sets the rounds, default 9; `--no-build` skips the build).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const argv = process.argv.slice(2)
const runsAt = argv.indexOf("--runs")
const runs = runsAt >= 0 ? Math.max(1, Number(argv[runsAt + 1])) : 9

if (!argv.includes("--no-build")) {
  process.stderr.write("building dist/ (npm run build)…\n")
  const built = spawnSync("npm", ["run", "-s", "build"], { cwd: root, stdio: ["ignore", "inherit", "inherit"] })
  if (built.status !== 0) {
    process.stderr.write("the build failed\n")
    process.exit(1)
  }
}

const work = mkdtempSync(join(tmpdir(), "context-compressor-startup-"))
const transcript = join(work, "short.json")
writeFileSync(
  transcript,
  JSON.stringify([
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "List the files of the repository." },
    { role: "assistant", content: "src/, test/ and package.json." },
    { role: "user", content: "Thanks." }
  ])
)
const bin = join(root, "dist/cli/context-compressor.js")
const unbundled = join(root, "dist/src/apps/cli/bin.js")

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  /** The most the case may take, as a multiple of the baseline. */
  readonly limit?: number
}

const importing = (
  specifier: string
): ReadonlyArray<string> => ["--input-type=module", "-e", `await import(${JSON.stringify(specifier)})`]

const baseline: Case = { name: `import("effect") (baseline)`, args: importing("effect"), cwd: root }
const cases: ReadonlyArray<Case> = [
  baseline,
  { name: `import("context-compressor")`, args: importing("context-compressor"), cwd: root, limit: 1.5 },
  { name: `import("context-compressor/rules")`, args: importing("context-compressor/rules"), cwd: root },
  { name: `import("context-compressor/adapters")`, args: importing("context-compressor/adapters"), cwd: root },
  { name: `import("context-compressor/effect-ai")`, args: importing("context-compressor/effect-ai"), cwd: root },
  { name: `import("context-compressor/services")`, args: importing("context-compressor/services"), cwd: root },
  { name: `import("context-compressor/layers")`, args: importing("context-compressor/layers"), cwd: root },
  { name: `import("context-compressor/http")`, args: importing("context-compressor/http"), cwd: root },
  { name: "context-compressor --help", args: [bin, "--help"], cwd: work, limit: 2 },
  {
    name: "context-compressor compact (no compaction)",
    args: [bin, "compact", transcript, "--window", "128000"],
    cwd: work,
    limit: 2
  },
  { name: "  unbundled: --help", args: [unbundled, "--help"], cwd: work },
  {
    name: "  unbundled: compact (no compaction)",
    args: [unbundled, "compact", transcript, "--window", "128000"],
    cwd: work
  }
]

const sample = (c: Case): number => {
  const start = now()
  const ran = spawnSync(process.execPath, c.args, { cwd: c.cwd, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" })
  const ms = elapsedMs(start)
  if (ran.status !== 0) {
    throw new Error(`${c.name} exited with ${ran.status}: ${ran.stderr.trim().split("\n")[0] ?? ""}`)
  }
  return ms
}

try {
  // One warm-up round: the first start of a process reads every file from disk.
  for (const c of cases) sample(c)
  const samples = new Map<Case, Array<number>>(cases.map((c) => [c, []]))
  for (let round = 0; round < runs; round++) {
    for (const c of cases) samples.get(c)!.push(sample(c))
  }
  const base = median(samples.get(baseline)!)
  console.log(
    `startup: fresh node processes on dist/, median of ${runs} rounds, ratios to import("effect") measured in the same run`
  )
  printTable(
    ["case", "ms", "ratio", "limit", "within"],
    cases.map((c) => {
      const ms = median(samples.get(c)!)
      const ratio = ms / base
      return [
        c.name,
        formatMs(ms),
        `${ratio.toFixed(2)}×`,
        c.limit === undefined ? "-" : `${c.limit.toFixed(1)}×`,
        c.limit === undefined ? "" : ratio <= c.limit ? "yes" : "NO"
      ]
    })
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
