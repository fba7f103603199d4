/**
 * The Effect 4 face's test layers (src/effect4/layers/): the same operations
 * (`test/support/LayerScenario.ts`) give the same outcomes as on the Effect 3
 * face's layers, printed by `test/support/Effect3Layers.ts` in a process of its
 * own; and the properties the Effect 3 layers are tested for hold here (the
 * store's compare-and-set, the script's and attention's order, the count).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as RecallHandles from "../../src/core/services/RecallHandles.js"
import * as AttentionUnattended from "../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../src/face/layers/CompactionStoreMemory.js"
import * as Production from "../../src/face/layers/Production.js"
import * as SettingsFixed from "../../src/face/layers/SettingsFixed.js"
import * as SummarizerScripted from "../../src/face/layers/SummarizerScripted.js"
import * as SummaryCacheMemory from "../../src/face/layers/SummaryCacheMemory.js"
import * as Testing from "../../src/face/layers/Testing.js"
import * as TokenizerApprox from "../../src/face/layers/TokenizerApprox.js"
import * as TokenizerBpe from "../../src/face/layers/TokenizerBpe.js"
import * as TranscriptArchiveMemory from "../../src/face/layers/TranscriptArchiveMemory.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Attention from "../../src/face/services/Attention.js"
import * as CompactionStore from "../../src/face/services/CompactionStore.js"
import * as Settings from "../../src/face/services/Settings.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import * as SummaryCache from "../../src/face/services/SummaryCache.js"
import * as Tokenizer from "../../src/face/services/Tokenizer.js"
import * as TranscriptArchive from "../../src/face/services/TranscriptArchive.js"
import * as Scenario from "../../test/support/LayerScenario.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

// The Effect 3 face's outcomes, from a process of its own on the package's Effect 3 (through tsx).
const effect3 = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Layers.ts"], {
    cwd: repository,
    encoding: "utf8"
  })
)

const encodeSettings = Schema.encodeSync(Settings.CompactionSettings)
const encodeState = Schema.encodeSync(CompactionStore.CompactionState)
const decodeState = Schema.decodeUnknownSync(CompactionStore.CompactionState)
const decodeMessages = Schema.decodeUnknownSync(Transcript.Transcript)

const summarizer = Effect.forEach(Scenario.summarizerRuns, (run) =>
  Effect.gen(function*() {
    const service = yield* Summarizer.Summarizer
    const request = Schema.decodeUnknownSync(Summarizer.SummaryRequest)(Scenario.request)
    const outcomes = yield* Effect.forEach(Array.from({ length: run.calls }), () =>
      Effect.match(service.summarize(request), {
        onSuccess: (text): unknown =>
          text,
        onFailure: (error) => ({ reason: error.reason, message: error.message })
      }))
    const scripted = yield* SummarizerScripted.ScriptedSummarizer
    return { outcomes, calls: yield* scripted.calls, requests: (yield* scripted.requests).length }
  }).pipe(
    Effect.provide(SummarizerScripted.layer(
      run.script.map((step) =>
        typeof step === "string" ? step : new Summarizer.SummarizerError(step)
      ),
      { whenExhausted: run.repeatLast ? "repeatLast" : "fail" }
    ))
  ))

const current = Effect.flatMap(Effect.service(Settings.Settings), (settings) => settings.current)

const settings = Effect.gen(function*() {
  const fixed = yield* Effect.forEach(
    Scenario.fixedOverrides,
    (overrides) => Effect.provide(Effect.map(current, encodeSettings), SettingsFixed.layer(overrides))
  )
  const ref = yield* Effect.gen(function*() {
    const control = yield* SettingsFixed.SettingsControl
    return yield* Effect.forEach(
      Scenario.refChanges,
      (change) => Effect.andThen(control.set(change), Effect.map(current, encodeSettings))
    )
  }).pipe(Effect.provide(SettingsFixed.layerRef))
  return { fixed, ref }
})

const store = Effect.gen(function*() {
  const service = yield* CompactionStore.CompactionStore
  const outcomes = yield* Effect.forEach(Scenario.storeOperations, (operation): Effect.Effect<unknown> => {
    switch (operation.op) {
      case "load":
        return Effect.match(service.load("s1"), {
          onSuccess: (state) => Option.isSome(state) ? encodeState(state.value) : null,
          onFailure: (error) => ({ error: error._tag })
        })
      case "save": {
        const state = decodeState(
          Scenario.stateOf(operation.compactions, operation.updatedAt === null ? Number.NaN : 5)
        )
        return Effect.match(service.save(state), {
          onSuccess: () => "saved",
          onFailure: (error) => ({ error: error._tag, reason: error.reason.split(":")[0] })
        })
      }
      case "saveIfCurrent":
        return Effect.match(
          service.saveIfCurrent(decodeState(Scenario.stateOf(operation.compactions)), operation.expected),
          {
            onSuccess: (outcome) => outcome._tag === "Saved" ? "Saved" : { Conflict: outcome.current.compactions },
            onFailure: (error) => ({ error: error._tag })
          }
        )
    }
  })
  const stored = yield* Effect.flatMap(Effect.service(CompactionStoreMemory.MemoryStore), (memory) => memory.stored)
  return { outcomes, stored: Object.fromEntries([...stored].map(([id, text]) => [id, JSON.parse(text)])) }
}).pipe(Effect.provide(CompactionStoreMemory.layer))

const cache = Effect.gen(function*() {
  const service = yield* SummaryCache.SummaryCache
  const outcomes = yield* Effect.forEach(Scenario.cacheOperations, (operation) =>
    operation.op === "lookup"
      ? Effect.map(service.lookup(Scenario.cacheKeys[operation.key]), Option.getOrNull)
      : Effect.as(service.store(Scenario.cacheKeys[operation.key], operation.summary), "stored"))
  const stats = yield* Effect.flatMap(Effect.service(SummaryCacheMemory.MemoryCache), (memory) => memory.stats)
  const digests = Object.values(Scenario.cacheKeys).map(SummaryCache.digest)
  return { outcomes, stats, digests }
}).pipe(Effect.provide(SummaryCacheMemory.layer))

const archive = Effect.gen(function*() {
  const service = yield* TranscriptArchive.TranscriptArchive
  const locations = yield* Effect.forEach(
    Scenario.archiveWrites,
    (entry) => service.write({ ...entry, messages: decodeMessages(entry.messages) })
  )
  const lookups = yield* Effect.forEach(
    Scenario.archiveWrites.flatMap((entry) =>
      entry.messages.map((message) =>
        [entry.sessionId, RecallHandles.handleOf(entry.sessionId, RecallHandles.textOf(message) ?? "")] as const
      )
    ),
    ([sessionId, handle]) =>
      Effect.map(service.lookup!(sessionId, handle), (found) => Option.getOrNull(Option.map(found, (m) => m.id)))
  )
  return { locations, lookups }
}).pipe(Effect.provide(TranscriptArchiveMemory.layer({ maxChars: Scenario.archiveMaxChars })))

const counts = Effect.map(Effect.service(Tokenizer.Tokenizer), (tokenizer) => ({
  name: tokenizer.name,
  counts: Scenario.tokenizerTexts.map(tokenizer.count)
}))

const attention = Effect.gen(function*() {
  const unattended = yield* Effect.provide(
    Effect.flatMap(
      Effect.service(Attention.Attention),
      (service) => Effect.all([service.attended, service.choose("failed twice")])
    ),
    AttentionUnattended.layer
  )
  const scripted = yield* Effect.gen(function*() {
    const service = yield* Attention.Attention
    const choices = yield* Effect.forEach(
      Array.from({ length: Scenario.attentionAsks }),
      (_, n) => service.choose(`problem ${n}`)
    )
    const problems = yield* Effect.flatMap(
      Effect.service(AttentionUnattended.ScriptedAttention),
      (inspection) => inspection.problems
    )
    return { attended: yield* service.attended, choices, problems }
  }).pipe(Effect.provide(AttentionUnattended.layerScripted(Scenario.attentionChoices)))
  return { unattended, scripted }
})

const stateWith = (compactions: number) =>
  new CompactionStore.CompactionState({
    sessionId: "s1",
    compactions,
    block: new Transcript.CompactedBlock({ id: "b", content: "sum", firstReplacedId: "m1", lastReplacedId: "m9" }),
    boundaryId: "m10",
    updatedAt: 5
  })

describe("the test layers on Effect 4", () => {
  it.effect("give the outcomes the Effect 3 face's layers give for the same operations", () =>
    Effect.gen(function*() {
      const effect4 = yield* Effect.all({
        summarizer,
        settings,
        store,
        cache,
        archive,
        approx: Effect.provide(counts, TokenizerApprox.layer),
        bpe: Effect.provide(counts, TokenizerBpe.layer),
        attention
      })
      for (const part of Object.keys(effect4) as Array<keyof typeof effect4>) {
        assert.deepStrictEqual(JSON.parse(JSON.stringify(effect4[part])), effect3[part], part)
      }
      // What the Effect 3 answers say, in words: the archive's bound forgets s1 once s2 is written.
      assert.deepStrictEqual(effect4.archive.lookups, [null, null, "u2"])
      assert.deepStrictEqual(effect4.attention.scripted.choices, ["retry", "retry", "trim", "trim"])
    }))

  it.effect.prop(
    "a versioned save is saved exactly when nothing is stored or the stored state has the expected compactions",
    [Schema.Array(
      Schema.Tuple([
        Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 })),
        Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 }))
      ])
    )],
    ([saves]) =>
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        let stored: number | undefined
        for (const [compactions, expected] of saves) {
          const outcome = yield* store.saveIfCurrent(stateWith(compactions), expected)
          if (stored === undefined || stored === expected) {
            assert.strictEqual(outcome._tag, "Saved")
            stored = compactions
          } else {
            assert.isTrue(outcome._tag === "Conflict" && outcome.current.compactions === stored)
          }
        }
        const loaded = yield* store.load("s1")
        assert.strictEqual(Option.getOrUndefined(Option.map(loaded, (state) => state.compactions)), stored)
      }).pipe(Effect.provide(CompactionStoreMemory.layer))
  )

  it.effect.prop(
    "the scripted summariser answers step n at call n while the script lasts, then fails unavailable",
    [Schema.Array(Schema.String), Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 }))],
    ([script, extra]) =>
      Effect.gen(function*() {
        const service = yield* Summarizer.Summarizer
        const request = Schema.decodeUnknownSync(Summarizer.SummaryRequest)(Scenario.request)
        const results = yield* Effect.forEach(
          Array.from({ length: script.length + extra }),
          () => Effect.result(service.summarize(request))
        )
        results.forEach((result, n) => {
          const step = script[n]
          if (step === undefined) assert.isTrue(Result.isFailure(result) && result.failure.reason === "unavailable")
          else assert.isTrue(Result.isSuccess(result) && result.success === step)
        })
      }).pipe(Effect.provide(SummarizerScripted.layer(script)))
  )

  it.effect.prop(
    "scripted attention answers choice n while the choices last, then trim, and records every problem",
    [Schema.Array(Attention.Choice), Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 5 }))],
    ([choices, extra]) =>
      Effect.gen(function*() {
        const service = yield* Attention.Attention
        const problems = Array.from({ length: choices.length + extra }, (_, n) => `problem ${n}`)
        const answers = yield* Effect.forEach(problems, service.choose)
        assert.deepStrictEqual(answers, [...choices, ...Array.from({ length: extra }, () => "trim")])
        const scripted = yield* AttentionUnattended.ScriptedAttention
        assert.deepStrictEqual(yield* scripted.problems, problems)
      }).pipe(Effect.provide(AttentionUnattended.layerScripted(choices)))
  )

  it.prop("the approximate count is ceil(length / 4) and adds up within one token per concatenation", [
    Schema.String,
    Schema.String
  ], ([a, b]) => {
    assert.strictEqual(TokenizerApprox.count(a), Math.ceil(a.length / 4))
    const joined = TokenizerApprox.count(a + b)
    assert.isAtMost(joined, TokenizerApprox.count(a) + TokenizerApprox.count(b))
    assert.isAtLeast(joined, TokenizerApprox.count(a) + TokenizerApprox.count(b) - 1)
  })

  it.effect("Testing.layer gives every service the engine needs, the settings overridden and clamped", () =>
    Effect.gen(function*() {
      const settings = yield* current
      assert.strictEqual(settings.keepFraction, 0.2)
      assert.strictEqual(settings.triggerPct, 95)
      assert.strictEqual((yield* Tokenizer.Tokenizer).name, "chars/4")
      assert.isFalse(yield* (yield* Attention.Attention).attended)
      assert.isTrue(Option.isNone(yield* (yield* CompactionStore.CompactionStore).load("s1")))
      assert.deepStrictEqual(yield* (yield* SummaryCacheMemory.MemoryCache).stats, { hits: 0, misses: 0, entries: 0 })
      assert.strictEqual(
        yield* (yield* Summarizer.Summarizer).summarize(
          Schema.decodeUnknownSync(Summarizer.SummaryRequest)(Scenario.request)
        ),
        "s"
      )
    }).pipe(Effect.provide(Testing.layer({
      summarizer: SummarizerScripted.layer(["s"]),
      settings: { keepFraction: 0.2, triggerPct: 300 }
    }))))

  it.effect("Production.layerMemory gives the o200k_base tokenizer, the memory archive and the code's settings", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* Tokenizer.Tokenizer).name, "o200k_base")
      assert.strictEqual((yield* current).triggerPct, 70)
      const archive = yield* TranscriptArchive.TranscriptArchive
      const messages = [new Transcript.UserMessage({ id: "u1", content: "Fix the parser." })]
      const where = yield* archive.write({ sessionId: "s1", compaction: 1, messages })
      assert.strictEqual(where, TranscriptArchiveMemory.locate({ sessionId: "s1", compaction: 1, messages }))
      const found = yield* archive.lookup!("s1", RecallHandles.handleOf("s1", "Fix the parser."))
      assert.strictEqual(Option.getOrUndefined(Option.map(found, (message) => message.id)), "u1")
    }).pipe(Effect.provide(Production.layerMemory({ values: { triggerPct: 70 } }))))
})
