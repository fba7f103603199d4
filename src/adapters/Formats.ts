/**
 * Transcript files: the text of a document (a JSON value, or JSON Lines of one
 * message a line), which adapter reads it (given, or detected), and the text
 * of a view written back in the same format and container.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Cooperative from "../internal/Cooperative.js"
import * as Json from "../Json.js"
import * as Adapter from "./Adapter.js"

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

const notTranscript = (reason: string, index?: number): Adapter.AdapterError =>
  new Adapter.AdapterError({ format: "unknown", reason, ...(index === undefined ? {} : { index }) })

/**
 * Parses the text of a transcript file: one JSON value, else JSON Lines. A
 * line of JSON Lines that does not parse (a truncated last line, say) is an
 * error naming the line, not a message silently dropped.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseText = (text: string): Either.Either<Document, Adapter.AdapterError> =>
  Cooperative.runSync(parseTextSteps(text))

/**
 * {@link parseText} as steps that pause between lines of JSON Lines. One JSON
 * value is parsed in one piece (the platform's `JSON.parse`, which cannot be
 * cut, unless the text holds numbers only the exact reader keeps).
 *
 * @since 0.1.0
 * @category parsing
 */
export function* parseTextSteps(text: string): Cooperative.Steps<Either.Either<Document, Adapter.AdapterError>> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  if (source.trim() === "") return Either.left(notTranscript("the file is empty"))
  // Json.parse keeps every number exactly (a 30-digit integer, 1e400) and reads any depth.
  const whole = Json.parse(source)
  if (Either.isRight(whole)) return Either.right({ container: "json", value: whole.right })
  const lines = source.split(/\r?\n/)
  const nonEmpty = lines.filter((line) => line.trim() !== "")
  // One line that does not parse is broken JSON, not JSON Lines.
  if (nonEmpty.length < 2) return Either.left(notTranscript(`not JSON: ${whole.left.reason}`))
  const values: Array<unknown> = []
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!
    if (line.trim() === "") continue
    const parsed = Json.parse(line)
    if (Either.isLeft(parsed)) {
      return Either.left(
        notTranscript(`line ${index + 1} is not JSON (${parsed.left.reason}): neither JSON nor JSON Lines`)
      )
    }
    values.push(parsed.right)
    if (values.length % Cooperative.itemsPerStep === 0) yield
  }
  return Either.right({ container: "jsonl", value: values })
}

/** Indented JSON, or compact where indenting a value nested thousands deep would outgrow any string. */
const indented = (value: unknown): string => {
  try {
    return Json.stringify(value, 2)
  } catch (error) {
    if (error instanceof RangeError) return Json.stringify(value)
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
    ? document.value.map((message) => Json.stringify(message)).join("\n") + "\n"
    : indented(document.value) + "\n"

/** What tells each format apart, for the line that refuses a document named as another. */
const marks: Record<Adapter.Format, string> = {
  openai: "tool_calls and tool_call_id",
  anthropic: "tool_use and tool_result blocks, or a top-level system beside messages",
  "ai-sdk": "tool-call and tool-result parts, or providerOptions",
  "effect-ai": "a Prompt, or @effect/ai tool parts"
}

/**
 * Whether a document has what only one format has. Every detector but the
 * chat completions one asks for such evidence; a plain chat of text, which
 * that one claims, has the marks of none.
 */
const hasMarksOf = (adapter: Adapter.Adapter, document: unknown): boolean => {
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
): Either.Either<Adapter.Adapter, Adapter.AdapterError> =>
  Cooperative.runSync(adapterForSteps(adapters, document, format))

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
): Cooperative.Steps<Either.Either<Adapter.Adapter, Adapter.AdapterError>> {
  if (format !== "auto") {
    const named = adapters.find((adapter) => adapter.format === format)
    if (named === undefined) return Either.left(notTranscript(`no adapter for the format ${format}`))
    // A document with the marks of another format is refused, not read as this one (it would count as nothing).
    const other = named.detect(document)
      ? undefined
      : adapters.find((adapter) => adapter !== named && hasMarksOf(adapter, document))
    return other === undefined
      ? Either.right(named)
      : Either.left(
        notTranscript(
          `the document was named ${format}, but it has the marks of the ${other.format} format (${
            marks[other.format]
          }): name ${other.format}, or let the format be detected`
        )
      )
  }
  const found = adapters.find((adapter) => adapter.detect(document))
  if (found !== undefined) return Either.right(found)
  const known = `not a transcript in any known format (${adapters.map((adapter) => adapter.format).join(", ")})`
  // The format that read furthest before failing names the message and what is wrong with it.
  let nearest: Adapter.AdapterError | undefined
  for (const adapter of adapters) {
    let attempt: Either.Either<Adapter.Decoded, Adapter.AdapterError>
    try {
      attempt = yield* decodeSteps(adapter, document)
    } catch {
      continue
    }
    if (Either.isRight(attempt)) continue
    const error = attempt.left
    if (error.index !== undefined && (nearest?.index === undefined || error.index > nearest.index)) nearest = error
  }
  return Either.left(
    nearest === undefined
      ? notTranscript(known)
      : new Adapter.AdapterError({
        format: nearest.format,
        reason: `${known}; read as ${nearest.format}: ${nearest.reason}`,
        index: nearest.index!
      })
  )
}

/**
 * An adapter's decoding of a parsed document as steps: its `decodeSteps`,
 * which pause between messages, or (an adapter without them) its `decode`
 * in one piece.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeSteps = (
  adapter: Adapter.Adapter,
  document: unknown
): Cooperative.Steps<Either.Either<Adapter.Decoded, Adapter.AdapterError>> =>
  adapter.decodeSteps !== undefined
    ? adapter.decodeSteps(document)
    : (function*() {
      return adapter.decode(document)
    })()

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
): Either.Either<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError> =>
  Cooperative.runSync(decodeTextSteps(adapters, text, format))

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
): Cooperative.Steps<
  Either.Either<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError>
> {
  const document = yield* parseTextSteps(text)
  if (Either.isLeft(document)) return Either.left(document.left)
  return yield* decodeDocumentSteps(adapters, document.right, format)
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
): Either.Either<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError> =>
  Cooperative.runSync(decodeTranscriptSteps(adapters, transcript, format))

/**
 * {@link decodeTranscript} as steps that pause between messages.
 *
 * @since 0.1.0
 * @category decoding
 */
export const decodeTranscriptSteps = (
  adapters: ReadonlyArray<Adapter.Adapter>,
  transcript: unknown,
  format: Adapter.Format | "auto" = "auto"
): Cooperative.Steps<
  Either.Either<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError>
> =>
  typeof transcript === "string"
    ? decodeTextSteps(adapters, transcript, format)
    : decodeDocumentSteps(adapters, { container: "json", value: transcript }, format)

function* decodeDocumentSteps(
  adapters: ReadonlyArray<Adapter.Adapter>,
  document: Document,
  format: Adapter.Format | "auto"
): Cooperative.Steps<
  Either.Either<{ readonly document: Document; readonly decoded: Adapter.Decoded }, Adapter.AdapterError>
> {
  const adapter = yield* adapterForSteps(adapters, document.value, format)
  if (Either.isLeft(adapter)) return Either.left(adapter.left)
  const decoded = yield* decodeSteps(adapter.right, document.value)
  return Either.map(decoded, (decoded) => ({ document, decoded }))
}
