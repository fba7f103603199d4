/**
 * The adapters' contract in the shared core (docs/effect4.md): a format's
 * codec reads a parsed document into neutral messages made with the face's
 * transcript kit and writes a view of them back, answering with the core's
 * `Result` and a failure as plain data, which each face turns into its
 * `AdapterError` and its `Either` (Effect 3) or `Result` (Effect 4). No
 * Effect import.
 *
 * @since 0.1.0
 */
import type * as Result from "../Result.js"
import type * as Steps from "../Steps.js"
import type * as TranscriptData from "../transcript/TranscriptData.js"

/**
 * The formats adapters exist for.
 *
 * @since 0.1.0
 * @category models
 */
export type Format = "openai" | "anthropic" | "effect-ai" | "ai-sdk" | "openai-responses"

/**
 * The formats, in the order the faces' `Format` schemas list them.
 *
 * @since 0.1.0
 * @category models
 */
export const formats: readonly ["openai", "anthropic", "effect-ai", "ai-sdk", "openai-responses"] = [
  "openai",
  "anthropic",
  "effect-ai",
  "ai-sdk",
  "openai-responses"
]

/**
 * A document that is not a transcript of the format, as plain data: the
 * fields of the faces' `AdapterError` (`format` is `unknown` when no format
 * is at fault).
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly format: string
  readonly index?: number | undefined
  readonly reason: string
}

/**
 * A failure of a format, naming the message at fault when there is one.
 *
 * @since 0.1.0
 * @category constructors
 */
export const failure = (format: string, reason: string, index?: number): Failure =>
  index === undefined ? { format, reason } : { format, reason, index }

/**
 * A decoded document: its neutral transcript (the face's messages, made with
 * the face's kit) and how to write a view of it back in the same format.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoded {
  readonly format: Format
  readonly transcript: TranscriptData.Transcript
  readonly encode: (view: TranscriptData.Transcript) => unknown
}

/**
 * A format's codec: a cheap structural test of a parsed document, and its
 * decoding into the face's messages, as steps that pause between messages.
 *
 * @since 0.1.0
 * @category models
 */
export interface Codec {
  readonly format: Format
  readonly detect: (document: unknown) => boolean
  readonly decodeSteps: (
    document: unknown,
    kit: TranscriptData.Kit
  ) => Steps.Steps<Result.Result<Decoded, Failure>>
}

/**
 * Whether a document's messages open with the very values of `before` (the
 * same objects, in order): what a continuing codec asks before it keeps the
 * decoding of `before`.
 *
 * @since 0.1.0
 * @category decoding
 */
export const repeats = (natives: ReadonlyArray<unknown>, before: ReadonlyArray<unknown>): boolean => {
  if (before.length > natives.length) return false
  for (let index = 0; index < before.length; index++) {
    if (natives[index] !== before[index]) return false
  }
  return true
}

/**
 * A codec that keeps what it found of the arrays it read (`detections`, `decodings`: fresh for each
 * codec made, by an array's first message), over a format's reading with and without them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const continuingCodec = <Detections extends WeakMap<object, any>, Decodings extends WeakMap<object, any>>(
  format: Format,
  detectWith: (document: unknown, detections: Detections) => boolean,
  decodeStepsWith: (
    document: unknown,
    kit: TranscriptData.Kit,
    decodings: Decodings
  ) => Steps.Steps<Result.Result<Decoded, Failure>>
): Codec => {
  const detections = new WeakMap() as Detections
  const decodings = new WeakMap() as Decodings
  return {
    format,
    detect: (document) => detectWith(document, detections),
    decodeSteps: (document, kit) => decodeStepsWith(document, kit, decodings)
  }
}
