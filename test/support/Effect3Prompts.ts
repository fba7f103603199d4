/**
 * A program that prints, as one JSON document on stdout, the summary requests the Effect 3 face's
 * `SummaryPrompt` builds (`buildWithTotals`, `buildSharedPrefix`) for the cases of `PromptCases.ts`
 * over the example session and every shared transcript (`../shared/transcripts`, when present),
 * encoded with the face's `SummaryRequest` Schema (as JSON with sorted keys, `canonicalJson`), with
 * the retention rules' totals; the prompts' namespaces; and the `QualityGate`'s verdict on each
 * summary of `gateCases`, as given and after `restoreOpening`. Each case carries the transcript the
 * Effect 3 face decodes (`OpenAiChat`, its Schema classes encoded), so the Effect 4 suite
 * (`test-effect4/test/prompt.test.ts`), which runs this as a process of its own on the package's
 * Effect 3, rebuilds the same requests on Effect 4.
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { readFileSync } from "node:fs"
import { relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as OpenAiChat from "../../src/face/adapters/OpenAiChat.js"
import * as QualityGate from "../../src/face/engine/QualityGate.js"
import * as SummaryPrompt from "../../src/face/engine/SummaryPrompt.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import { transcriptFiles } from "./AdapterCases.js"
import { canonicalJson, gateCases, promptCases } from "./PromptCases.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))
const { files, sharedTranscripts } = transcriptFiles(repository)

const encodeRequest = Schema.encodeSync(Summarizer.SummaryRequest)
const encodeRefusal = Schema.encodeSync(QualityGate.SummaryRefused)

const cases = files.map((file) => {
  const transcript =
    Either.getOrThrow(OpenAiChat.adapter.decodeResult(JSON.parse(readFileSync(file, "utf8")))).transcript
  const requests = promptCases(transcript.length).map((promptCase) => {
    const span = [
      ...(promptCase.earlier === undefined ? [] : [new Transcript.CompactedBlock(promptCase.earlier)]),
      ...transcript.slice(promptCase.start, promptCase.end)
    ]
    const options = { ...promptCase.options, policies: builtInPolicies }
    const { request, ruleTotals } = promptCase.sharedPrefix === undefined
      ? SummaryPrompt.buildWithTotals(span, options)
      : SummaryPrompt.buildSharedPrefix(span, {
        ...options,
        prefix: transcript.slice(0, promptCase.sharedPrefix.prefixEnd),
        kept: promptCase.sharedPrefix.kept
      })
    return {
      name: promptCase.name,
      request: canonicalJson(encodeRequest(request)),
      ruleTotals: JSON.stringify(ruleTotals)
    }
  })
  return {
    file: relative(repository, file),
    transcript: Schema.encodeSync(Transcript.Transcript)(transcript),
    requests
  }
})

const verdictOf = (summary: string, agentic: boolean): string =>
  Either.match(QualityGate.check(summary, { agentic }), {
    onLeft: (refused) => canonicalJson({ refused: encodeRefusal(refused) }),
    onRight: (accepted) => canonicalJson({ accepted })
  })

const gate = gateCases.map(({ agentic, name, summary }) => ({
  name,
  verdict: verdictOf(summary, agentic),
  restored: verdictOf(SummaryPrompt.restoreOpening(summary), agentic)
}))

const namespaces = JSON.stringify([
  SummaryPrompt.namespace,
  SummaryPrompt.namespaceFor("custom"),
  SummaryPrompt.sharedPrefixNamespaceFor(undefined),
  SummaryPrompt.sharedPrefixNamespaceFor("custom")
])

process.stdout.write(JSON.stringify({ sharedTranscripts, cases, gate, namespaces }))
