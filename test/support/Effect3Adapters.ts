/**
 * A program that prints, as one JSON document on stdout, what the Effect 3 adapters answer
 * (`AdapterCases.ts`) over the example session and every shared transcript (`../shared/transcripts`,
 * when present), each as its chat completions file and written anew as Anthropic and AI SDK
 * documents, and over documents and texts that are not transcripts. The Effect 4 suite
 * (`test-effect4/test/adapters.test.ts`) runs it as a process of its own on this package's Effect 3
 * and checks that the Effect 4 adapters answer the same, byte for byte.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import { Adapters, AiSdkMessages, Formats } from "../../src/face/adapters/index.js"
import * as Json from "../../src/face/models/Json.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { badAnswers, documentAnswers, documentsOf, type Face, fingerprint, transcriptFiles } from "./AdapterCases.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

const face: Face = {
  adapters: Adapters.all,
  toMessages: (decoded, view) => AiSdkMessages.toMessages(decoded as never, view as Transcript.Transcript),
  decodeText: (text) => Formats.decodeText(Adapters.all, text),
  renderText: Formats.renderText,
  unwrap: <A>(result: unknown) => {
    const either = result as Either.Either<A, { format: string; index?: number; reason: string }>
    return Either.isRight(either) ? { _tag: "Ok", value: either.right } : { _tag: "Err", error: either.left }
  },
  encodeTranscript: (transcript) => Schema.encodeSync(Transcript.Transcript)(transcript as Transcript.Transcript),
  stringify: (value) => Json.stringify(value),
  kit: Transcript.kit
}

const { files, sharedTranscripts } = transcriptFiles(repository)

process.stdout.write(
  JSON.stringify({
    sharedTranscripts,
    cases: files.map((file) => {
      const documents = documentsOf(face, JSON.parse(readFileSync(file, "utf8")))
      return {
        file: relative(repository, file),
        documents: documents.map(({ document, format }) => ({ format, text: fingerprint(Json.stringify(document)) })),
        answers: documents.map(({ document, format }) => documentAnswers(face, format, document))
      }
    }),
    bad: badAnswers(face)
  })
)
