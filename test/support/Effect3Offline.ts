/**
 * A program that prints, as one JSON document on stdout, what the Effect 3 face's offline
 * summariser (`SummarizerOffline.layer`, through the `Summarizer` service) writes for several spans
 * of the example session and of every shared transcript (`../shared/transcripts`, when present):
 * the whole history, its thirds, its second half with the user's instructions, and its second
 * half after a compacted block (what a later compaction summarises). Each case carries the
 * transcript the Effect 3 face decodes (`OpenAiChat`, its Schema classes encoded) and each span its
 * bounds, so the Effect 4 suite (`test-effect4/test/offline.test.ts`), which runs this as a process
 * of its own on the package's Effect 3, rebuilds the same spans and checks the Effect 4 layer
 * writes the same bytes.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as OpenAiChat from "../../src/face/adapters/OpenAiChat.js"
import * as SummarizerOffline from "../../src/face/layers/SummarizerOffline.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import { transcriptFiles } from "./AdapterCases.js"
import { offlineSpans } from "./OfflineSpans.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const { files, sharedTranscripts } = transcriptFiles(repository)

const program = Effect.gen(function*() {
  const summarizer = yield* Summarizer.Summarizer
  return yield* Effect.forEach(files, (file) =>
    Effect.gen(function*() {
      const transcript =
        Either.getOrThrow(OpenAiChat.adapter.decodeResult(JSON.parse(readFileSync(file, "utf8")))).transcript
      const spans = yield* Effect.forEach(offlineSpans(transcript.length), (span) => {
        const messages = [
          ...(span.earlier === undefined ? [] : [new Transcript.CompactedBlock(span.earlier)]),
          ...transcript.slice(span.start, span.end)
        ]
        const request = new Summarizer.SummaryRequest({
          model: "m",
          system: "",
          prompt: "",
          maxTokens: 4_000,
          agentic: false,
          namespace: "n",
          span: messages,
          ...(span.instructions === undefined ? {} : { instructions: span.instructions })
        })
        return Effect.map(summarizer.summarize(request), (summary) => ({ ...span, summary }))
      })
      return {
        file: relative(repository, file),
        transcript: Schema.encodeSync(Transcript.Transcript)(transcript),
        spans
      }
    }))
})

const cases = await Effect.runPromise(program.pipe(Effect.provide(SummarizerOffline.layer)))
process.stdout.write(JSON.stringify({ sharedTranscripts, cases }))
