/**
 * How the @effect/ai `Prompt` adapter (which stays on Effect 3) reads native
 * documents with `effect/Schema`: schemas that check a message, a part or a
 * field and say, in words a user can act on, what is wrong with it; the
 * adapter adds where and which message. The other adapters read documents
 * with the shared core's checks (`internal/adapters/Native.ts`), on both
 * faces. The schemas only check and read: the document's own objects are
 * what an adapter keeps and writes back, so every field it does not know, and
 * the identity of every message, survive a round trip. Fields are read as
 * JSON has them: a field that is absent is not one that holds `undefined`
 * (`exact`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as CoreNative from "../../internal/adapters/Native.js"
import * as Json from "../../Json.js"

/**
 * A native message, part or field as parsed: a plain object, read by its fields.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = CoreNative.Native

/**
 * Whether a value is a plain object (not `null`, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isRecord: (value: unknown) => value is Native = CoreNative.isRecord

/**
 * A plain object (a `Schema.Struct` alone would take an array too).
 *
 * @since 0.1.0
 * @category schemas
 */
export const NativeObject: Schema.Schema<Native> = Schema.declare(isRecord, { identifier: "NativeObject" })

/**
 * An array, its elements not read: what `Schema.Array(Schema.Unknown)`
 * accepts, without walking (and copying) a document's every message to find
 * out, so that locating the messages of a long document costs nothing.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UnknownArray: Schema.Schema<ReadonlyArray<unknown>> = Schema.declare(
  (value: unknown): value is ReadonlyArray<unknown> => Array.isArray(value),
  { identifier: "UnknownArray" }
)

/**
 * A value named in an error: a string quoted (its first 40 characters), anything
 * else by its kind; a number `Json.parse` kept as a placeholder is a number.
 *
 * @since 0.1.0
 * @category errors
 */
export const describe: (value: unknown) => string = CoreNative.describe

/**
 * A string of the document: not the placeholder `Json.parse` puts where a
 * number literal a double cannot hold was (`1e400`, an integer past 2^53).
 * Such a value was a number in the JSON, and a field that needs text refuses
 * it as it refuses any other number.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Text: Schema.Schema<string> = Schema.String.pipe(
  Schema.filter((value) => !Json.isRawNumber(value), { identifier: "Text" })
)

/**
 * A schema whose failure says `problem` of the value it found, in place of
 * Schema's own message (`has no string toolCallId`, `has the role "bot"; …`).
 *
 * @since 0.1.0
 * @category annotations
 */
export const saying = <S extends Schema.Annotable.All>(
  schema: S,
  problem: (actual: unknown) => string
): Schema.Annotable.Self<S> =>
  schema.annotations({
    message: (issue) => ({ message: problem(issue.actual), override: true })
  }) as Schema.Annotable.Self<S>

/**
 * A required field whose absence, or a value of the wrong kind, says `problem`.
 *
 * @since 0.1.0
 * @category annotations
 */
export const required = <S extends Schema.Schema.Any & Schema.Annotable.All>(
  schema: S,
  problem: (actual: unknown) => string
) =>
  Schema.propertySignature(
    saying(schema, problem) as Schema.Schema<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>, never>
  ).annotations({
    missingMessage: () => problem(undefined)
  })

/**
 * A decoder of a schema that never throws: the value as the schema reads it,
 * or what is wrong with it (the first problem found, as its schema words it).
 *
 * @since 0.1.0
 * @category decoding
 */
export const decoder = <A, I>(schema: Schema.Schema<A, I, never>): (value: unknown) => Either.Either<A, string> => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "first", exact: true })
  return (value) =>
    Either.mapLeft(decode(value), (error) => {
      const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
      return issue === undefined ? ParseResult.TreeFormatter.formatErrorSync(error) : issue.message
    })
}
