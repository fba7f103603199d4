import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as fc from "effect/FastCheck"
import * as Adapter from "../../../src/adapters/Adapter.js"
import * as Adapters from "../../../src/adapters/Adapters.js"
import * as Formats from "../../../src/adapters/Formats.js"
import * as Cooperative from "../../../src/internal/Cooperative.js"
import * as Json from "../../../src/Json.js"
import * as Hostile from "../../hostile.js"
import * as Histories from "../../support/Histories.js"
import * as Generated from "../../transcripts.js"

type Decoding = Either.Either<
  { readonly document: Formats.Document; readonly decoded: Adapter.Decoded },
  Adapter.AdapterError
>

const assertSame = (expected: Decoding, actual: Decoding): void => {
  if (Either.isLeft(expected)) {
    assert.deepStrictEqual(actual, expected)
    return
  }
  assert.isTrue(Either.isRight(actual))
  if (Either.isLeft(actual)) return
  // Compared as JSON text: a hostile document is nested deeper than a deep equality can walk.
  assert.strictEqual(actual.right.document.container, expected.right.document.container)
  assert.strictEqual(Json.stringify(actual.right.document.value), Json.stringify(expected.right.document.value))
  assert.strictEqual(actual.right.decoded.format, expected.right.decoded.format)
  assert.deepStrictEqual(actual.right.decoded.transcript, expected.right.decoded.transcript)
  assert.strictEqual(
    Json.stringify(actual.right.decoded.encode(actual.right.decoded.transcript)),
    Json.stringify(expected.right.decoded.encode(expected.right.decoded.transcript))
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
  it.effect.prop(
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

  it.effect.prop(
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
          : Either.flatMap(Formats.adapterFor(Adapters.all, document, format), (found) =>
            Either.map(
              found.decodeResult(document),
              (decoded) => ({ document: { container: "json" as const, value: document }, decoded })
            ))
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
      Either.left(new Adapter.AdapterError({ format: "openai", reason: `refused ${JSON.stringify(document)}` }))
    const plain: Adapter.Adapter = Adapter.make({ format: "openai", detect: () => true, decodeResult })
    const steps = Formats.decodeSteps(plain, [1])
    assert.deepStrictEqual(steps.next(), { done: true, value: decodeResult([1]) })
  })
})
