/**
 * A program that prints, as one JSON document on stdout, the built-in policies as data and, for
 * the example session and every shared transcript (`../shared/transcripts`, when present), the
 * transcript the Effect 3 face decodes (`OpenAiChat`, its Schema classes encoded) and what the
 * checkpoint's stages answer over it on Effect 3 (`StageAnswers.ts`, the face's messages carrying
 * `Transcript.kit`). The Effect 4 suite (`test-effect4/test/stages.test.ts`) runs it as a process of
 * its own on this package's Effect 3 and checks that the same stages on Effect 4 answer the same.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as OpenAiChat from "../../src/face/adapters/OpenAiChat.js"
import * as Policy from "../../src/face/models/Policy.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import { transcriptFiles } from "./AdapterCases.js"
import { stageAnswers } from "./StageAnswers.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const { files, sharedTranscripts } = transcriptFiles(repository)

const cases = files.map((file) => {
  const transcript =
    Either.getOrThrow(OpenAiChat.adapter.decodeResult(JSON.parse(readFileSync(file, "utf8")))).transcript
  return {
    file: relative(repository, file),
    transcript: Schema.encodeSync(Transcript.Transcript)(transcript),
    answers: stageAnswers(transcript, builtInPolicies)
  }
})

process.stdout.write(
  JSON.stringify({
    policies: builtInPolicies.map((policy) => Schema.encodeSync(Policy.Policy)(policy)),
    sharedTranscripts,
    cases
  })
)
