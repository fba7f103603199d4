/**
 * Compaction engine benchmark, over deterministic agent sessions
 * (bench/sessions.ts):
 *
 * 1. A checkpoint that does not compact, repeated on the same session (token
 *    counts cached by the previous checkpoint, as in a running agent), at 100,
 *    1,000 and 10,000 messages: (a) a session never compacted, whose view is
 *    its whole history, in a 2M-token window; (b) a session whose view is
 *    bounded by compaction (window 25,000: trigger 20,000, so that even 100
 *    messages compact), the history growing behind it. Target: the cost does
 *    not grow with the history.
 * 2. A whole session of 10,000 messages checkpointed after every message, on
 *    one engine with the offline summariser (window 75,000: trigger 60,000):
 *    total time, compactions, mean time of the checkpoints that compact and
 *    of those that do not.
 * 3. One compacting checkpoint with a summariser that answers a fixed summary
 *    at once (fresh engine, store and message objects each time), against
 *    `JSON.stringify(JSON.parse(text))` of the transcript's JSON text, at
 *    1,000 and 10,000 messages. Target: at most 3x the baseline.
 *
 * Run: `npm run -s bench` runs this after the reduction bench; alone:
 * `npx tsx --expose-gc bench/compaction.bench.ts` (add `--case 3` to run one
 * case, `--budget 2` to scale the time spent per measurement). With
 * `--expose-gc`, garbage is collected outside the timed runs of case 1
 * ('rebuilt'), and case 3 is measured twice: with the collector left to run
 * when it will, and with a full collection before every timed sample; without
 * it, the bench runs all the same (case 3 once).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Compactor from "../src/face/engine/Compactor.js"
import * as QualityGate from "../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../src/face/engine/SummaryPrompt.js"
import * as AttentionUnattended from "../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../src/face/layers/TokenizerApprox.js"
import * as Transcript from "../src/face/models/Transcript.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Summarizer from "../src/face/services/Summarizer.js"
import { argValue } from "./generate.js"
import * as Sessions from "./sessions.js"
import { elapsedMs, formatCount, formatMs, gc, median, now, printTable } from "./timing.js"

// --- arguments -------------------------------------------------------------

const onlyCase = argValue("--case")
const reuseMessages = process.argv.includes("--reuse-messages")
const budgetFactor = Number(argValue("--budget") ?? "1") || 1

// --- timing ----------------------------------------------------------------

let sink = 0

const mean = (
  values: ReadonlyArray<number>
): number => (values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length)

// --- the engine ------------------------------------------------------------

/** Settings of a window: the trigger is min(pct × window, cap). */
interface Window {
  readonly contextWindow: number
  readonly settings: SettingsFixed.Overrides
}

/** Never compacts below 2,000,000 tokens: pct 95 of 2.2M, capped at 2M. */
const hugeWindow: Window = { contextWindow: 2_200_000, settings: { triggerPct: 95, capTokens: 2_000_000 } }

/** Compacts past 60,000 tokens (80 % of 75,000), keeping 18,000 verbatim. */
const smallWindow: Window = { contextWindow: 75_000, settings: {} }

/** Compacts past 20,000 tokens (80 % of 25,000), keeping 6,000 verbatim: sessions of 100 messages compact too. */
const tinyWindow: Window = { contextWindow: 25_000, settings: {} }

/** The engine, and the length of the JSON text its memory store keeps for a session. */
type Engine = Compactor.Service & { readonly storedChars: (sessionId: string) => number }

/** A summary that passes the quality gate: the eight headings, a line under each, over 400 characters. */
const fixedSummary = SummaryPrompt.generalSections
  .map((heading) =>
    `${heading}\n${heading.replace(/^## /, "")}: the bench's fixed summary line for this section, long enough to count.`
  )
  .join("\n\n")

if (Either.isLeft(QualityGate.check(fixedSummary, { agentic: true }))) {
  throw new Error("the fixed summary does not pass the quality gate")
}

/** A summariser that answers the fixed summary at once. */
const instantSummarizer: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(Summarizer.Summarizer, {
  summarize: () => Effect.succeed(fixedSummary)
})

