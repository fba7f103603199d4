import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as WorkingStateInternal from "../../../../src/core/working-state/WorkingState.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Cooperative from "../../../../src/face/engine/internal/Cooperative.js"
import * as WorkingState from "../../../../src/face/engine/WorkingState.js"
import * as AttentionUnattended from "../../../../src/face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../../../src/face/layers/CompactionStoreMemory.js"
import * as SettingsFixed from "../../../../src/face/layers/SettingsFixed.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as SummaryCacheMemory from "../../../../src/face/layers/SummaryCacheMemory.js"
import * as TokenizerApprox from "../../../../src/face/layers/TokenizerApprox.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import { effectProp, prop } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

// Long enough that a checkpoint does far more than one slice of work.
const large = Generated.fromTurns(
  Array.from({ length: 2_500 }, (_, i) => ({
    user: `request ${i}: please fix the parser cache and rerun the tests of module ${i % 40}`,
    steps: [[
      {
        name: "bash",
        args: JSON.stringify({ command: `sed -i 's/old/new/' src/mod${i % 40}/parser.ts && npm test` }),
        result: `<returncode>${i % 3 === 0 ? 1 : 0}</returncode>\n<output>\n${
          "FAIL test/parser.test.ts > parses the header\n".repeat(i % 3 === 0 ? 3 : 0)
        }${"ok line of output\n".repeat(30)}</output>`
      }
    ]],
    reply: `The fix of step ${i} is in place. Next I'll check the cache of module ${i % 40}.`,
    accept: false
  }))
)

const offlineInOneGo: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(Summarizer.Summarizer, {
  summarize: (request) => Effect.sync(() => SummarizerOffline.summarize(request.span, request.instructions))
})

const engine = (options: { readonly sliceMs?: number; readonly summarizer: Layer.Layer<Summarizer.Summarizer> }) =>
  Effect.runPromise(
    Layer.build(
      Compactor.layer({
        policies: builtInPolicies,
        ...(options.sliceMs === undefined ? {} : { sliceMs: options.sliceMs })
      }).pipe(
        Layer.provideMerge(
          Layer.mergeAll(
            options.summarizer,
            SummaryCacheMemory.layer,
            CompactionStoreMemory.layer,
            SettingsFixed.layer({}),
            TokenizerApprox.layer,
            AttentionUnattended.layer
          )
        )
      )
    ).pipe(Effect.map((context) => Context.get(context, Compactor.Compactor)), Effect.scoped)
  )

/** The ticks a 1 ms interval got while one checkpoint of the large session ran, and whether it compacted. */
const ticksDuring = async (compactor: Compactor.Service) => {
  let ticks = 0
  const probe = setInterval(() => ticks++, 1)
  try {
    const checkpoint = await Effect.runPromise(
      compactor.checkpoint({ sessionId: "large", transcript: large, model: "m", contextWindow: 32_000 })
    )
    // Read at once, before the event loop turns again: only the ticks during the checkpoint count.
    return { ticks, compacted: checkpoint.compacted._tag === "Some" }
  } finally {
    clearInterval(probe)
  }
}

describe("a responsive engine", () => {
  it(
    "an interval keeps ticking while a large compaction runs: the checkpoint and the offline summariser yield to the event loop",
    async () => {
      const during = await ticksDuring(await engine({ summarizer: SummarizerOffline.layer }))
      assert.isTrue(during.compacted)
      assert.isAbove(during.ticks, 0)
    },
    60_000
  )

  it(
    "without the yields (sliceMs Infinity, the summariser in one go) the same interval does not tick at all: the test above would fail",
    async () => {
      const during = await ticksDuring(await engine({ sliceMs: Number.POSITIVE_INFINITY, summarizer: offlineInOneGo }))
      assert.isTrue(during.compacted)
      assert.strictEqual(during.ticks, 0)
    },
    60_000
  )

  effectProp(
    "yielding changes nothing: a checkpoint pausing after every step gives the view, tokens and report of one that never pauses",
    [Generated.transcript(40)],
    ([transcript]) =>
      Effect.gen(function*() {
        const pausing = yield* Effect.promise(() => engine({ sliceMs: 0, summarizer: SummarizerOffline.layer }))
        const never = yield* Effect.promise(() =>
          engine({ sliceMs: Number.POSITIVE_INFINITY, summarizer: offlineInOneGo })
        )
        const input = { sessionId: "same", transcript, model: "m", contextWindow: 4_000 }
        const a = yield* Compat.result(pausing.checkpoint(input))
        const b = yield* Compat.result(never.checkpoint(input))
        assert.strictEqual(TestCompat.isSuccess(a), TestCompat.isSuccess(b))
        if (TestCompat.isSuccess(a) && TestCompat.isSuccess(b)) {
          const [paused, unpaused] = [TestCompat.getOrThrow(a), TestCompat.getOrThrow(b)]
          assert.deepStrictEqual(paused.view, unpaused.view)
          assert.strictEqual(paused.tokens, unpaused.tokens)
          assert.deepStrictEqual(paused.compacted, unpaused.compacted)
        } else if (TestCompat.isFailure(a) && TestCompat.isFailure(b)) {
          assert.strictEqual(
            Option.getOrThrow(TestCompat.getFailure(a)).reason,
            Option.getOrThrow(TestCompat.getFailure(b)).reason
          )
        }
      }),
    { fastCheck: { numRuns: 25 } }
  )

  prop("the working state extracted in steps, pausing after each, is the one extracted at once", [
    Generated.transcript(30)
  ], ([transcript]) => {
    const stepped = WorkingState.fromData(
      Effect.runSync(Cooperative.run(WorkingStateInternal.extractSteps(transcript), Cooperative.slice(0)))
    )
    assert.deepStrictEqual(stepped, WorkingState.extract(transcript))
  }, { fastCheck: { numRuns: 30 } })

  it.effect("under Effect.runSync a pausing loop still runs to the end (it lets only other fibers go first)", () =>
    Effect.sync(() => {
      function* counting(): Cooperative.Steps<number> {
        let sum = 0
        for (let i = 0; i < 10_000; i++) {
          sum += i
          yield
        }
        return sum
      }
      assert.strictEqual(Effect.runSync(Cooperative.run(counting(), Cooperative.slice(0))), 49_995_000)
      assert.strictEqual(Cooperative.runSync(counting()), 49_995_000)
    }))
})
