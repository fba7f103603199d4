/**
 * Transcript files, in the shared core: the text of a document (a JSON value,
 * or JSON Lines of one message a line), which adapter reads it (given, or
 * detected), and the text of a view written back in the same format and
 * container. Written over any face's adapters: a face gives how one of its
 * adapters decodes a document as steps answering the core's `Result`, and
 * turns the failures into its `AdapterError`. No Effect import.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as JsonWrite from "../json/JsonWrite.js"
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import * as AdapterData from "./AdapterData.js"

/**
 * How a document was written: one JSON value, or JSON Lines (an array of
 * messages, one a line).
 *
 * @since 0.1.0
 * @category models
 */
export type Container = "json" | "jsonl"

/**
 * A parsed document and its container.
 *
 * @since 0.1.0
 * @category models
 */
export interface Document {
  readonly container: Container
  readonly value: unknown
}

/**
 * What the core asks of a face's adapter: its format and its cheap structural test.
 *
 * @since 0.1.0
 * @category models
 */
export interface Detector {
  readonly format: AdapterData.Format
  readonly detect: (document: unknown) => boolean
}

/**
 * How a face's adapter decodes a document, as steps answering the core's
 * `Result` (its failure the face's error, which has a failure's fields).
 *
 * @since 0.1.0
 * @category models
 */
export type Decoder<A, D, E extends AdapterData.Failure> = (adapter: A, document: unknown) => Steps.Steps<
  Result.Result<D, E>
>

const notTranscript = (reason: string, index?: number): AdapterData.Failure =>
  AdapterData.failure("unknown", reason, index)

/**
 * {@link parseText} of the faces as steps that pause between lines of JSON
 * Lines. One JSON value is parsed in one piece (the platform's `JSON.parse`,
 * which cannot be cut, unless the text holds numbers only the exact reader
 * keeps).
 *
 * @since 0.1.0
 * @category parsing
 */
export function* parseTextSteps(text: string): Steps.Steps<Result.Result<Document, AdapterData.Failure>> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (source.trim() === "") return Result.err(notTranscript("the file is empty"))
  // The reader keeps every number exactly (a 30-digit integer, 1e400) and reads any depth.
  const whole = JsonReader.read(source)
  if (whole._tag === "Ok") return Result.ok({ container: "json", value: whole.value })
  const lines = source.split(/\r?\n/)
  const nonEmpty = lines.filter((line) => line.trim() !== "")
  // One line that does not parse is broken JSON, not JSON Lines.
  if (nonEmpty.length < 2) return Result.err(notTranscript(`not JSON: ${whole.error}`))
  const values: Array<unknown> = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (line.trim() === "") continue
    const parsed = JsonReader.read(line)
    if (parsed._tag === "Err") {
      return Result.err(
        notTranscript(`line ${index + 1} is not JSON (${parsed.error}): neither JSON nor JSON Lines`)
      )
    }
    values.push(parsed.value)
    if (values.length % Steps.itemsPerStep === 0) yield
  }
  return Result.ok({ container: "jsonl", value: values })
}

/** Indented JSON, or compact where indenting a value nested thousands deep would outgrow any string. */
const indented = (value: unknown): string => {
  try {
    return JsonWrite.stringify(value, 2)
  } catch (error) {
    if (error instanceof RangeError) return JsonWrite.stringify(value)
    throw error
  }
}

/**
 * The text of a document in its container: pretty JSON (compact when too
 * deeply nested to indent), or JSON Lines.
 *
 * @since 0.1.0
 * @category formatting
 */
export const renderText = (document: Document): string =>
  document.container === "jsonl" && Array.isArray(document.value)
    ? document.value.map((message) => JsonWrite.stringify(message)).join("\n") + "\n"
    : indented(document.value) + "\n"

/** What tells each format apart, for the line that refuses a document named as another. */
const marks: Record<AdapterData.Format, string> = {
  openai: "tool_calls and tool_call_id",
  anthropic: "tool_use and tool_result blocks, or a top-level system beside messages",
  "ai-sdk": "tool-call and tool-result parts, or providerOptions",
  "effect-ai": "a Prompt, or @effect/ai tool parts",
  "openai-responses": "typed input items (function_call, function_call_output, reasoning), or a body's input"
}

/**
 * Whether a document has what only one format has. Every detector but the
 * chat completions one asks for such evidence; a plain chat of text, which
 * that one claims, has the marks of none.
 */
const hasMarksOf = (adapter: Detector, document: unknown): boolean => {
  if (!adapter.detect(document)) return false
  if (adapter.format !== "openai") return true
  const messages = Array.isArray(document)
    ? document
    : typeof document === "object" && document !== null &&
        Array.isArray((document as { readonly messages?: unknown }).messages)
    ? (document as { readonly messages: ReadonlyArray<unknown> }).messages
    : []
  return messages.some((message) =>
    typeof message === "object" && message !== null && ("tool_calls" in message || "tool_call_id" in message)
  )
}

