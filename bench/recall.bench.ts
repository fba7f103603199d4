/**
 * Recall, measured: (1) on the recorded agent runs of `../shared/transcripts`
 * (or `CONTEXT_COMPRESSOR_TRANSCRIPTS`; skipped when absent), each run as an
 * agent loop (a checkpoint before every model call, in a 32,000-token
 * window, the memory archive), the share of compacted tool results over 200
 * characters that a handle listed in the final block gives back whole, of all
 * and of those whose handle fits the list's budget; (2) the proxy's cost per
 * recall round against a direct request to the same fake upstream, in the
 * same run (production engine: SQLite and the files archive in a temporary
 * folder, o200k_base, the offline summariser).
 *
 * Run with `npx tsx bench/recall.bench.ts`.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../src/apps/http/Proxy.js"
import * as Handles from "../src/core/block/Handles.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as Recall from "../src/face/engine/Recall.js"
import * as Testing from "../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../src/face/layers/TranscriptArchiveMemory.js"
import type * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { hasTranscripts, loadTranscripts, transcriptsDirectory } from "../test/openai.js"
import * as FakeUpstream from "../test/support/FakeUpstream.js"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const contextWindow = 32_000

/** One recorded run as an agent loop; what its final block lists against what it compacted. */
const recallShare = (name: string, transcript: Transcript.Transcript) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const sessionId = `bench-${name}`
    let view: Transcript.Transcript = transcript
    let compactions = 0
    for (let end = 1; end <= transcript.length; end++) {
      if (end < transcript.length && transcript[end]!._tag !== "Assistant") continue
      const checkpoint = yield* Effect.either(
        compactor.checkpoint({ sessionId, transcript: transcript.slice(0, end), model: "bench", contextWindow })
      )
      if (Either.isLeft(checkpoint)) continue
      view = checkpoint.right.view
      if (checkpoint.right.compacted._tag === "Some") compactions++
    }
    const block = view.find((message) => message._tag === "Compacted")
    const inView = new Set(view.map((message) => message.id))
    const listing = block === undefined ? { lines: [], more: 0 } : Handles.fromBlock(block.content)
    const listed = new Set(listing.lines.map((line) => line.handle))
    const oldestListed = Math.min(...transcript.flatMap((message, index) =>
      listed.has(Handles.handleOfMessage(sessionId, message) ?? "") ? [index] : []
    ))
    let compacted = 0
    let recalled = 0
    let cutByBudget = 0
    for (const [index, message] of transcript.entries()) {
      if (message._tag !== "ToolResult" || message.content.length <= 200 || inView.has(message.id)) {
        continue
      }
      compacted++
      const handle = Recall.handleOf(sessionId, message.content)
      if (!listed.has(handle)) {
        if (listing.more > 0 && index < oldestListed) {
          cutByBudget++
        }
        continue
      }
      const page = yield* Effect.either(
        Recall.recall({ sessionId, handle, length: message.content.length }, { pageChars: message.content.length })
      )
      if (Either.isRight(page) && page.right.text === message.content) {
        recalled++
      }
    }
    return { name, compactions, compacted, recalled, cutByBudget, listed: listing.lines.length, more: listing.more }
  })

const percent = (part: number, whole: number) => whole === 0 ? "n/a" : `${((100 * part) / whole).toFixed(1)} %`

const shares = Effect.gen(function*() {
  if (!hasTranscripts()) {
    console.log(`\nrecall share: skipped, no recorded runs in ${transcriptsDirectory}`)
    return
  }
  const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(Testing.layer({ archive: TranscriptArchiveMemory.layer() }))
  )
  const rows: Array<Array<string>> = []
  let all = 0
  let fitting = 0
  let recalledAll = 0
  for (const { name, transcript } of loadTranscripts()) {
    const row = yield* recallShare(name.replace(/\.json$/, ""), transcript).pipe(Effect.provide(engine))
    all += row.compacted
    fitting += row.compacted - row.cutByBudget
    recalledAll += row.recalled
    rows.push([
      row.name.slice(-28),
      String(row.compactions),
      String(row.compacted),
      String(row.recalled),
      String(row.cutByBudget),
      `${row.listed} (+${row.more})`,
      percent(row.recalled, row.compacted),
      percent(row.recalled, row.compacted - row.cutByBudget)
    ])
  }
  console.log(
    `\nrecall share: compacted tool results over 200 chars recallable whole by a handle listed in the block (${contextWindow}-token window, checkpoint before every model call)\n`
  )
  printTable([
    "run",
    "compactions",
    "compacted >200",
    "recalled",
    "cut by budget",
    "listed (+more)",
    "of all",
    "of those fitting"
  ], rows)
  console.log(
    `\nall runs: ${percent(recalledAll, all)} of ${all}; ${
      percent(recalledAll, fitting)
    } of the ${fitting} whose handle fits the list's budget`
  )
})

