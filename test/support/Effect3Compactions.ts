/**
 * A program that prints, as one JSON document on stdout, for the example session and every shared
 * transcript (`../shared/transcripts`, when present), the transcript the Effect 3 face decodes
 * (`OpenAiChat`, encoded) and what Effect 3's `Compactor` answers to the calls of
 * `CompactionRuns.ts` at each window (a fresh engine each: `Testing.layer` with the offline
 * summariser, the memory archive, the built-in policies). The Effect 4 suite
 * (`test-effect4/test/compactor.test.ts`) runs it as a process of its own on this package's
 * Effect 3 and checks that Effect 4's `Compactor` answers the same, byte for byte.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as OpenAiChat from "../../src/face/adapters/OpenAiChat.js"
import * as Checkpoint from "../../src/face/engine/Checkpoint.js"
import * as Compactor from "../../src/face/engine/Compactor.js"
import * as Testing from "../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../src/face/layers/TranscriptArchiveMemory.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import { transcriptFiles } from "./AdapterCases.js"
import * as CompactionRuns from "./CompactionRuns.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const { files, sharedTranscripts } = transcriptFiles(repository)

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

const runs = (transcript: Transcript.Transcript): Effect.Effect<CompactionRuns.Runs> =>
  Effect.forEach(CompactionRuns.windows, (window) =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const answers = yield* Effect.forEach(CompactionRuns.callsOf(transcript.length, window), (call) => {
        const input = {
          sessionId: "s",
          transcript: transcript.slice(0, call.length),
          model: "gpt-4o",
          contextWindow: window
        }
        const called = call.entry === "checkpoint"
          ? compactor.checkpoint(input)
          : call.entry === "compactNow"
          ? compactor.compactNow({ ...input, instructions: call.instructions })
          : compactor.contextOverflow({ ...input, overflow: { promptTokens: call.promptTokens } as never })
        return Effect.map(
          Effect.either(called),
          Either.match({
            onLeft: (error): CompactionRuns.Answer => ({ error: { reason: error.reason, message: error.message } }),
            onRight: answer
          })
        )
      })
      return { window, answers }
    }).pipe(
      Effect.provide(
        Compactor.layer({ policies: builtInPolicies }).pipe(
          Layer.provide(Layer.merge(Testing.layer(), TranscriptArchiveMemory.layer()))
        )
      )
    ))

const cases = files.map((file) => {
  const transcript =
    Either.getOrThrow(OpenAiChat.adapter.decodeResult(JSON.parse(readFileSync(file, "utf8")))).transcript
  return {
    file: relative(repository, file),
    transcript: encodeView(transcript),
    runs: Effect.runSync(runs(transcript))
  }
})

process.stdout.write(JSON.stringify({ sharedTranscripts, cases }))
