import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Adapter from "../../../../src/face/adapters/Adapter.js"
import * as Adapters from "../../../../src/face/adapters/Adapters.js"
import * as Formats from "../../../../src/face/adapters/Formats.js"
import * as Cooperative from "../../../../src/face/engine/internal/Cooperative.js"
import * as Json from "../../../../src/face/models/Json.js"
import * as Hostile from "../../../hostile.js"
import * as Histories from "../../../support/Histories.js"
import { effectProp } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

type Decoding = Compat.Result<
  { readonly document: Formats.Document; readonly decoded: Adapter.Decoded },
  Adapter.AdapterError
>

const assertSame = (expected: Decoding, actual: Decoding): void => {
  if (TestCompat.isFailure(expected)) {
    assert.deepStrictEqual(actual, expected)
    return
  }
  assert.isTrue(TestCompat.isSuccess(actual))
  const [got, want] = [TestCompat.getOrThrow(actual), TestCompat.getOrThrow(expected)]
  // Compared as JSON text: a hostile document is nested deeper than a deep equality can walk.
  assert.strictEqual(got.document.container, want.document.container)
  assert.strictEqual(Json.stringify(got.document.value), Json.stringify(want.document.value))
  assert.strictEqual(got.decoded.format, want.decoded.format)
  assert.deepStrictEqual(got.decoded.transcript, want.decoded.transcript)
  assert.strictEqual(
    Json.stringify(got.decoded.encode(got.decoded.transcript)),
    Json.stringify(want.decoded.encode(want.decoded.transcript))
  )
}

// Transcript files: generated sessions as JSON or JSON Lines (one line broken now and then), and the hostile ones.
const transcriptText = fc.oneof(
  fc.tuple(Generated.transcript(8), fc.boolean(), fc.option(fc.nat(), { nil: undefined })).map(
    ([transcript, jsonl, broken]) => {
      const messages = Histories.toOpenAiChat(transcript)
      if (!jsonl) return JSON.stringify(messages)
      const lines = messages.map((message) => JSON.stringify(message))
      if (broken !== undefined) lines[broken % lines.length] = lines[broken % lines.length]!.slice(0, 5)
      return lines.join("\n")
    }
  ),
  Hostile.transcript.map((hostile) => new TextDecoder().decode(hostile.bytes))
)

const formats: ReadonlyArray<Adapter.Format | "auto"> = ["auto", "openai", "anthropic", "ai-sdk", "effect-ai"]

describe("Formats in steps", () => {
  effectProp(
    "decodeTextSteps, run pausing at every step, decodes as decodeText does: document, transcript, encoded view, error",
    [
      transcriptText,
      fc.constantFrom(...formats)
    ],
    ([text, format]) =>
      Effect.gen(function*() {
        const sync = Formats.decodeText(Adapters.all, text, format)
        assertSame(
          sync,
          yield* Cooperative.run(Formats.decodeTextSteps(Adapters.all, text, format), Cooperative.slice(0))
        )
        assertSame(sync, Cooperative.runSync(Formats.decodeTextSteps(Adapters.all, text, format)))
      }),
    { fastCheck: { numRuns: 40 } }
  )

  effectProp(
    "decodeTranscriptSteps of a parsed document decodes as adapterFor then decode do (of a string, as decodeText does), and as decodeTranscript does",
    [
      fc.oneof(
        Generated.transcript(8).map(Histories.toOpenAiChat),
        Generated.transcript(8).map(Histories.toModelMessages),
        fc.jsonValue({ maxDepth: 3 })
      ),
      fc.constantFrom(...formats)
    ],
    ([document, format]) =>
      Effect.gen(function*() {
        // A string is the text of a file; anything else the parsed document.
        const expected: Decoding = typeof document === "string"
          ? Formats.decodeText(Adapters.all, document, format)
          : Compat.matchResult(Formats.adapterFor(Adapters.all, document, format), {
            onFailure: (error): Decoding => Compat.Result.fail(error),
            onSuccess: (found) =>
              Compat.matchResult(found.decodeResult(document), {
                onFailure: (error): Decoding => Compat.Result.fail(error),
                onSuccess: (decoded) =>
                  Compat.Result.succeed({ document: { container: "json" as const, value: document }, decoded })
              })
          })
        assertSame(
          expected,
          yield* Cooperative.run(Formats.decodeTranscriptSteps(Adapters.all, document, format), Cooperative.slice(0))
        )
        assertSame(expected, Formats.decodeTranscript(Adapters.all, document, format))
      }),
    { fastCheck: { numRuns: 40 } }
  )

  it("an adapter without decodeSteps is decoded in one piece, its decodeResult's answer", () => {
    const decodeResult = (document: unknown) =>
      Compat.Result.fail(new Adapter.AdapterError({ format: "openai", reason: `refused ${JSON.stringify(document)}` }))
    const plain: Adapter.Adapter = Adapter.make({ format: "openai", detect: () => true, decodeResult })
    const steps = Formats.decodeSteps(plain, [1])
    assert.deepStrictEqual(steps.next(), { done: true, value: decodeResult([1]) })
  })
})
