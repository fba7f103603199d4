/**
 * What the proxy costs per request on a session below the compaction trigger,
 * against the floor of `JSON.parse` + `JSON.stringify` of the same body: for
 * sessions of about 100 KB, 500 KB and 2 MB (the example agent session, its
 * turns repeated with fresh tool-call ids past its end), each request adding
 * one turn, sent alternately to a fake upstream on 127.0.0.1 directly and
 * through `proxy` (production engine: SQLite in a temporary folder, o200k_base,
 * a window of 4M tokens and a cap of 2M so that nothing compacts), in the same run.
 * The last line says whether the bound of issue 46 holds: at 500 KB the added
 * median at most {@link bound} times the floor.
 *
 * Run with `npx tsx bench/proxy-overhead.bench.ts` (`ROUNDS`: requests per size,
 * default 40; `SIZES`: some of `100 KB,500 KB,2 MB`; `SESSION=derived`: no
 * `x-session-id`, the session derived from the history as for clients that
 * name none). The table goes to stdout, progress to stderr.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../src/apps/http/Proxy.js"
import * as FakeUpstream from "../test/support/FakeUpstream.js"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const example: ReadonlyArray<{ readonly role: string }> = JSON.parse(
  Fs.readFileSync(NodePath.join(root, "examples/session/agent-session.json"), "utf8")
)
const rounds = Number(process.env["ROUNDS"] ?? 40)
/** The most the proxy may add at 500 KB, in floors (issue 46). */
const bound = 4
const sizes: ReadonlyArray<{ readonly name: string; readonly bytes: number }> = [
  { name: "100 KB", bytes: 100_000 },
  { name: "500 KB", bytes: 500_000 },
  { name: "2 MB", bytes: 2_000_000 }
]

/** The example session, then its turns again (system prompt left out) with tool-call ids of their own, three times. */
const history: ReadonlyArray<{ readonly role: string }> = [
  ...example,
  ...[1, 2].flatMap((copy) =>
    JSON.parse(JSON.stringify(example.slice(1)).replace(/"(call_[0-9a-f]+)"/g, `"$1_${copy}"`)) as typeof example
  )
]
/** The lengths of the prefixes a client would send: those ending on a user message or a tool result. */
const turnEnds = history.flatMap((message, index) =>
  (message.role === "user" || message.role === "tool") && history[index + 1]?.role !== "tool" ? [index + 1] : []
)

/** The length of each prefix's body, near enough: its messages' JSON and their commas. */
const prefixBytes = (() => {
  let total = 0
  return history.map((message) => (total += JSON.stringify(message).length + 1))
})()

const body = (messages: ReadonlyArray<unknown>) => JSON.stringify({ model: "gpt-bench", messages })

/** Whether the requests leave the session to the proxy to derive (`SESSION=derived`), as most agents' do. */
const derived = process.env["SESSION"] === "derived"

const request = async (base: string, text: string, sessionId: string) => {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: "Bearer sk-bench",
      ...(derived ? {} : { [Proxy.sessionHeader]: sessionId })
    },
    body: text
  })
  await response.text()
  if (response.status !== 200) throw new Error(`status ${response.status}`)
  return response.headers.get(Proxy.reportHeader) ?? ""
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!
}

const program = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (f) => Effect.promise(() => f.close())
  )
  // The upstream reports about as many prompt tokens as the body holds, as a real one would.
  fake.usageOf = (received) => Math.round(received.text.length / 4)
  const directory = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-proxy-overhead-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const context = yield* Layer.build(
    Proxy.layerNode({
      upstream: fake.url,
      port: 0,
      directory,
      env: () => ({ CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS: "2000000" }),
      window: 4_000_000
    })
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  const proxied = `http://127.0.0.1:${address.port}`

  const rows: Array<Array<string>> = []
  const ratios = new Map<string, { readonly added: number; readonly ratio: number }>()
  const only = process.env["SIZES"]?.split(",")
  for (const size of sizes.filter((s) => only === undefined || only.includes(s.name))) {
    const first = turnEnds.findIndex((end) => prefixBytes[end - 1]! >= size.bytes)
    if (first < 0 || first + rounds + 3 >= turnEnds.length) throw new Error(`no session of ${size.name}`)
    const texts = turnEnds.slice(first, first + rounds + 3).map((end) => body(history.slice(0, end)))
    const sessionId = `overhead-${size.name}`
    const added: Array<number> = []
    const addedCpu: Array<number> = []
    const floor: Array<number> = []
    const reports = new Set<string>()
    console.error(`proxy-overhead: ${size.name}, ${texts.length} requests (3 warm-ups)`)
    yield* Effect.promise(async () => {
      for (const [round, text] of texts.entries()) {
        let start = now()
        let cpu = process.cpuUsage()
        await request(fake.url, text, sessionId)
        const direct = elapsedMs(start)
        const directCpu = cpuMs(process.cpuUsage(cpu))
        start = now()
        cpu = process.cpuUsage()
        const report = await request(proxied, text, sessionId)
        const through = elapsedMs(start)
        const throughCpu = cpuMs(process.cpuUsage(cpu))
        start = now()
        JSON.stringify(JSON.parse(text))
        const parsed = elapsedMs(start)
        fake.received.length = 0
        // three warm-ups: the session's first request counts all of it
        if (round < 3) continue
        added.push(through - direct)
        addedCpu.push(throughCpu - directCpu)
        floor.push(parsed)
        reports.add(report.split(";")[0]!)
      }
    })
    const [m, p99, f] = [median(added), percentile(added, 0.99), median(floor)]
    ratios.set(size.name, { added: m, ratio: m / f })
    rows.push([
      `${size.name} (${formatKb(texts[0]!.length)}-${formatKb(texts.at(-1)!.length)})`,
      formatMs(m),
      formatMs(p99),
      formatMs(f),
      `${(m / f).toFixed(1)}×`,
      formatMs(median(addedCpu)),
      [...reports].join(",")
    ])
  }
  console.log(
    `\nproxy overhead: ${rounds} requests per size, one turn more each, direct and through the proxy alternately; ` +
      `floor = JSON.parse + JSON.stringify of the same body (medians, same run); added CPU = the process's CPU time ` +
      `through the proxy less directly (less sensitive to a busy machine than the wall clock)\n`
  )
  printTable(
    ["session", "added median ms", "added p99 ms", "floor ms", "added ÷ floor", "added CPU ms", "outcome"],
    rows
  )
  const measured = ratios.get("500 KB")
  if (measured !== undefined) {
    console.log(
      `\n500 KB: added median ${formatMs(measured.added)} ms = ${measured.ratio.toFixed(1)}× floor (bound ${bound}×): ${
        measured.ratio <= bound ? "held" : "not held"
      }`
    )
  }
})

const formatKb = (bytes: number) => `${Math.round(bytes / 1000)} KB`

/** The process's CPU time (user and system, all threads) of a `process.cpuUsage` difference, in ms. */
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000

Effect.runPromise(Effect.scoped(program).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))).catch((error) => {
  console.error(error)
  process.exit(1)
})
