/**
 * A program that runs the operations of `LayerScenario.ts` on the Effect 3 face's test layers and
 * prints their outcomes as one JSON document on stdout. The Effect 4 suite
 * (`test-effect4/test/layers.test.ts`) runs it, as a process of its own on this package's Effect 3,
 * and checks that the Effect 4 layers give the same outcomes for the same operations.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as RecallHandles from "../../src/core/services/RecallHandles.js"
import * as AttentionUnattended from "../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../src/face/layers/SettingsFixed.js"
import * as SummarizerScripted from "../../src/face/layers/SummarizerScripted.js"
import * as SummaryCacheMemory from "../../src/face/layers/SummaryCacheMemory.js"
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
import * as Scenario from "./LayerScenario.js"

const encodeSettings = Schema.encodeSync(Settings.CompactionSettings)
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

const current = Effect.flatMap(Settings.Settings, (settings) => settings.current)

const settings = Effect.gen(function*() {
  const fixed = yield* Effect.forEach(
    Scenario.fixedOverrides,
    (overrides) => Effect.provide(Effect.map(current, encodeSettings), SettingsFixed.layer(overrides))
  )
  const ref = yield* Effect.gen(function*() {
    const control = yield* SettingsFixed.SettingsControl
    return yield* Effect.forEach(
      Scenario.refChanges,
      (change) => Effect.zipRight(control.set(change), Effect.map(current, encodeSettings))
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
          onSuccess: (state) =>
            Option.isSome(state) ? Schema.encodeSync(CompactionStore.CompactionState)(state.value) : null,
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
  const stored = yield* Effect.flatMap(CompactionStoreMemory.MemoryStore, (memory) => memory.stored)
  return { outcomes, stored: Object.fromEntries([...stored].map(([id, text]) => [id, JSON.parse(text)])) }
}).pipe(Effect.provide(CompactionStoreMemory.layer))

const cache = Effect.gen(function*() {
  const service = yield* SummaryCache.SummaryCache
  const outcomes = yield* Effect.forEach(Scenario.cacheOperations, (operation) =>
    operation.op === "lookup"
      ? Effect.map(service.lookup(Scenario.cacheKeys[operation.key]), Option.getOrNull)
      : Effect.as(service.store(Scenario.cacheKeys[operation.key], operation.summary), "stored"))
  const stats = yield* Effect.flatMap(SummaryCacheMemory.MemoryCache, (memory) => memory.stats)
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

const counts = Effect.map(Tokenizer.Tokenizer, (tokenizer) => ({
  name: tokenizer.name,
  counts: Scenario.tokenizerTexts.map(tokenizer.count)
}))

const attention = Effect.gen(function*() {
  const unattended = yield* Effect.provide(
    Effect.flatMap(Attention.Attention, (service) => Effect.all([service.attended, service.choose("failed twice")])),
    AttentionUnattended.layer
  )
  const scripted = yield* Effect.gen(function*() {
    const service = yield* Attention.Attention
    const choices = yield* Effect.forEach(
      Array.from({ length: Scenario.attentionAsks }),
      (_, n) => service.choose(`problem ${n}`)
    )
    const problems = yield* Effect.flatMap(AttentionUnattended.ScriptedAttention, (inspection) => inspection.problems)
    return { attended: yield* service.attended, choices, problems }
  }).pipe(Effect.provide(AttentionUnattended.layerScripted(Scenario.attentionChoices)))
  return { unattended, scripted }
})

const program = Effect.all({
  summarizer,
  settings,
  store,
  cache,
  archive,
  approx: Effect.provide(counts, TokenizerApprox.layer),
  bpe: Effect.provide(counts, TokenizerBpe.layer),
  attention
})

process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
