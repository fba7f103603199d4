/**
 * The adapters on Effect 4 (docs/effect4.md): `context-compressor/effect4/adapters` decodes the
 * example session and every shared transcript, each as its chat completions file and written anew
 * as Anthropic and AI SDK documents, into the Effect 4 face's `Transcript` classes, and writes the
 * same views back (the whole, a message dropped, an assistant message narrowed, the older half
 * compacted), byte for byte as the Effect 3 adapters do (`test/support/Effect3Adapters.ts`, run by
 * this test as a process of its own on the package's Effect 3, over the same cases:
 * `test/support/AdapterCases.ts`); documents that are not transcripts fail with the `AdapterError`
 * fields Effect 3 gives. The shared transcripts' case is skipped, saying so, when
 * `../shared/transcripts` is missing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import {
  Adapter,
  Adapters,
  AiSdkMessages,
  AnthropicMessages,
  Formats,
  OpenAiChat
} from "../../src/effect4/adapters/index.js"
import * as Json from "../../src/face/models/Json.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import {
  badAnswers,
  documentAnswers,
  documentsOf,
  type Face,
  fingerprint,
  transcriptFiles
} from "../../test/support/AdapterCases.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

interface Effect3Adapters {
  readonly sharedTranscripts: boolean
  readonly cases: ReadonlyArray<{
    readonly file: string
    readonly documents: ReadonlyArray<{ readonly format: string; readonly text: string }>
    readonly answers: ReadonlyArray<unknown>
  }>
  readonly bad: unknown
}

const effect3: Effect3Adapters = JSON.parse(
  execFileSync(process.execPath, ["--import", "tsx", "test/support/Effect3Adapters.ts"], {
    cwd: repository,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
)

const face: Face = {
  adapters: Adapters.all,
  toMessages: (decoded, view) => AiSdkMessages.toMessages(decoded as never, view as Transcript.Transcript),
  decodeText: (text) => Formats.decodeText(Adapters.all, text),
  renderText: Formats.renderText,
  unwrap: <A>(result: unknown) => {
    const decoded = result as Result.Result<A, Adapter.AdapterError>
    return Result.isSuccess(decoded)
      ? { _tag: "Ok", value: decoded.success }
      : { _tag: "Err", error: decoded.failure }
  },
  encodeTranscript: (transcript) => Schema.encodeSync(Transcript.Transcript)(transcript as Transcript.Transcript),
  stringify: (value) => Json.stringify(value),
  kit: Transcript.kit
}

/** Whether every message of a transcript (and every call) is of the Effect 4 face's classes. */
const ofEffect4Classes = (transcript: ReadonlyArray<unknown>): boolean =>
  transcript.every((message) =>
    message instanceof Transcript.SystemMessage || message instanceof Transcript.UserMessage ||
    message instanceof Transcript.ToolResult || message instanceof Transcript.CompactedBlock ||
    (message instanceof Transcript.AssistantMessage &&
      message.toolCalls.every((call) => call instanceof Transcript.ToolCall))
  )

/** The Effect 4 answers over one transcript file, checked against Effect 3's. */
const checkCase = (effect3Case: Effect3Adapters["cases"][number]) => {
  const document = JSON.parse(readFileSync(join(repository, effect3Case.file), "utf8"))
  const documents = documentsOf(face, document)
  // The transcript written anew as Anthropic and AI SDK documents is the same document on both faces.
  assert.deepStrictEqual(
    documents.map(({ document, format }) => ({ format, text: fingerprint(Json.stringify(document)) })),
    effect3Case.documents
  )
  for (const [k, { document, format }] of documents.entries()) {
    const decoded = Adapters.all.find((adapter) => adapter.format === format)!.decodeResult(document)
    assert.isTrue(Result.isSuccess(decoded), `${effect3Case.file} as ${format}`)
    assert.isTrue(ofEffect4Classes(Result.getOrThrow(decoded).transcript))
    assert.deepStrictEqual(
      documentAnswers(face, format, document),
      effect3Case.answers[k],
      `${effect3Case.file} as ${format}`
    )
  }
}