/** A fresh engine with fresh memory store and cache. */
const makeEngine = (window: Window, summarizer: Layer.Layer<Summarizer.Summarizer> = SummarizerOffline.layer): Engine =>
  Effect.runSync(
    Layer.build(
      Compactor.layer({ policies: builtInPolicies }).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            summarizer,
            SummaryCacheMemory.layer,
            CompactionStoreMemory.layer,
            SettingsFixed.layer(window.settings),
            TokenizerApprox.layer,
            AttentionUnattended.layer
          )
        )
      )
    ).pipe(
      Effect.map((context): Engine => {
        const compactor = Context.get(context, Compactor.Compactor)
        const memory = Context.get(context, CompactionStoreMemory.MemoryStore)
        return Object.assign(compactor, {
          storedChars: (sessionId: string) => Effect.runSync(memory.stored).get(sessionId)?.length ?? 0
        })
      }),
      Effect.scoped
    )
  )

const checkpoint = (
  engine: Engine,
  window: Window,
  transcript: Transcript.Transcript,
  sessionId = "bench"
): Compactor.Checkpoint => {
  const outcome = Effect.runSync(
    Effect.either(
      engine.checkpoint({ sessionId, transcript, model: "bench-model", contextWindow: window.contextWindow })
    )
  )
  if (Either.isLeft(outcome)) throw new Error(`checkpoint failed: ${outcome.left.reason}: ${outcome.left.message}`)
  return outcome.right
}

/** The same messages as new objects with the same ids, as a caller that rebuilds its messages at every checkpoint hands them. */
const rebuilt = (transcript: Transcript.Transcript): Transcript.Transcript =>
  transcript.map((message) =>
    Object.assign(Object.create(Object.getPrototypeOf(message) as object) as Transcript.Message, message)
  )

const sessionCache = new Map<string, Transcript.Transcript>()
const sessionOf = (length: number, profile: Sessions.Profile): Transcript.Transcript => {
  const key = `${profile.name}/${length}`
  let cached = sessionCache.get(key)
  if (cached === undefined) {
    cached = Sessions.session(length, profile)
    sessionCache.set(key, cached)
  }
  return cached
}

const sizes = [100, 1_000, 10_000] as const

// --- case 1: a checkpoint that does not compact -----------------------------

interface Case1Row {
  readonly label: string
  readonly messages: number
  readonly firstMs: number
  readonly firstCompacted: boolean
  readonly viewMessages: number
  readonly viewTokens: number
  readonly stateChars: number
  readonly repeatMs: number
  readonly rebuiltMs: number
  readonly samples: number
}

const case1 = (label: string, profile: Sessions.Profile, window: Window): ReadonlyArray<Case1Row> => {
  interface Subject {
    readonly size: number
    readonly engine: Engine
    readonly transcript: Transcript.Transcript
    readonly firstMs: number
    readonly first: Compactor.Checkpoint
    readonly reps: number
    readonly repeat: Array<number>
    readonly rebuilt: Array<number>
  }
  const subjects: Array<Subject> = sizes.map((size) => {
    const transcript = sessionOf(size, profile)
    const engine = makeEngine(window)
    const start = now()
    const first = checkpoint(engine, window, transcript)
    const firstMs = elapsedMs(start)
    // The state now read at every checkpoint is the one the first wrote; warm up, then size a batch to about 4 ms.
    for (let i = 0; i < 20; i++) checkpoint(engine, window, transcript)
    const one = now()
    const again = checkpoint(engine, window, transcript)
    if (Option.isSome(again.compacted)) {
      throw new Error(`case 1 ${label}: the repeat checkpoint at ${size} messages compacted`)
    }
    const reps = Math.min(Math.max(Math.ceil(4 / Math.max(elapsedMs(one), 1e-3)), 1), 4000)
    return { size, engine, transcript, firstMs, first, reps, repeat: [], rebuilt: [] }
  })
  // Round robin over the sizes, alternating the order, so drift hits them alike.
  const rounds = (budgetMs: number, sample: (s: Subject) => void): void => {
    const started = performance.now()
    for (let round = 0; round < 41 && (round < 9 || performance.now() - started < budgetMs * budgetFactor); round++) {
      for (const s of round % 2 === 0 ? subjects : [...subjects].reverse()) sample(s)
    }
  }
  rounds(1000, (s) => {
    const start = now()
    for (let i = 0; i < s.reps; i++) sink += checkpoint(s.engine, window, s.transcript).tokens
    s.repeat.push(elapsedMs(start) / s.reps)
  })
  // The same messages as new objects: counted again by id, not by object.
  rounds(1000, (s) => {
    const copies = Array.from({ length: s.reps }, () => rebuilt(s.transcript))
    // The copies are live through the batch: collected first, so that no scavenge during it has to move them.
    gc?.()
    const start = now()
    for (const copy of copies) sink += checkpoint(s.engine, window, copy).tokens
    s.rebuilt.push(elapsedMs(start) / s.reps)
  })
  return subjects.map((s) => ({
    label,
    messages: s.size,
    firstMs: s.firstMs,
    firstCompacted: Option.isSome(s.first.compacted),
    viewMessages: s.first.view.length,
    viewTokens: s.first.tokens,
    stateChars: s.engine.storedChars("bench"),
    repeatMs: median(s.repeat),
    rebuiltMs: median(s.rebuilt),
    samples: s.repeat.length
  }))
}

