/**
 * The `Compactor` on Effect 4 (docs/effect4.md, issue 32 item 3): the example session and every
 * shared transcript compact byte-identically through both faces. Effect 3's `Compactor` answers the
 * calls of `test/support/CompactionRuns.ts` (a session growing to the transcript, a manual
 * compaction with instructions, an overflow) at 8k, 32k and 128k in a process of its own
 * (`test/support/Effect3Compactions.ts`); Effect 4's, over the Effect 4 test layers with the offline
 * summariser and the memory archive, answers the same calls here, and every view, report, rung,
 * repair and failure encodes to the same JSON (its keys sorted: the faces' Schemas order them
 * differently). Then the engine's properties on Effect 4 over fake
 * layers: the persisted transcript is never modified and every view passes the view check.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { builtInPolicies } from "../../src/effect4/rules/index.js"
import * as Checkpoint from "../../src/face/engine/Checkpoint.js"
import * as Compactor from "../../src/face/engine/Compactor.js"
import * as ViewCheck from "../../src/face/engine/ViewCheck.js"
import * as Testing from "../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../src/face/layers/TranscriptArchiveMemory.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as CompactionRuns from "../../test/support/CompactionRuns.js"
import { canonicalJson } from "../../test/support/PromptCases.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Compactions {
  readonly sharedTranscripts: boolean
  readonly cases: ReadonlyArray<
    { readonly file: string; readonly transcript: unknown; readonly runs: CompactionRuns.Runs }
  >
}

const effect3: Effect3Compactions = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Compactions.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
)

const decodeTranscript = Schema.decodeUnknownSync(Transcript.Transcript)
const encodeView = Schema.encodeSync(Transcript.Transcript)
const encodeReport = Schema.encodeSync(Checkpoint.Compacted)
const encodeLadder = Schema.encodeSync(Schema.Array(Checkpoint.LadderStep))
const encodeRepairs = Schema.encodeSync(Schema.Array(Checkpoint.Repair))

const answer = (checkpoint: Checkpoint.Checkpoint): CompactionRuns.Answer => ({
  view: encodeView(checkpoint.view),
  tokens: checkpoint.tokens,
  trigger: checkpoint.trigger,
  compacted: Option.match(checkpoint.compacted, { onNone: () => null, onSome: encodeReport }),
  ladder: encodeLadder(checkpoint.ladder),
  repairs: encodeRepairs(checkpoint.repairs),
  prefixStable: checkpoint.prefixStable,
  sinceCompaction: checkpoint.sinceCompaction
})

/** A fresh engine over the Effect 4 test layers (offline summariser) and the memory archive. */
const engine = Compactor.layer({ policies: builtInPolicies }).pipe(
  Layer.provide(Layer.merge(Testing.layer(), TranscriptArchiveMemory.layer()))
)

const call = (
  compactor: Compactor.Service,
  transcript: Transcript.Transcript,
  window: number,
  step: CompactionRuns.Call
) => {
  const input = { sessionId: "s", transcript: transcript.slice(0, step.length), model: "gpt-4o", contextWindow: window }
  return step.entry === "checkpoint"
    ? compactor.checkpoint(input)
    : step.entry === "compactNow"
    ? compactor.compactNow({ ...input, instructions: step.instructions })
    : compactor.contextOverflow({ ...input, overflow: { promptTokens: step.promptTokens } })
}

const runs = (transcript: Transcript.Transcript): Effect.Effect<CompactionRuns.Runs> =>
  Effect.forEach(CompactionRuns.windows, (window) =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const answers = yield* Effect.forEach(CompactionRuns.callsOf(transcript.length, window), (step) =>
        Effect.map(
          Effect.result(call(compactor, transcript, window, step)),
          (done): CompactionRuns.Answer =>
            Result.isSuccess(done)
              ? answer(done.success)
              : { error: { reason: done.failure.reason, message: done.failure.message } }
        ))
      return { window, answers }
    }).pipe(Effect.provide(engine)))

describe("the Compactor on Effect 4", () => {
  it(
    "compacts the example session and every shared transcript as Effect 3 does, byte for byte, at 8k, 32k and 128k: checkpoints of a growing session, a manual compaction and an overflow",
    async () => {
      assert.strictEqual(effect3.cases[0]?.file, "examples/session/agent-session.json")
      assert.strictEqual(effect3.cases.length > 1, effect3.sharedTranscripts)
      let compactions = 0
      for (const { file, runs: expected, transcript } of effect3.cases) {
        const got = await Effect.runPromise(runs(decodeTranscript(transcript)))
        // The two faces' Schemas order an encoded message's keys differently (`_tag` last on Effect 3, first on 4).
        assert.strictEqual(canonicalJson(got), canonicalJson(expected), file)
        for (const run of got) {
          for (const one of run.answers) if ("compacted" in one && one.compacted !== null) compactions++
        }
      }
      // The calls compacted, many times over: the comparison is of compactions, not of views left alone.
      assert.isAbove(compactions, 10 * effect3.cases.length)
    },
    300_000
  )

  it.effect("compacts a 300-message history from the test layers: the transcript is never modified, the view passes the view check, and the Compacted event is published", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const transcript = historyOf(300)
      const before = JSON.stringify(encodeView(transcript))
      const subscription = yield* compactor.subscribe
      const checkpoint = yield* compactor.checkpoint({ sessionId: "h", transcript, model: "m", contextWindow: 16_000 })
      assert.strictEqual(JSON.stringify(encodeView(transcript)), before)
      assert.isTrue(Option.isSome(checkpoint.compacted))
      assert.isBelow(checkpoint.view.length, transcript.length)
      assert.isAtMost(checkpoint.tokens, checkpoint.trigger)
      assert.deepStrictEqual(ViewCheck.check(checkpoint.view), [])
      const published = yield* PubSub.take(subscription)
      assert.strictEqual(published.sessionId, "h")
      assert.strictEqual(published.compactions, 1)
    }).pipe(Effect.scoped, Effect.provide(engine)))
})

/** A history of `count` messages: a first request, then turns of a tool call and its result. */
const historyOf = (count: number): Transcript.Transcript => {
  const messages: Array<Transcript.Message> = [
    new Transcript.UserMessage({ id: "u0", content: "Fix the importer so that it keeps the order ids (ORD-1042)." })
  ]
  for (let turn = 1; messages.length < count; turn++) {
    messages.push(
      new Transcript.AssistantMessage({
        id: `a${turn}`,
        content: `Step ${turn}: reading the importer.`,
        toolCalls: [
          new Transcript.ToolCall({
            id: `c${turn}`,
            name: "read_file",
            arguments: `{"path":"src/importer/part${turn}.ts"}`
          })
        ]
      }),
      new Transcript.ToolResult({
        id: `r${turn}`,
        toolCallId: `c${turn}`,
        content: `export const part${turn} = ${JSON.stringify("x".repeat(400))}\n`.repeat(3)
      })
    )
  }
  return messages.slice(0, count)
}