/**
 * The adapter of a document as steps (the faces' `adapterForSteps`): the one
 * named, or the first that detects it; when none detects it, each one's
 * decoding of it (to name the message at fault) pauses as it goes.
 *
 * @since 0.1.0
 * @category detection
 */
export function* adapterForSteps<A extends Detector, D, E extends AdapterData.Failure>(
  adapters: ReadonlyArray<A>,
  document: unknown,
  format: AdapterData.Format | "auto",
  decodeSteps: Decoder<A, D, E>
): Steps.Steps<Result.Result<A, AdapterData.Failure>> {
  if (format !== "auto") {
    const named = adapters.find((adapter) => adapter.format === format)
    if (named === undefined) return Result.err(notTranscript(`no adapter for the format ${format}`))
    // A document with the marks of another format is refused, not read as this one (it would count as nothing).
    const other = named.detect(document)
      ? undefined
      : adapters.find((adapter) => adapter !== named && hasMarksOf(adapter, document))
    return other === undefined
      ? Result.ok(named)
      : Result.err(
        notTranscript(
          `the document was named ${format}, but it has the marks of the ${other.format} format (${
            marks[other.format]
          }): name ${other.format}, or let the format be detected`
        )
      )
  }
  const found = adapters.find((adapter) => adapter.detect(document))
  if (found !== undefined) return Result.ok(found)
  const known = `not a transcript in any known format (${adapters.map((adapter) => adapter.format).join(", ")})`
  // The format that read furthest before failing names the message and what is wrong with it.
  let nearest: AdapterData.Failure | undefined
  for (const adapter of adapters) {
    let attempt: Result.Result<D, E>
    try {
      attempt = yield* decodeSteps(adapter, document)
    } catch {
      continue
    }
    if (attempt._tag === "Ok") continue
    const error = attempt.error
    if (error.index !== undefined && (nearest?.index === undefined || error.index > nearest.index)) nearest = error
  }
  return Result.err(
    nearest === undefined
      ? notTranscript(known)
      : {
        format: nearest.format,
        reason: `${known}; read as ${nearest.format}: ${nearest.reason}`,
        index: nearest.index!
      }
  )
}

/**
 * A document's decoding by the adapter named or detected, as steps: the
 * document with the decoded transcript, or the failure (the face's own error
 * when its adapter refused the document, a core failure when none reads it).
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeDocumentSteps<A extends Detector, D, E extends AdapterData.Failure>(
  adapters: ReadonlyArray<A>,
  document: Document,
  format: AdapterData.Format | "auto",
  decodeSteps: Decoder<A, D, E>
): Steps.Steps<Result.Result<{ readonly document: Document; readonly decoded: D }, E | AdapterData.Failure>> {
  const adapter = yield* adapterForSteps(adapters, document.value, format, decodeSteps)
  if (adapter._tag === "Err") return adapter
  const decoded = yield* decodeSteps(adapter.value, document.value)
  return Result.map(decoded, (decoded) => ({ document, decoded }))
}

/**
 * Parses the text, picks the adapter and decodes, as steps that pause between
 * messages (and lines of JSON Lines).
 *
 * @since 0.1.0
 * @category decoding
 */
export function* decodeTextSteps<A extends Detector, D, E extends AdapterData.Failure>(
  adapters: ReadonlyArray<A>,
  text: string,
  format: AdapterData.Format | "auto",
  decodeSteps: Decoder<A, D, E>
): Steps.Steps<Result.Result<{ readonly document: Document; readonly decoded: D }, E | AdapterData.Failure>> {
  const document = yield* parseTextSteps(text)
  if (document._tag === "Err") return document
  return yield* decodeDocumentSteps(adapters, document.value, format, decodeSteps)
}

/**
 * A transcript given as the text of a file (a string) or as a parsed document
 * (an array of messages, a request body), decoded as steps: as
 * {@link decodeTextSteps} for text; a document is its own JSON container.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeTranscriptSteps = <A extends Detector, D, E extends AdapterData.Failure>(
  adapters: ReadonlyArray<A>,
  transcript: unknown,
  format: AdapterData.Format | "auto",
  decodeSteps: Decoder<A, D, E>
): Steps.Steps<Result.Result<{ readonly document: Document; readonly decoded: D }, E | AdapterData.Failure>> =>
  typeof transcript === "string"
    ? decodeTextSteps(adapters, transcript, format, decodeSteps)
    : decodeDocumentSteps(adapters, { container: "json", value: transcript }, format, decodeSteps)
