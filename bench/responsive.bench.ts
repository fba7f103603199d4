/**
 * Responsiveness of the engine: how long the event loop is blocked while one
 * compacting checkpoint of a 50,000-message session runs, and what it costs.
 *
 * The session is the recorded agent runs of `../shared/transcripts` (or
 * `CONTEXT_COMPRESSOR_TRANSCRIPTS`) laid end to end, their ids renumbered,
 * until it has 50,000 messages; without them, the deterministic sessions of
 * `bench/sessions.ts`. The engine is the server's: the BPE tokenizer, the
 * offline summariser, memory stores, a 128,000-token window.
 *
 * Two engines in the same run: the baseline never yields (`sliceMs:
 * Infinity`, and the offline summariser called in one go, as before the
 * engine paused), the default one yields to the event loop after every ~10 ms
 * of work (`Compactor.defaultSliceMs`; the offline summariser pauses too). For each: the longest stall of the event
 * loop during the checkpoint (a 1 ms `setInterval` probe: the longest gap
 * between its ticks, and `perf_hooks.monitorEventLoopDelay`'s max, which
 * misses a stall that starts before its first sample, as the baseline's
 * does), the number of probe ticks during the checkpoint, and its total time; the ratios are of
 * the yielding engine to the baseline. A small checkpoint (1,000 messages)
 * is timed the same way, to show the yields cost it nothing measurable.
 *
 * Run: `npx tsx bench/responsive.bench.ts` (`--messages N` for another length,
 * `--runs N` for more samples; medians are printed).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { monitorEventLoopDelay } from "node:perf_hooks"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as AttentionUnattended from "../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerBpe from "../src/face/layers/TokenizerBpe.js"
import * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import { argValue } from "./generate.js"
import { sessionOf } from "./recorded.js"
import { elapsedMs, formatCount, formatMs, median, now, printTable, probeLoop } from "./timing.js"

const messages = Number(argValue("--messages") ?? "50000") || 50_000
const runs = Number(argValue("--runs") ?? "3") || 3
const contextWindow = 128_000

/** The offline summariser as it was before it paused: one synchronous call. */
const offlineInOneGo: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(Summarizer.Summarizer, {
  summarize: (request) => Effect.sync(() => SummarizerOffline.summarize(request.span, request.instructions))
})

/** The baseline (`Infinity`): an engine that never yields over the summariser in one go; else the engine and summariser as shipped. */
const makeEngine = (sliceMs: number): Promise<Compactor.Service> =>
  Effect.runPromise(
    Layer.build(
      Compactor.layer({ policies: builtInPolicies, sliceMs }).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            Number.isFinite(sliceMs) ? SummarizerOffline.layer : offlineInOneGo,
            SummaryCacheMemory.layer,
            CompactionStoreMemory.layer,
            SettingsFixed.layer({}),
            TokenizerBpe.layer,
            AttentionUnattended.layer
          )
        )
      )
    ).pipe(Effect.map((context) => Context.get(context, Compactor.Compactor)), Effect.scoped)
  )

interface Sample {
  readonly totalMs: number
  readonly longestGapMs: number
  readonly delayMaxMs: number
  readonly ticks: number
  readonly compacted: boolean
}

/** One checkpoint on a fresh engine (every message counted anew), with the event loop probed meanwhile. */
const measure = async (sliceMs: number, transcript: Transcript.Transcript): Promise<Sample> => {
  const engine = await makeEngine(sliceMs)
  const histogram = monitorEventLoopDelay({ resolution: 1 })
  // The probe's first tick is waited for, so that the gap measured is the checkpoint's.
  const probe = await probeLoop()
  histogram.enable()
  probe.reset()
  const start = now()
  const outcome = await Effect.runPromise(
    Effect.either(engine.checkpoint({ sessionId: "bench", transcript, model: "bench-model", contextWindow }))
  )
  const totalMs = elapsedMs(start)
  // Read at once: the longest gap and the ticks the probe got while the checkpoint ran.
  const { longestGapMs, ticks: ticksDuring } = probe.read()
  // The histogram records a stall when the loop next turns: it is read after that.
  await new Promise((resolve) => setTimeout(resolve, 5))
  probe.stop()
  histogram.disable()
  if (Either.isLeft(outcome)) throw new Error(`checkpoint failed: ${outcome.left.reason}: ${outcome.left.message}`)
  return {
    totalMs,
    longestGapMs,
    delayMaxMs: histogram.max / 1e6,
    ticks: ticksDuring,
    compacted: outcome.right.compacted._tag === "Some"
  }
}

const summarise = (samples: ReadonlyArray<Sample>) => ({
  totalMs: median(samples.map((s) => s.totalMs)),
  longestGapMs: median(samples.map((s) => s.longestGapMs)),
  delayMaxMs: median(samples.map((s) => s.delayMaxMs)),
  ticks: median(samples.map((s) => s.ticks)),
  compacted: samples.every((s) => s.compacted)
})

const main = async () => {
  const large = sessionOf(messages)
  const small = sessionOf(1_000)
  const chars = large.transcript.reduce((n, m) => n + Transcript.text(m).length, 0)
  console.log(
    `context-compressor responsiveness: one compacting checkpoint of ${
      formatCount(large.transcript.length)
    } messages (${formatCount(chars)} characters; ${large.source}), window ${
      formatCount(contextWindow)
    }, BPE tokenizer, offline summariser; ${runs} runs each, medians`
  )
  const rows: Array<Array<string>> = []
  for (
    const [label, transcript] of [[`${formatCount(large.transcript.length)} messages`, large.transcript], [
      "1,000 messages",
      small.transcript
    ]] as const
  ) {
    const baseline: Array<Sample> = []
    const yielding: Array<Sample> = []
    // Interleaved, so that a slower moment of the machine falls on both.
    for (let run = 0; run < runs; run++) {
      baseline.push(await measure(Number.POSITIVE_INFINITY, transcript))
      yielding.push(await measure(Compactor.defaultSliceMs, transcript))
    }
    const before = summarise(baseline)
    const after = summarise(yielding)
    rows.push([
      label,
      "never yields (baseline)",
      formatMs(before.longestGapMs),
      formatMs(before.delayMaxMs),
      formatCount(before.ticks),
      formatMs(before.totalMs),
      "1.00x",
      String(before.compacted)
    ])
    rows.push([
      label,
      `yields every ${Compactor.defaultSliceMs} ms`,
      formatMs(after.longestGapMs),
      formatMs(after.delayMaxMs),
      formatCount(after.ticks),
      formatMs(after.totalMs),
      `${(after.totalMs / before.totalMs).toFixed(2)}x`,
      String(after.compacted)
    ])
  }
  printTable([
    "session",
    "engine",
    "longest stall ms",
    "loop delay max ms",
    "probe ticks",
    "total ms",
    "time ratio",
    "compacted"
  ], rows)
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
