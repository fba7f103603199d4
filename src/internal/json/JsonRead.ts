/**
 * The JSON reader's Effect 3 API: `parse`, `parseSteps` and `parseExactly` answer with an `Either`
 * and a `JsonParseError`, over the shared core's reader (`JsonReader.ts`, whose names this module
 * gives too). `Json` is its documented face.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Cooperative from "../Cooperative.js"
import type * as Result from "../Result.js"
import * as JsonReader from "./JsonReader.js"
import type * as Json from "./JsonValue.js"

export * from "./JsonReader.js"

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
 * Parses JSON text of any size and depth (`JsonReader.read`), as an `Either`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (
  text: string,
  options: { readonly exactIntegers?: boolean } = {}
): Either.Either<Json.Json, JsonParseError> => toEither(JsonReader.read(text, options))

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
): Cooperative.Steps<Either.Either<Json.Json, JsonParseError>> {
  return toEither(yield* JsonReader.readSteps(text, options))
}

/**
 * Parses JSON text with the iterative reader whatever it holds (`JsonReader.readExactly`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseExactly = (text: string): Either.Either<Json.Json, JsonParseError> =>
  toEither(JsonReader.readExactly(text))

const toEither = (read: Result.Result<Json.Json, string>): Either.Either<Json.Json, JsonParseError> =>
  read._tag === "Ok" ? Either.right(read.value) : Either.left(new JsonParseError({ reason: read.error }))
