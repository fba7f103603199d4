/**
 * Summary-cache replay over the recorded agent runs of `../shared/transcripts`
 * (skipped with a note when that folder is absent): each run is replayed as a
 * session, a checkpoint at every turn start, in a window small enough to
 * compact several times, with the production layers (SQLite cache file,
 * o200k_base tokenizer) and the offline summariser, counting its calls.
 *
 * - pass 1: a new cache file: every compaction misses and stores;
 * - pass 2: the same runs again, fresh engine and store, same cache file: the
 *   identical requests hit, and the summariser is not called;
 * - pass 3: the summariser model pinned to another model: the key changes, so
 *   every lookup misses, and nothing stored for the first model is returned.
 *
 * Run: `npx tsx bench/cache-replay.bench.ts` (`--window N` sets the context window, default 24,000).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Boundary from "../src/core/checkpoint/Boundary.js"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as AttentionUnattended from "../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheSql from "../src/face/layers/SummaryCacheSql.js"
import * as TokenizerBpe from "../src/face/layers/TokenizerBpe.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import { hasTranscripts, loadTranscripts, transcriptsDirectory } from "../test/openai.js"
import { argValue } from "./generate.js"

const contextWindow = Number(argValue("--window") ?? "24000") || 24_000

interface PassResult {
  readonly pass: string
  readonly checkpoints: number
  readonly compactions: number
  readonly cacheHits: number
  readonly summarizerCalls: number
  readonly stats: SummaryCacheSql.Stats
  readonly ms: number
}

/** The offline summariser, counting the calls that reach it. */
const countingSummarizer = (calls: { count: number }) =>
  Layer.effect(
    Summarizer.Summarizer,
    Effect.map(Effect.provide(Summarizer.Summarizer, SummarizerOffline.layer), (offline) => ({
      summarize: (request: Summarizer.SummaryRequest) =>
        Effect.suspend(() => {
          calls.count++
          return offline.summarize(request)
        })
    }))
  )

const replay = (pass: string, cacheFile: string, summarizerModel: string | undefined): PassResult => {
  const runs = loadTranscripts()
  const calls = { count: 0 }
  let checkpoints = 0
  let compactions = 0
  let cacheHits = 0
  const started = performance.now()
  const program = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    for (const { name, transcript } of runs) {
      for (const start of [...Boundary.turnStarts(transcript), transcript.length]) {
        if (start === 0) continue
        checkpoints++
        const outcome = yield* Effect.either(
          compactor.checkpoint({
            sessionId: name,
            transcript: transcript.slice(0, start),
            model: "recorded-model",
            contextWindow
          })
        )
        if (outcome._tag === "Right" && Option.isSome(outcome.right.compacted)) {
          compactions++
          if (outcome.right.compacted.value.cacheHit) cacheHits++
        }
      }
    }
    return yield* (yield* SummaryCacheSql.SqlCache).stats
  })
  const layer = Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(
      Layer.mergeAll(
        countingSummarizer(calls),
        SummaryCacheSql.layerSqlite({ filename: cacheFile }),
        CompactionStoreMemory.layer,
        SettingsFixed.layer(summarizerModel === undefined ? {} : { summarizerModel }),
        TokenizerBpe.layer,
        AttentionUnattended.layer
      )
    )
  )
  const stats = Effect.runSync(Effect.scoped(Effect.provide(program, layer)))
  return {
    pass,
    checkpoints,
    compactions,
    cacheHits,
    summarizerCalls: calls.count,
    stats,
    ms: performance.now() - started
  }
}

const main = (): void => {
  if (!hasTranscripts()) {
    console.log(`cache replay: no recorded transcripts in ${transcriptsDirectory}; nothing to replay`)
    return
  }
  const dir = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-replay-"))
  try {
    const cacheFile = NodePath.join(dir, "cache.db")
    const runs = loadTranscripts()
    console.log(
      `context-compressor summary-cache replay: ${runs.length} recorded runs (${
        runs.reduce((n, r) => n + r.transcript.length, 0)
      } messages) from ${transcriptsDirectory}`
    )
    console.log(
      `window ${
        contextWindow.toLocaleString("en-US")
      } tokens, o200k_base tokenizer, offline summariser, SQLite cache at a new file`
    )
    console.log("")
    const results = [
      replay("1 new cache", cacheFile, undefined),
      replay("2 same runs again", cacheFile, undefined),
      replay("3 model pinned to another", cacheFile, "another-model")
    ]
    const header = [
      "pass",
      "checkpoints",
      "compactions",
      "cache hits",
      "summariser calls",
      "lookups hit/miss (file)",
      "entries",
      "ms"
    ]
    const rows = results.map((r) => [
      r.pass,
      String(r.checkpoints),
      String(r.compactions),
      String(r.cacheHits),
      String(r.summarizerCalls),
      `${r.stats.hits}/${r.stats.misses}`,
      String(r.stats.entries),
      r.ms.toFixed(0)
    ])
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)))
    const line = (cells: ReadonlyArray<string>) =>
      cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
    console.log(line(header))
    console.log(line(widths.map((w) => "-".repeat(w))))
    for (const row of rows) console.log(line(row))
    const [first, second, third] = results
    console.log("")
    console.log(
      `pass 2 answered ${second!.cacheHits} of ${
        second!.compactions
      } compactions from the cache and called the summariser ${second!.summarizerCalls} times ` +
        `(pass 1: ${first!.summarizerCalls}); pass 3 hit ${
          third!.cacheHits
        } times (another model never reuses an entry)`
    )
  } finally {
    Fs.rmSync(dir, { recursive: true, force: true })
  }
}

main()
