/**
 * The offline summariser on Effect 4 (docs/effect4.md): `SummarizerOffline.layer` of the Effect 4
 * face, with effect@4 the only Effect there is, writes for several spans of the example session and
 * of every shared transcript (the whole history, its thirds, with the user's instructions, after a
 * compacted block) the bytes the Effect 3 face's layer writes for them
 * (`test/support/Effect3Offline.ts`, run by this test as a process of its own on the package's
 * Effect 3); and `Testing.layer` and the production layers give it when no summariser is named.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import type * as TranscriptData from "../../src/core/transcript/TranscriptData.js"
import * as Production from "../../src/face/layers/Production.js"
import * as SummarizerOffline from "../../src/face/layers/SummarizerOffline.js"
import * as Testing from "../../src/face/layers/Testing.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import type { OfflineSpan } from "../../test/support/OfflineSpans.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Offline {
  readonly sharedTranscripts: boolean
  readonly cases: ReadonlyArray<{
    readonly file: string
    readonly transcript: TranscriptData.Transcript
    readonly spans: ReadonlyArray<OfflineSpan & { readonly summary: string }>
  }>
}

const effect3: Effect3Offline = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Offline.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024
  })
)

const decode = Schema.decodeUnknownSync(Transcript.Transcript)

const requestOf = (messages: Transcript.Transcript, instructions: string | undefined) =>
  new Summarizer.SummaryRequest({
    model: "m",
    system: "",
    prompt: "",
    maxTokens: 4_000,
    agentic: false,
    namespace: "n",
    span: messages,
    ...(instructions === undefined ? {} : { instructions })
  })

/** What the Effect 4 layer writes for each span of a case, as Effect 4 messages. */
const summariesOf = (
  { spans, transcript }: Effect3Offline["cases"][number]
): Effect.Effect<ReadonlyArray<string>, Summarizer.SummarizerError, Summarizer.Summarizer> => {
  const history = decode(transcript)
  return Effect.gen(function*() {
    const summarizer = yield* Summarizer.Summarizer
    return yield* Effect.forEach(spans, (span) => {
      const messages = [
        ...(span.earlier === undefined ? [] : [new Transcript.CompactedBlock(span.earlier)]),
        ...history.slice(span.start, span.end)
      ]
      return summarizer.summarize(requestOf(messages, span.instructions))
    })
  })
}

describe("the offline summariser on Effect 4", () => {
  it.effect("writes for spans of the example session, byte for byte, what the Effect 3 face writes", () =>
    Effect.gen(function*() {
      const [example] = effect3.cases
      assert.strictEqual(example?.file, "examples/session/agent-session.json")
      assert.isAbove(example!.transcript.length, 100)
      const summaries = yield* summariesOf(example!)
      assert.deepStrictEqual(summaries, example!.spans.map((span) => span.summary))
      // The spans say different things: the instructions are quoted, the earlier block's sections carried.
      assert.include(summaries[4], "Focus on the failing tests and the files changed.")
      assert.include(summaries[5], "From the earlier summary (`block-1`):")
      assert.strictEqual(new Set(summaries).size, summaries.length)
    }).pipe(Effect.provide(SummarizerOffline.layer)))

  it.effect.skipIf(!effect3.sharedTranscripts)(
    "the same over every shared transcript (../shared/transcripts; skipped when the folder is missing)",
    () =>
      Effect.gen(function*() {
        const shared = effect3.cases.slice(1)
        assert.isAbove(shared.length, 0)
        for (const example of shared) {
          const summaries = yield* summariesOf(example)
          assert.deepStrictEqual(summaries, example.spans.map((span) => span.summary), example.file)
        }
      }).pipe(Effect.provide(SummarizerOffline.layer))
  )

  it("summarize over Effect 4 messages and over plain data is the layer's text", () => {
    const example = effect3.cases[0]!
    const whole = example.spans[0]!
    assert.strictEqual(SummarizerOffline.summarize(decode(example.transcript)), whole.summary)
    assert.strictEqual(SummarizerOffline.summarize(example.transcript as Transcript.Transcript), whole.summary)
  })

  it.effect("Testing.layer and Production.layerMemory give the offline summariser when none is named", () =>
    Effect.gen(function*() {
      const example = effect3.cases[0]!
      const span = decode(example.transcript).slice(example.spans[1]!.start, example.spans[1]!.end)
      const request = requestOf(span, undefined)
      const expected = example.spans[1]!.summary
      const summarise = Effect.gen(function*() {
        const summarizer = yield* Summarizer.Summarizer
        return yield* summarizer.summarize(request)
      })
      const viaTesting = yield* summarise.pipe(Effect.provide(Testing.layer()))
      const viaMemory = yield* summarise.pipe(Effect.provide(Production.layerMemory()))
      assert.strictEqual(viaTesting, expected)
      assert.strictEqual(viaMemory, expected)
    }))
})
