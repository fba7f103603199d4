/**
 * How the adapters read native documents with `effect/Schema`: schemas that
 * check a message, a part or a field and say, in words a user can act on,
 * what is wrong with it; an adapter adds where (`tool-call part 2 of the
 * assistant message`) and which message. The schemas only check and read:
 * the document's own objects are what an adapter keeps and writes back, so
 * every field it does not know, and the identity of every message, survive a
 * round trip. (So the schemas name only the fields they read: a decoded
 * copy of the rest, by `Schema.Record` or `onExcessProperty: "preserve"`,
 * would be thrown away unread.) Fields are read as JSON has them: a field
 * that is absent is not one that holds `undefined` (`exact`).
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Json from "../../Json.js"

/**
 * A native message, part or field as parsed: a plain object, read by its fields.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = Record<string, unknown>

/**
 * Whether a value is a plain object (not `null`, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isRecord = (value: unknown): value is Native =>
  typeof value === "object" && value !== null && !Array.isArray(value)

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
export const describe = (value: unknown): string =>
  value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : typeof value === "string"
    ? (Json.isRawNumber(value) ? "number" : JSON.stringify(value.slice(0, 40)))
    : typeof value

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
