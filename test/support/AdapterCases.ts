/**
 * The adapters' cases both faces run (docs/effect4.md): the transcript files (the example session
 * and every shared transcript, `../shared/transcripts`, when present), the views of a decoded
 * transcript each face encodes back (the whole, one message dropped, an assistant message narrowed
 * to its first call with other text, the older half replaced by a compacted block), and documents
 * that are not transcripts. Imports only the core, so the Effect 3 program (`Effect3Adapters.ts`)
 * and the Effect 4 suite (`test-effect4/test/adapters.test.ts`) make the same views of their own
 * classes' messages (through the messages' kit) and decode the same documents.
 */
import { createHash } from "node:crypto"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import * as TranscriptData from "../../src/core/transcript/TranscriptData.js"

/** The transcript files: the example session first, then the shared transcripts in name order. */
export const transcriptFiles = (repository: string): {
  readonly files: ReadonlyArray<string>
  readonly sharedTranscripts: boolean
} => {
  const shared = join(repository, "../shared/transcripts")
  const present = existsSync(shared)
  return {
    files: [
      join(repository, "examples/session/agent-session.json"),
      ...(present
        ? readdirSync(shared).filter((name) => name.endsWith(".json")).sort().map((name) => join(shared, name))
        : [])
    ],
    sharedTranscripts: present
  }
}

/** The views of a transcript that each face encodes back, by name; the messages are the transcript's own face's. */
export const viewsOf = (
  transcript: TranscriptData.Transcript,
  kit: TranscriptData.Kit
): ReadonlyArray<{ readonly name: string; readonly view: TranscriptData.Transcript }> => {
  const views: Array<{ readonly name: string; readonly view: TranscriptData.Transcript }> = [
    { name: "whole", view: transcript }
  ]
  const dropped = transcript.findIndex((message) => message._tag === "User" || message._tag === "ToolResult")
  if (dropped >= 0) {
    views.push({ name: "one message dropped", view: transcript.filter((_, index) => index !== dropped) })
  }
  const narrowed = transcript.findIndex((message) => message._tag === "Assistant" && message.toolCalls.length > 0)
  if (narrowed >= 0) {
    const assistant = transcript[narrowed] as TranscriptData.AssistantMessage
    const calls = assistant.toolCalls.slice(0, 1)
    views.push({
      name: "an assistant message narrowed",
      view: transcript.map((message, index) =>
        index === narrowed
          ? TranscriptData.withFields(assistant, { content: `${assistant.content} (narrowed)`, toolCalls: calls })
          : message
      )
    })
  }
  const half = Math.floor(transcript.length / 2)
  const first = transcript.findIndex((message) => message._tag !== "System")
  if (first >= 0 && half > first) {
    const block = kit.compactedBlock({
      id: "block-1",
      content: "The conversation so far, summarised.",
      firstReplacedId: transcript[first]!.id,
      lastReplacedId: transcript[half - 1]!.id
    })
    views.push({
      name: "the older half compacted",
      view: [...transcript.slice(0, first), block, ...transcript.slice(half)]
    })
  }
  return views
}

/** Documents that are not transcripts of one format or another, by name. */
export const badDocuments: ReadonlyArray<{ readonly name: string; readonly document: unknown }> = [
  { name: "a number", document: 5 },
  { name: "an object without messages", document: { model: "m" } },
  { name: "a role of no format", document: [{ role: "user", content: "hi" }, { role: "bot", content: "x" }] },
  {
    name: "a result of no call",
    document: [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "c9", content: "x" }]
  },
  {
    name: "a call without arguments",
    document: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: {} }] }]
  },
  {
    name: "a custom call without its name",
    document: [{ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "custom", custom: { input: 1 } }] }]
  },
  {
    name: "a tool_use block in a user message",
    document: {
      system: "s",
      messages: [{ role: "user", content: [{ type: "tool_use", id: "t1", name: "bash", input: {} }] }]
    }
  },
  {
    name: "a tool-result part without an output",
    document: [
      { role: "user", content: "hi" },
      { role: "assistant", content: [{ type: "tool-call", toolCallId: "c1", toolName: "bash", input: {} }] },
      { role: "tool", content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash" }] }
    ]
  },
  {
    name: "an AI SDK output of no kind",
    document: [
      { role: "user", content: "hi" },
      {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c1", toolName: "bash", output: { type: "bytes", value: 1 } }]
      }
    ]
  }
]

/** Texts that are not transcript files. */
export const badTexts: ReadonlyArray<string> = [
  "",
  "{",
  "{\"role\":\"user\",\"content\":\"hi\"}\n{\"role\":\n",
  "[{\"role\":\"system\",\"content\":5}]"
]

/** Text as the answers hold it: itself when short, else its length and SHA-256 (the answers of six long transcripts stay small). */
export const fingerprint = (text: string): string =>
  text.length <= 2000 ? text : `${text.length} characters, sha256 ${createHash("sha256").update(text).digest("hex")}`

/** JSON text with every object's keys in order (each face's Schema encodes a message's `_tag` at its own place). */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_, field: unknown) =>
    typeof field === "object" && field !== null && !Array.isArray(field)
      ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : field)