// --- case 2: a whole session, a checkpoint after every message ---------------

interface Case2Result {
  readonly messages: number
  readonly totalMs: number
  readonly checkpoints: number
  readonly compactions: number
  readonly fallbacks: number
  readonly plainMs: ReadonlyArray<{ readonly at: number; readonly ms: number }>
  readonly compactMs: ReadonlyArray<{ readonly at: number; readonly ms: number }>
  readonly maxViewTokens: number
}

const case2 = (length: number): Case2Result => {
  const transcript = sessionOf(length, Sessions.realistic)
  const engine = makeEngine(smallWindow)
  const live: Array<Transcript.Message> = []
  const plainMs: Array<{ at: number; ms: number }> = []
  const compactMs: Array<{ at: number; ms: number }> = []
  let fallbacks = 0
  let maxViewTokens = 0
  const started = now()
  for (const message of transcript) {
    // One growing array, as a running agent appends to its history.
    live.push(message)
    const start = now()
    const result = checkpoint(engine, smallWindow, live, "session")
    const ms = elapsedMs(start)
    maxViewTokens = Math.max(maxViewTokens, result.tokens)
    if (Option.isSome(result.compacted)) {
      compactMs.push({ at: live.length, ms })
      if (result.compacted.value.fallback !== "none") fallbacks++
    } else {
      plainMs.push({ at: live.length, ms })
    }
  }
  return {
    messages: length,
    totalMs: elapsedMs(started),
    checkpoints: transcript.length,
    compactions: compactMs.length,
    fallbacks,
    plainMs,
    compactMs,
    maxViewTokens
  }
}

// --- case 3: one compaction without the summariser, against JSON ------------

interface Case3Row {
  readonly forcedGc: boolean
  readonly messages: number
  readonly jsonChars: number
  readonly baselineMs: number
  readonly compactMs: number
  readonly samples: number
  readonly replaced: number
  readonly fallback: string
  readonly blockChars: number
}

const case3 = (
  length: number,
  minSamples: number,
  maxSamples: number,
  budgetMs: number,
  forceGc: boolean
): Case3Row => {
  const transcript = sessionOf(length, Sessions.realistic)
  // The baseline's input: the transcript's messages as JSON text.
  const text = JSON.stringify(transcript)
  const baseline = (): number => JSON.stringify(JSON.parse(text)).length
  let last: Compactor.Checkpoint | undefined
  const collect = (): void => {
    if (forceGc) gc?.()
  }
  // Each sample is a new session: a fresh engine and store, and fresh message objects (the same seeded
  // messages made again, untimed), so that no memo keyed by a message object carries over from the sample
  // before. `--reuse-messages` times the same objects every sample, as this bench did before 2026-12-04.
  let untimedMs = 0
  const compactOnce = (): number => {
    const made = performance.now()
    const messages = reuseMessages ? transcript : Sessions.session(length, Sessions.realistic)
    const engine = makeEngine(smallWindow, instantSummarizer)
    untimedMs += performance.now() - made
    collect()
    const start = now()
    last = checkpoint(engine, smallWindow, messages)
    return elapsedMs(start)
  }
  const baselineOnce = (): number => {
    collect()
    const start = now()
    sink += baseline()
    return elapsedMs(start)
  }
  // Warm-up.
  compactOnce()
  baselineOnce()
  baselineOnce()
  const baselineSamples: Array<number> = []
  const compactSamples: Array<number> = []
  const started = performance.now()
  while (
    compactSamples.length < minSamples ||
    (compactSamples.length < maxSamples && performance.now() - started - untimedMs < budgetMs * budgetFactor)
  ) {
    // Interleaved, alternating which goes first.
    if (compactSamples.length % 2 === 0) {
      baselineSamples.push(baselineOnce())
      compactSamples.push(compactOnce())
    } else {
      compactSamples.push(compactOnce())
      baselineSamples.push(baselineOnce())
    }
  }
  const compacted = Option.getOrThrowWith(
    last!.compacted,
    () => new Error(`case 3: no compaction at ${length} messages`)
  )
  const block = last!.view.find((message) => message._tag === "Compacted")
  return {
    forcedGc: forceGc,
    messages: length,
    jsonChars: text.length,
    baselineMs: median(baselineSamples),
    compactMs: median(compactSamples),
    samples: compactSamples.length,
    replaced: compacted.replaced.count,
    fallback: compacted.fallback,
    blockChars: block?.content.length ?? 0
  }
}

