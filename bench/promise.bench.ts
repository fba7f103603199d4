/**
 * The cost of a turn through the Promise API (`context-compressor/promise`)
 * against the Effect API in the same run, both on the production layers
 * (SQLite in a fresh temporary folder each, the o200k tokenizer, the offline
 * summariser), over an OpenAI chat history of 400 messages that fits its
 * 128,000-token window (the common turn: nothing to compact).
 *
 * - first turn: the first call of a new session on a started engine (the
 *   state is looked up, every message counted);
 * - next turn: the same session one message later (counts cached).
 *
 * The baseline is the Effect API as the docs show it: one `ManagedRuntime`
 * over `Compactor.layer` and `Production.layerSqlite`, a turn being
 * `OpenAiChat.adapter.decode`, `checkpoint`, `encode`. A third row measures
 * the naive `Effect.provide` of the layers per call, which opens SQLite again
 * each time (first turns only: each call is a first turn for that engine).
 *
 * Run: `npm run -s bench` runs it with the others; alone: `npx tsx bench/promise.bench.ts`
 * (`--samples 40` to change the number of samples).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { createCompactor } from "../src/apps/promise/index.js"
import * as OpenAiChat from "../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as Production from "../src/face/layers/Production.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import { toOpenAiChat } from "../test/support/Histories.js"
import { argValue } from "./generate.js"
import * as Sessions from "./sessions.js"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const samples = Number(argValue("--samples") ?? "20") || 20
const contextWindow = 128_000

const history = toOpenAiChat(Sessions.session(400, Sessions.small))
const next = [...history, { role: "user", content: "And the next step, please." }]

const tempDir = () => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-bench-promise-"))

const engineLayer = (directory: string) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provide(Production.layerSqlite({ directory, env: () => ({}) }))
  )

/** One turn through the Effect API: decode, checkpoint, encode. */
const effectTurn = (messages: ReadonlyArray<unknown>, sessionId: string) =>
  Effect.gen(function*() {
    const decoded = Either.getOrThrow(OpenAiChat.adapter.decodeResult(messages))
    const compactor = yield* Compactor.Compactor
    const { view } = yield* compactor.checkpoint({
      sessionId,
      transcript: decoded.transcript,
      model: "bench",
      contextWindow
    })
    return decoded.encode(view)
  })

let sink = 0

const time = async (run: () => Promise<unknown>): Promise<number> => {
  const start = now()
  const result = await run()
  const ms = elapsedMs(start)
  sink += Array.isArray(result) ? result.length : 1
  return ms
}

const main = async () => {
  const effectDir = tempDir()
  const promiseDir = tempDir()
  const naiveDir = tempDir()
  const runtime = ManagedRuntime.make(engineLayer(effectDir))
  await runtime.runtime()
  const compactor = await createCompactor({ directory: promiseDir, env: {} })
  const rows: Record<"effect" | "promise" | "naive", { first: Array<number>; next: Array<number> }> = {
    effect: { first: [], next: [] },
    promise: { first: [], next: [] },
    naive: { first: [], next: [] }
  }
  try {
    // One warm-up session each, so that neither side pays the module's first use.
    await runtime.runPromise(effectTurn(history, "warm-up"))
    await compactor.compact(history, { sessionId: "warm-up", contextWindow, model: "bench" })
    for (let i = 0; i < samples; i++) {
      // Alternated, so that a slower moment of a shared machine falls on both sides.
      const sessionId = `session-${i}`
      rows.effect.first.push(await time(() => runtime.runPromise(effectTurn(history, sessionId))))
      rows.effect.next.push(await time(() => runtime.runPromise(effectTurn(next, sessionId))))
      rows.promise.first.push(
        await time(async () =>
          (await compactor.compact(history, { sessionId, contextWindow, model: "bench" })).messages
        )
      )
      rows.promise.next.push(
        await time(async () => (await compactor.compact(next, { sessionId, contextWindow, model: "bench" })).messages)
      )
      if (i < Math.min(samples, 10)) {
        rows.naive.first.push(
          await time(() => Effect.runPromise(Effect.provide(effectTurn(history, sessionId), engineLayer(naiveDir))))
        )
      }
    }
  } finally {
    await compactor.close()
    await runtime.dispose()
    for (const dir of [effectDir, promiseDir, naiveDir]) Fs.rmSync(dir, { recursive: true, force: true })
  }
  const base = { first: median(rows.effect.first), next: median(rows.effect.next) }
  const line = (name: string, row: { first: Array<number>; next: Array<number> }) => {
    const first = median(row.first)
    const nextMs = row.next.length === 0 ? NaN : median(row.next)
    return [
      name,
      formatMs(first),
      `${(first / base.first).toFixed(2)}x`,
      formatMs(nextMs),
      Number.isNaN(nextMs) ? "-" : `${(nextMs / base.next).toFixed(2)}x`
    ]
  }
  console.log(
    `A turn of a ${history.length}-message OpenAI chat history in a ${
      contextWindow.toLocaleString("en-US")
    }-token window (median of ${samples} samples, ms)\n`
  )
  printTable(
    ["API", "first turn", "vs Effect", "next turn", "vs Effect"],
    [
      line("Effect API (ManagedRuntime, baseline)", rows.effect),
      line("Promise API (createCompactor)", rows.promise),
      line("Effect API, Effect.provide per call", rows.naive)
    ]
  )
  if (sink < 0) console.log(sink)
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exitCode = 1
})