/** A decoding as both faces' results give it: the value, or the error's fields. */
export type Unwrapped<A> = { readonly _tag: "Ok"; readonly value: A } | {
  readonly _tag: "Err"
  readonly error: { readonly format: string; readonly index?: number | undefined; readonly reason: string }
}

interface Decoded {
  readonly format: string
  readonly transcript: TranscriptData.Transcript
  readonly encode: (view: TranscriptData.Transcript) => unknown
}

interface Adapter {
  readonly format: string
  readonly detect: (document: unknown) => boolean
  readonly decodeResult: (document: unknown) => unknown
}

/** What the answers need of a face: its adapters, `Formats`, how its results unwrap and its transcript encodes. */
export interface Face {
  readonly adapters: ReadonlyArray<Adapter>
  readonly toMessages: (decoded: Decoded, view: TranscriptData.Transcript) => unknown
  readonly decodeText: (text: string) => unknown
  readonly renderText: (document: { readonly container: "json" | "jsonl"; readonly value: unknown }) => string
  readonly unwrap: <A>(result: unknown) => Unwrapped<A>
  readonly encodeTranscript: (transcript: TranscriptData.Transcript) => unknown
  readonly stringify: (value: unknown) => string
  /** The face's constructors (`Transcript.kit`), which make a view's block. */
  readonly kit: TranscriptData.Kit
}

const adapterOf = (face: Face, format: string): Adapter => face.adapters.find((adapter) => adapter.format === format)!

const errorFields = (error: Unwrapped<unknown> & { readonly _tag: "Err" }) => ({
  format: error.error.format,
  index: error.error.index ?? null,
  reason: error.error.reason
})

/** The documents of a transcript in each format: the file's own (chat completions), and its transcript written anew as Anthropic and AI SDK documents. */
export const documentsOf = (
  face: Face,
  document: unknown
): ReadonlyArray<{ readonly format: string; readonly document: unknown }> => {
  const openai = face.unwrap<Decoded>(adapterOf(face, "openai").decodeResult(document))
  if (openai._tag === "Err") return [{ format: "openai", document }]
  const anew = (format: string, empty: unknown) => {
    const decoded = face.unwrap<Decoded>(adapterOf(face, format).decodeResult(empty))
    return decoded._tag === "Ok" ? decoded.value.encode(openai.value.transcript) : undefined
  }
  return [
    { format: "openai", document },
    { format: "anthropic", document: anew("anthropic", { messages: [] }) },
    { format: "ai-sdk", document: anew("ai-sdk", []) }
  ]
}

/**
 * What a face's adapters answer over one document of one format: the detecting formats, the
 * decoded transcript (its Schema encoding) or the error, and each view written back (as JSON text,
 * and as AI SDK messages through `toMessages`); and through `Formats.decodeText`, over the
 * document's JSON text and (an array) JSON Lines, the format and container found and each view's
 * text.
 */
export const documentAnswers = (face: Face, format: string, document: unknown) => {
  const decoded = face.unwrap<Decoded>(adapterOf(face, format).decodeResult(document))
  const views = decoded._tag === "Ok" ? viewsOf(decoded.value.transcript, face.kit) : []
  const texts = [
    face.stringify(document),
    ...(Array.isArray(document) ? [document.map(face.stringify).join("\n")] : [])
  ]
  return {
    format,
    detected: face.adapters.filter((adapter) => adapter.detect(document)).map((adapter) => adapter.format),
    decoded: decoded._tag === "Ok"
      ? {
        transcript: fingerprint(canonical(face.encodeTranscript(decoded.value.transcript))),
        views: views.map(({ name, view }) => ({
          name,
          encoded: fingerprint(face.stringify(decoded.value.encode(view))),
          ...(format === "ai-sdk"
            ? { messages: fingerprint(face.stringify(face.toMessages(decoded.value, view))) }
            : {})
        }))
      }
      : errorFields(decoded),
    texts: texts.map((text) => {
      const read = face.unwrap<{
        readonly document: { readonly container: "json" | "jsonl"; readonly value: unknown }
        readonly decoded: Decoded
      }>(face.decodeText(text))
      if (read._tag === "Err") return errorFields(read)
      const { decoded, document } = read.value
      return {
        format: decoded.format,
        container: document.container,
        views: viewsOf(decoded.transcript, face.kit).map(({ view }) =>
          fingerprint(face.renderText({ container: document.container, value: decoded.encode(view) }))
        )
      }
    })
  }
}

/** What a face answers over the documents and texts that are not transcripts: each adapter's error and `Formats.decodeText`'s. */
export const badAnswers = (face: Face) => ({
  documents: badDocuments.map(({ document, name }) => ({
    name,
    adapters: face.adapters.map((adapter) => {
      const decoded = face.unwrap(adapter.decodeResult(document))
      return decoded._tag === "Ok" ? "decoded" : errorFields(decoded)
    }),
    text: (() => {
      const read = face.unwrap(face.decodeText(face.stringify(document)))
      return read._tag === "Ok" ? "decoded" : errorFields(read)
    })()
  })),
  texts: badTexts.map((text) => {
    const read = face.unwrap(face.decodeText(text))
    return read._tag === "Ok" ? "decoded" : errorFields(read)
  })
})