const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(root, "examples/session/agent-session.json"), "utf8")
)
const rounds = 20

const post = async (base: string, sessionId: string) => {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", [Proxy.sessionHeader]: sessionId },
    body: JSON.stringify({ model: "gpt-bench", messages: session.slice(0, 300) })
  })
  await response.text()
  if (response.status !== 200) throw new Error(`status ${response.status}`)
  return response.headers.get(Proxy.reportHeader) ?? ""
}

const recallReply = (handle: string): FakeUpstream.Reply => ({
  _tag: "json",
  status: 200,
  body: {
    id: "r",
    object: "chat.completion",
    created: 1,
    model: "gpt-bench",
    choices: [{
      index: 0,
      message: {
        role: "assistant",
        content: null,
        tool_calls: [{
          id: "recall-1",
          type: "function",
          function: { name: Recall.toolName, arguments: JSON.stringify({ handle }) }
        }]
      },
      finish_reason: "tool_calls"
    }],
    usage: { prompt_tokens: 100, completion_tokens: 5, total_tokens: 105 }
  }
})

const roundCost = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (f) => Effect.promise(() => f.close())
  )
  const directory = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-recall-bench-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const context = yield* Layer.build(
    Proxy.layerNode({ upstream: fake.url, port: 0, directory, env: () => ({}), window: 32_000, recall: true })
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  const proxied = `http://127.0.0.1:${address.port}`
  const sessionId = "bench-recall"
  // A tool result the first request compacts: the handle the fake model asks for.
  const handle = Recall.handleOf(sessionId, session[4].content)
  const timings = {
    direct: [] as Array<number>,
    plain: [] as Array<number>,
    one: [] as Array<number>,
    three: [] as Array<number>
  }
  const reports = new Set<string>()
  yield* Effect.promise(async () => {
    await post(proxied, sessionId)
    for (let round = 0; round < rounds; round++) {
      let start = now()
      await post(fake.url, sessionId)
      timings.direct.push(elapsedMs(start))
      start = now()
      await post(proxied, sessionId)
      timings.plain.push(elapsedMs(start))
      fake.script.push(recallReply(handle))
      start = now()
      reports.add((await post(proxied, sessionId)).replace(/^.*; (recall=\d+)$/, "$1"))
      timings.one.push(elapsedMs(start))
      for (let i = 0; i < 3; i++) fake.script.push(recallReply(handle))
      start = now()
      reports.add((await post(proxied, sessionId)).replace(/^.*; (recall=\d+)$/, "$1"))
      timings.three.push(elapsedMs(start))
    }
  })
  const [direct, plain, one, three] = [
    median(timings.direct),
    median(timings.plain),
    median(timings.one),
    median(timings.three)
  ]
  const perRound = (three - plain) / 3
  console.log(
    `\nproxy --recall: ${rounds} requests of a 300-message agent session (restored compaction) per shape, to a fake upstream on 127.0.0.1 (medians, same run; headers seen: ${
      [...reports].join(", ")
    })\n`
  )
  printTable(["request", "ms", "against direct"], [
    ["direct to the upstream", formatMs(direct), "1.0×"],
    ["through the proxy, no recall", formatMs(plain), `${(plain / direct).toFixed(1)}×`],
    ["through the proxy, 1 recall round", formatMs(one), `${(one / direct).toFixed(1)}×`],
    ["through the proxy, 3 recall rounds", formatMs(three), `${(three / direct).toFixed(1)}×`]
  ])
  console.log(
    `\ncost per recall round: ${formatMs(perRound)} ms, ${(perRound / direct).toFixed(1)}× a direct request (1 round: ${
      formatMs(one - plain)
    } ms over no recall)`
  )
})

Effect.runPromise(Effect.scoped(Effect.zipRight(shares, roundCost)).pipe(Logger.withMinimumLogLevel(LogLevel.Warning)))
  .catch((error) => {
    console.error(error)
    process.exit(1)
  })
