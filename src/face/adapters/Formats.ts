/**
 * Transcript files: the text of a document (a JSON value, or JSON Lines of one
 * message a line), which adapter reads it (given, or detected), and the text
 * of a view written back in the same format and container. What can fail
 * answers a pure value: an `Either` on Effect 3, a `Result` on Effect 4.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Core from "../../core/adapters/Formats.js"
import * as Steps from "../../core/Steps.js"
import type * as Adapter from "./Adapter.js"
import * as Codecs from "./internal/Codecs.js"

/**
 * How a document was written: one JSON value, or JSON Lines (an array of
 * messages, one a line).
 *
 * @since 0.1.0
 * @category models
 */
export type Container = Core.Container

/**
 * A parsed document and its container.
 *
 * @since 0.1.0
 * @category models
 */
export type Document = Core.Document

/**
 * Parses the text of a transcript file: one JSON value, else JSON Lines. A
 * line of JSON Lines that does not parse (a truncated last line, say) is an
 * error naming the line, not a message silently dropped.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseText = (text: string): Compat.Result<Document, Adapter.AdapterError> =>
  Steps.runSync(parseTextSteps(text))

/**
 * {@link parseText} as steps that pause between lines of JSON Lines. One JSON
 * value is parsed in one piece (the platform's `JSON.parse`, which cannot be
 * cut, unless the text holds numbers only the exact reader keeps).
 *
 * @since 0.1.0
 * @category parsing
 */
export function* parseTextSteps(text: string): Steps.Steps<Compat.Result<Document, Adapter.AdapterError>> {
  return Codecs.toResult(yield* Core.parseTextSteps(text))
}

/**
 * The text of a document in its container: pretty JSON (compact when too
 * deeply nested to indent), or JSON Lines.
 *
 * @since 0.1.0
 * @category formatting
 */
export const renderText: (document: Document) => string = Core.renderText

/**
 * The adapter of a document: the one named, or the first that detects it. A
 * document named as one format that has the marks of another (Anthropic
 * `tool_use` blocks named `openai`, say) is refused with a line naming the
 * format it looks like.
 *
 * @since 0.1.0
 * @category detection
 */
export const adapterFor = (
  adapters: ReadonlyArray<Adapter.Adapter>,
  document: unknown,
  format: Adapter.Format | "auto" = "auto"
): Compat.Result<Adapter.Adapter, Adapter.AdapterError> => Steps.runSync(adapterForSteps(adapters, document, format))

/**
 * {@link adapterFor} as steps: when no adapter detects the document, each
 * one's decoding of it (to name the message at fault) pauses as it goes.
 *
 * @since 0.1.0
 * @category detection
 */
export function* adapterForSteps(
  adapters: ReadonlyArray<Adapter.Adapter>,
  document: unknown,
  format: Adapter.Format | "auto" = "auto"
): Steps.Steps<Compat.Result<Adapter.Adapter, Adapter.AdapterError>> {
  return Codecs.toResult(yield* Core.adapterForSteps(adapters, document, format, coreSteps))
}

/**
 * An adapter's decoding of a parsed document as steps: its `decodeSteps`,
 * which pause between messages, or (an adapter without them) its
 * `decodeResult` in one piece.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSteps = (
  adapter: Adapter.Adapter,
  document: unknown
): Steps.Steps<Compat.Result<Adapter.Decoded, Adapter.AdapterError>> =>
  adapter.decodeSteps !== undefined
    ? adapter.decodeSteps(document)
    : (function*() {
      return adapter.decodeResult(document)
    })()

/** An adapter's decoding as the core's steps answer it. */
function* coreSteps(adapter: Adapter.Adapter, document: unknown) {
  return Codecs.fromResult(yield* decodeSteps(adapter, document))
}

/**
 * Parses, picks the adapter and decodes, in one step.
 *
 * @example
 * ```ts
 * import { Adapters, Formats } from "context-compressor/adapters"
 * import { Either } from "effect"
 *
 * const text = JSON.stringify([{ role: "user", content: "list the files" }])
 * const { decoded, document } = Either.getOrThrow(Formats.decodeText(Adapters.all, text))
 * assert.strictEqual(decoded.format, "openai")
 * assert.strictEqual(Formats.renderText({ ...document, value: decoded.encode(decoded.transcript) }), Formats.renderText(document))
 * ```
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeText = (
  adapters: ReadonlyArray<Adapter.Adapter>,
  text: string,
  format: Adapter.Format | "auto" = "auto"
): Compat.Result<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError> =>
  Steps.runSync(decodeTextSteps(adapters, text, format))

/**
 * {@link decodeText} as steps that pause between messages (and lines of JSON
 * Lines): the same result, for a caller that lets the event loop run while a
 * long transcript is decoded (`Cooperative.run`).
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeTextSteps(
  adapters: ReadonlyArray<Adapter.Adapter>,
  text: string,
  format: Adapter.Format | "auto" = "auto"
): Steps.Steps<
  Compat.Result<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError>
> {
  return Codecs.toResult(yield* Core.decodeTextSteps(adapters, text, format, coreSteps))
}

/**
 * A transcript given as the text of a file (a string) or as a parsed document
 * (an array of messages, a request body), decoded: as {@link decodeText}
 * for text; a document is its own JSON container. What the server and the
 * Promise API take.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeTranscript = (
  adapters: ReadonlyArray<Adapter.Adapter>,
  transcript: unknown,
  format: Adapter.Format | "auto" = "auto"
): Compat.Result<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError> =>
  Steps.runSync(decodeTranscriptSteps(adapters, transcript, format))

/**
 * {@link decodeTranscript} as steps that pause between messages.
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeTranscriptSteps(
  adapters: ReadonlyArray<Adapter.Adapter>,
  transcript: unknown,
  format: Adapter.Format | "auto" = "auto"
): Steps.Steps<
  Compat.Result<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError>
> {
  return Codecs.toResult(yield* Core.decodeTranscriptSteps(adapters, transcript, format, coreSteps))
}