describe("the adapters on Effect 4", () => {
  it("decode the example session in three formats into the Effect 4 classes and write every view back as the Effect 3 adapters do, byte for byte", () => {
    const [example] = effect3.cases
    assert.strictEqual(example?.file, "examples/session/agent-session.json")
    assert.strictEqual(example!.documents.length, 3)
    checkCase(example!)
  })

  it.skipIf(!effect3.sharedTranscripts)(
    "the same over every shared transcript (../shared/transcripts; skipped when the folder is missing)",
    () => {
      const shared = effect3.cases.slice(1)
      assert.strictEqual(shared.length, transcriptFiles(repository).files.length - 1)
      assert.isAbove(shared.length, 0)
      for (const effect3Case of shared) checkCase(effect3Case)
    }
  )

  it("documents and texts that are not transcripts fail with an AdapterError of the fields (format, index, reason) Effect 3 gives", () => {
    assert.deepStrictEqual(badAnswers(face), effect3.bad)
    const refused = OpenAiChat.adapter.decodeResult([{ role: "user", content: "hi" }, { role: "bot", content: "x" }])
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.instanceOf(refused.failure, Adapter.AdapterError)
      assert.strictEqual(refused.failure._tag, "AdapterError")
      assert.strictEqual(refused.failure.index, 1)
      assert.strictEqual(
        refused.failure.reason,
        "message 1 has the role \"bot\", not one of system, developer, user, assistant, tool"
      )
    }
    const anthropic = AnthropicMessages.decodeResult({ messages: [{ role: "system", content: "x" }] })
    assert.isTrue(Result.isFailure(anthropic) && anthropic.failure.index === 0)
    // decode is the same answer as an effect (issue 44): it fails with decodeResult's error.
    const failed = Effect.runSync(
      Effect.flip(AnthropicMessages.decode({ messages: [{ role: "system", content: "x" }] }))
    )
    assert.deepStrictEqual(failed, Result.isFailure(anthropic) ? anthropic.failure : undefined)
  })

  it("AiSdkMessages.fromMessages and toMessages round-trip ModelMessages of the type they were given", () => {
    const messages: Array<AiSdkMessages.ModelMessage> = [
      { role: "user", content: "list the files" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "ls" } }]
      },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "text", value: "src" } }]
      }
    ]
    const decoded = Result.getOrThrow(AiSdkMessages.fromMessages(messages))
    assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2"])
    assert.isTrue(ofEffect4Classes(decoded.transcript))
    const back: Array<AiSdkMessages.ModelMessage> = AiSdkMessages.toMessages(decoded, decoded.transcript)
    assert.deepStrictEqual(back, messages)
  })

  it("as docs/integration.md's program does: OpenAiChat.adapter.decode of a request, yielded in Effect.gen, and decoded.encode of a view with a compacted block", () => {
    const request = {
      model: "gpt-4.1",
      messages: [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "list the files" },
        { role: "assistant", content: "src test" }
      ]
    }
    const decoded = Effect.runSync(Effect.gen(function*() {
      return yield* OpenAiChat.adapter.decode(request)
    }))
    assert.deepStrictEqual(decoded.transcript.map((message) => message.id), ["m0", "m1", "m2"])
    // An unchanged view is the request itself, each message the very object it was.
    const unchanged = decoded.encode(decoded.transcript) as typeof request
    assert.deepStrictEqual(unchanged, request)
    assert.strictEqual(unchanged.messages[1], request.messages[1])
    const [system, , assistant] = decoded.transcript
    const block = new Transcript.CompactedBlock({
      id: "block-1",
      content: "The user asked for the files.",
      firstReplacedId: "m1",
      lastReplacedId: "m1"
    })
    assert.deepStrictEqual(decoded.encode([system!, block, assistant!]), {
      model: "gpt-4.1",
      messages: [
        request.messages[0],
        { role: "user", content: "The user asked for the files." },
        request.messages[2]
      ]
    })
  })
})
