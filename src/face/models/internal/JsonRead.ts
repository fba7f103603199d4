/**
 * The JSON reader's face API: `parse`, `parseSteps` and `parseExactly` answer with the compat
 * `Result` (an `Either` on Effect 3, a `Result` on Effect 4) and a `JsonParseError`, over the shared
 * core's reader (`JsonReader.ts`, whose names this module gives too). `Json` is its documented face.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as JsonReader from "../../../core/json/JsonReader.js"
import type * as Json from "../../../core/json/JsonValue.js"
import type * as Result from "../../../core/Result.js"
import type * as Steps from "../../../core/Steps.js"

export * from "../../../core/json/JsonReader.js"

/**
 * Text that could not be parsed as JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonParseError extends Schema.TaggedError<JsonParseError>()("JsonParseError", {
  reason: Schema.String
}) {}

/**
 * Parses JSON text of any size and depth (`JsonReader.read`), as a `Result` (an `Either` on Effect 3).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  text: string,
  options: { readonly exactIntegers?: boolean } = {}
): Compat.Result<Json.Json, JsonParseError> => toResult(JsonReader.read(text, options))

/**
 * {@link parse} as steps (`JsonReader.readSteps`): the same result, for a caller that lets the
 * event loop run while a long text is read (`Cooperative.run`).
 *
 * @since 0.1.0
 * @category parsing
 */
export function* parseSteps(
  text: string,
  options: { readonly exactIntegers?: boolean } = {}
): Steps.Steps<Compat.Result<Json.Json, JsonParseError>> {
  return toResult(yield* JsonReader.readSteps(text, options))
}

/**
 * Parses JSON text with the iterative reader whatever it holds (`JsonReader.readExactly`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseExactly = (text: string): Compat.Result<Json.Json, JsonParseError> =>
  toResult(JsonReader.readExactly(text))

/**
 * The core reader's answer (`JsonReader.read`, `JsonContinuation.read`) as {@link parse}'s.
 *
 * @since 0.1.0
 * @category parsing
 */
export const toResult = (read: Result.Result<Json.Json, string>): Compat.Result<Json.Json, JsonParseError> =>
  read._tag === "Ok"
    ? Compat.Result.succeed(read.value)
    : Compat.Result.fail(new JsonParseError({ reason: read.error }))