// --- main ------------------------------------------------------------------

const selected = (n: string): boolean => onlyCase === undefined || onlyCase === n

const main = (): void => {
  const startedAt = performance.now()
  console.log(
    `context-compressor compaction benchmark: node ${process.version}, ${process.platform}/${process.arch}, tokenizer chars/4, policies builtInPolicies`
  )
  console.log(
    "sessions: bench/sessions.ts (seeded); times are medians of interleaved samples after warm-up unless said otherwise"
  )
  console.log("")

  if (selected("1")) {
    process.stderr.write("  case 1: checkpoints that do not compact\n")
    const rows = [
      ...case1("a: never compacted, view = history, 2M window", Sessions.small, hugeWindow),
      ...case1("b: compacted, view bounded, trigger 20,000", Sessions.realistic, tinyWindow)
    ]
    console.log(
      "1. A checkpoint that does not compact, repeated on the same session (counts cached by the previous checkpoint)"
    )
    console.log(
      "   a: results 200-750 chars, trigger 2,000,000, never compacted; b: results 200-4,000 chars, trigger 20,000 (window 25,000), the first checkpoint compacts"
    )
    console.log(
      "   'state chars' = the JSON text of the persisted compaction state, which every checkpoint loads and decodes"
    )
    console.log(
      "   'rebuilt' = the same repeat checkpoint given new message objects with the same ids (counts found by id)"
    )
    console.log("")
    printTable(
      [
        "session",
        "messages",
        "first ms",
        "first compacted",
        "view msgs",
        "view tokens",
        "state chars",
        "repeat ms",
        "per view msg",
        "rebuilt ms",
        "samples"
      ],
      rows.map((r) => [
        r.label.slice(0, 1),
        formatCount(r.messages),
        formatMs(r.firstMs),
        r.firstCompacted ? "yes" : "no",
        formatCount(r.viewMessages),
        formatCount(r.viewTokens),
        formatCount(r.stateChars),
        formatMs(r.repeatMs),
        (r.repeatMs * 1000 / r.viewMessages).toFixed(2) + "µs",
        formatMs(r.rebuiltMs),
        String(r.samples)
      ])
    )
    console.log("")
    for (const label of ["a", "b"]) {
      const group = rows.filter((r) => r.label.startsWith(label))
      const [small, middle, large] = [100, 1_000, 10_000].map((n) => group.find((r) => r.messages === n)!)
      const ratio = large!.repeatMs / small!.repeatMs
      const verdict = label === "b"
        ? ratio <= 1.5
          ? "within the target: it does not grow with the history"
          : `MISSES the target: it grows with the history (the persisted state grew ${
            (large!.stateChars / small!.stateChars).toFixed(1)
          }x)`
        : `the view grew ${(large!.viewMessages / small!.viewMessages).toFixed(0)}x with the history`
      console.log(
        `   ${group[0]!.label}: repeat checkpoint 10,000/100 = ${ratio.toFixed(2)}x (10,000/1,000 = ${
          (large!.repeatMs / middle!.repeatMs).toFixed(2)
        }x; rebuilt 10,000/100 = ${(large!.rebuiltMs / small!.rebuiltMs).toFixed(2)}x): ${verdict}`
      )
    }
    console.log("")
  }

  if (selected("2")) {
    process.stderr.write("  case 2: a session of 10,000 messages, a checkpoint after each\n")
    const r = case2(10_000)
    console.log(
      "2. A session of 10,000 messages checkpointed after every message (one engine, offline summariser, trigger 60,000, growing prefix)"
    )
    console.log("")
    printTable(
      [
        "messages",
        "total s",
        "checkpoints",
        "compactions",
        "trim fallbacks",
        "plain mean ms",
        "plain median ms",
        "compacting mean ms",
        "compacting median ms",
        "max view tokens"
      ],
      [[
        formatCount(r.messages),
        (r.totalMs / 1000).toFixed(2),
        formatCount(r.checkpoints),
        formatCount(r.compactions),
        formatCount(r.fallbacks),
        formatMs(mean(r.plainMs.map((c) => c.ms))),
        formatMs(median(r.plainMs.map((c) => c.ms))),
        formatMs(mean(r.compactMs.map((c) => c.ms))),
        formatMs(median(r.compactMs.map((c) => c.ms))),
        formatCount(r.maxViewTokens)
      ]]
    )
    console.log("")
    console.log("   by history length at the checkpoint:")
    const quarters = [0, 2_500, 5_000, 7_500, 10_000]
    printTable(
      ["history", "compactions", "compacting mean ms", "plain mean ms", "time in compactions s"],
      quarters.slice(1).map((high, i) => {
        const low = quarters[i]!
        const inRange = r.compactMs.filter((c) => c.at > low && c.at <= high)
        const plain = r.plainMs.filter((c) => c.at > low && c.at <= high)
        return [
          `${formatCount(low + 1)}-${formatCount(high)}`,
          String(inRange.length),
          formatMs(mean(inRange.map((c) => c.ms))),
          formatMs(mean(plain.map((c) => c.ms))),
          (inRange.reduce((a, c) => a + c.ms, 0) / 1000).toFixed(2)
        ]
      })
    )
    console.log("")
  }

  if (selected("3")) {
    process.stderr.write("  case 3: one compaction with an instant summariser, against JSON\n")
    const rows = [
      case3(1_000, 9, 41, 2500, false),
      case3(10_000, 5, 15, 8000, false),
      ...(gc === undefined ? [] : [case3(1_000, 9, 41, 2500, true), case3(10_000, 5, 15, 8000, true)])
    ]
    console.log(
      "3. One compacting checkpoint, summariser answering a fixed summary at once (fresh engine, store and message objects each time),"
    )
    console.log(
      "   against JSON.stringify(JSON.parse(text)) of the transcript's messages as JSON text; trigger 60,000. Target: ratio <= 3"
    )
    console.log(
      "   'GC' = natural: the collector runs when it will, as in a running agent; forced: a full collection before every"
    )
    console.log(
      "   timed sample of both (with --expose-gc); the compaction right after a forced collection runs markedly slower"
    )
    console.log("")
    printTable(
      [
        "GC",
        "messages",
        "JSON chars",
        "baseline ms",
        "compaction ms",
        "ratio",
        "replaced msgs",
        "fallback",
        "block chars",
        "samples"
      ],
      rows.map((r) => [
        r.forcedGc ? "forced" : "natural",
        formatCount(r.messages),
        formatCount(r.jsonChars),
        formatMs(r.baselineMs),
        formatMs(r.compactMs),
        (r.compactMs / r.baselineMs).toFixed(2),
        formatCount(r.replaced),
        r.fallback,
        formatCount(r.blockChars),
        String(r.samples)
      ])
    )
    console.log("")
    const over = rows.filter((r) => r.compactMs / r.baselineMs > 3)
    console.log(
      over.length === 0
        ? "   every size within the target ratio of 3"
        : `   over the target ratio of 3: ${
          over.map((r) =>
            `${formatCount(r.messages)} messages, GC ${r.forcedGc ? "forced" : "natural"} (${
              (r.compactMs / r.baselineMs).toFixed(2)
            })`
          ).join(", ")
        }`
    )
    console.log("")
  }
  console.log(`total ${((performance.now() - startedAt) / 1000).toFixed(1)} s (checksum ${sink % 997})`)
}

main()
