import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CompactionPlan from "../../../../../../src/core/checkpoint/CompactionPlan.js"
import * as Ladder from "../../../../../../src/core/checkpoint/Ladder.js"
import type { CompactionError } from "../../../../../../src/face/engine/Checkpoint.js"
import * as Save from "../../../../../../src/face/engine/internal/checkpoint/Save.js"
import type * as Summarise from "../../../../../../src/face/engine/internal/checkpoint/Summarise.js"
import * as WorkingState from "../../../../../../src/face/engine/WorkingState.js"
import * as CompactionStoreMemory from "../../../../../../src/face/layers/CompactionStoreMemory.js"
import {
  CompactionState,
  CompactionStore,
  type Service as CompactionStoreService
} from "../../../../../../src/face/services/CompactionStore.js"
import { SummaryRequest } from "../../../../../../src/face/services/Summarizer.js"
import { ArchiveError } from "../../../../../../src/face/services/TranscriptArchive.js"
import type * as TranscriptArchive from "../../../../../../src/face/services/TranscriptArchive.js"
import * as Stages from "../../../../../support/Stages.js"
import * as Transcripts from "../../../../../transcripts.js"

const transcript = Transcripts.longSession
const { counted, fit, restored, plan } = Stages.planned(16_000, transcript)
const cuts = CompactionPlan.cutsOf({ count: Stages.count })
const summary = "## Primary request\nFix the importer.\n## Current work\nThe parser's cache."
const summarised: Summarise.Summarised<SummaryRequest> = {
  request: new SummaryRequest({
    model: "m",
    system: "s",
    prompt: "p",
    maxTokens: 100,
    agentic: false,
    namespace: "n",
    span: []
  }),
  ruleTotals: {},
  outcome: { _tag: "Summary", text: summary, cacheHit: false, calls: 1, gate: ["passed"] },
  summary
}

/** The save stage, as the engine runs it. */
const saveState = (
  store: CompactionStoreService,
  compaction: Parameters<typeof Save.save>[1]
): Effect.Effect<Save.Saved, CompactionError> => Save.save(store, compaction)

/** An archive that names each compaction's file, and fails its writes when told. */
const archiveService = (fails: boolean): TranscriptArchive.Service => ({
  locate: (entry) => `transcripts/${entry.sessionId}-${entry.compaction}.jsonl`,
  write: (entry) =>
    fails
      ? Effect.fail(
        new ArchiveError({
          sessionId: entry.sessionId,
          path: `transcripts/${entry.sessionId}-${entry.compaction}.jsonl`,
          reason: "disk full"
        })
      )
      : Effect.succeed(`transcripts/${entry.sessionId}-${entry.compaction}.jsonl`)
})

const saveWith = (archive: TranscriptArchive.Service | undefined) =>
  Effect.gen(function*() {
    const store = Context.get(yield* CompactionStoreMemory.make, CompactionStore)
    const compaction = { sessionId: "s", compactions: 1, renamed: undefined }
    const planned = Stages.planned(16_000, transcript, Save.locator(archive, compaction))
    const fitting = {
      plan: planned.plan,
      cuts: planned.cuts(),
      boundary: planned.plan.boundary!,
      summary,
      trimReason: undefined,
      counted: counted.counted,
      manual: false
    }
    const outcome = Ladder.fit(fitting, fit)
    if (outcome._tag !== "Fitted") throw new Error(`the session does not fit: ${outcome._tag}`)
    // As a checkpoint saves: the archive written, the view fitted to what it holds, then the state saved.
    const written = yield* Save.archiveOf(archive, { ...compaction, plan: planned.plan }).write(outcome.fitted.cut)
    const fitted = Ladder.afterArchive(fitting, fit, outcome.fitted, {
      archived: written !== "failed",
      targetAfter: counted.targetAfter
    })
    const saved = yield* saveState(store, {
      sessionId: "s",
      cause: "trigger",
      compactions: 1,
      transcript,
      prefix: restored.prefix,
      fit,
      fitted,
      workingState: WorkingState.fromData(CompactionPlan.workingStateAt(planned.plan, fitting.cuts, fitted.cut)),
      summarised,
      counted,
      repairs: []
    })
    return { store, saved, fitted, written }
  })

describe("Save.save", () => {
  it.effect("saves the state the report describes, naming the archive it wrote", () =>
    Effect.gen(function*() {
      const { saved, store } = yield* saveWith(archiveService(false))
      assert.strictEqual(saved._tag, "Saved")
      if (saved._tag !== "Saved") return
      const state = Option.getOrThrow(yield* store.load("s"))
      assert.strictEqual(state.compactions, 1)
      assert.strictEqual(state.boundaryId, transcript[saved.fitted.cut]!.id)
      assert.strictEqual(state.archivePath, "transcripts/s-1.jsonl")
      assert.deepStrictEqual(
        state.workingState,
        WorkingState.fromData(CompactionPlan.workingStateAt(plan, cuts, saved.fitted.cut))
      )
      assert.strictEqual(saved.report.archivePath, "transcripts/s-1.jsonl")
      assert.include(state.block.content, "transcripts/s-1.jsonl")
      assert.strictEqual(saved.report.fallback, "none")
      assert.strictEqual(saved.report.tokensAfter, saved.fitted.degraded.tokens + counted.overhead)
    }))

  it.effect("an archive that cannot be written costs the block its path, not the compaction", () =>
    Effect.gen(function*() {
      const { saved, store, written } = yield* saveWith(archiveService(true))
      assert.strictEqual(written, "failed")
      assert.strictEqual(saved._tag, "Saved")
      if (saved._tag !== "Saved") return
      const state = Option.getOrThrow(yield* store.load("s"))
      assert.isUndefined(state.archivePath)
      assert.isUndefined(saved.report.archivePath)
      assert.notInclude(saved.fitted.built.block.content, "transcripts/s-1.jsonl")
    }))

  it.effect("a state another worker saved first stands: the save gives it back instead of overwriting it", () =>
    Effect.gen(function*() {
      const store = Context.get(yield* CompactionStoreMemory.make, CompactionStore)
      const first = yield* saveWith(undefined)
      if (first.saved._tag !== "Saved") return assert.fail("the first save did not save")
      const winner = new CompactionState({
        sessionId: "s",
        compactions: 1,
        block: first.fitted.built.block,
        boundaryId: transcript[first.fitted.cut]!.id,
        pinnedIds: [],
        updatedAt: 0
      })
      yield* store.save(winner)
      const again = yield* saveState(store, {
        sessionId: "s",
        cause: "trigger",
        compactions: 1,
        transcript,
        prefix: restored.prefix,
        fit,
        fitted: first.fitted,
        workingState: WorkingState.fromData(CompactionPlan.workingStateAt(plan, cuts, first.fitted.cut)),
        summarised,
        counted,
        repairs: []
      })
      assert.strictEqual(again._tag, "Conflict")
      if (again._tag === "Conflict") assert.strictEqual(again.current.compactions, 1)
    }))
})
