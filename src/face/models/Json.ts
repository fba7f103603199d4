/**
 * JSON values as the rules see them, and a reader and writer for the places
 * where JavaScript's own JSON functions lose data or crash: number literals a
 * double cannot hold (integers past 2^53, `1e400`) and nesting deeper than the
 * stack. `parse` and `parseExactly` answer with an `Either` on Effect 3 and a `Result` on
 * Effect 4 (the compat `Result`).
 *
 * @since 0.1.0
 */
import type * as Compat from "#compat"
import * as JsonTree from "../../core/json/JsonTree.js"
import type * as JsonValue from "../../core/json/JsonValue.js"
import * as JsonWrite from "../../core/json/JsonWrite.js"
import * as JsonRead from "./internal/JsonRead.js"

/**
 * A JSON value: `null | boolean | number | string | ReadonlyArray<Json> |
 * { readonly [key: string]: Json }` (defined in `core/json/JsonValue.ts`,
 * below this module's reader and writer).
 *
 * @since 0.1.0
 * @category models
 */
export type Json = JsonValue.Json

/**
 * A JSON object: `{ readonly [key: string]: Json }`.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = JsonValue.JsonObject

/**
 * Text that could not be parsed as JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export const JsonParseError: typeof JsonRead.JsonParseError = JsonRead.JsonParseError

/**
 * Text that could not be parsed as JSON.
 *
 * @since 0.1.0
 * @category errors
 */
export type JsonParseError = JsonRead.JsonParseError

/**
 * Whether a string is the placeholder of a number literal kept exactly.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRawNumber: (value: string) => boolean = JsonRead.isRawNumber

/**
 * The literal a placeholder stands for (`"1e400"`), or `undefined` for any other string.
 *
 * @since 0.1.0
 * @category getters
 */
export const rawNumberLiteral: (value: string) => string | undefined = JsonRead.rawNumberLiteral

/**
 * The placeholder of a number literal, as {@link parse} makes it; the literal
 * must be a JSON number.
 *
 * @since 0.1.0
 * @category constructors
 */
export const rawNumber: (literal: string) => string = JsonRead.rawNumber

/**
 * Whether a JSON value is a number, or the placeholder of one kept exactly.
 *
 * @since 0.1.0
 * @category guards
 */
export const isNumberLike: (value: unknown) => boolean = JsonRead.isNumberLike

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject: (value: unknown) => value is JsonObject = JsonTree.isObject

/**
 * Whether JSON text may hold a number literal that `JSON.parse` would not keep
 * exactly: 16 digits in a row, an exponent of three digits, or a negative zero
 * (which `JSON.stringify` writes as `0`). A cheap linear
 * check; `true` only means the exact parse is needed to know.
 *
 * @since 0.1.0
 * @category parsing
 */
export const mayHoldInexactNumbers: (text: string) => boolean = JsonRead.mayHoldInexactNumbers

/**
 * The former name of {@link mayHoldInexactNumbers}.
 *
 * @since 0.1.0
 * @category parsing
 */
export const mayHoldLargeIntegers: (text: string) => boolean = JsonRead.mayHoldLargeIntegers

/**
 * Parses JSON text of any size and depth. Every number literal is kept exactly:
 * one a double cannot hold (an integer past 2^53, `1e400`, a decimal with more
 * digits than a double keeps) or that would not be written back the same in
 * value (`-0`) becomes a placeholder that {@link stringify}
 * writes back as the same literal. Text without such a literal goes to the
 * native `JSON.parse` (which is iterative); with `exactIntegers: false` all
 * text does (faster, for callers that check for {@link isLossyInteger} values
 * and parse again).
 *
 * @example
 * ```ts
 * import { Either } from "effect"
 * import { Json } from "context-compressor"
 *
 * // An id past 2^53 survives the round trip, which JSON.parse + JSON.stringify would round.
 * const text = '{"id":12345678901234567890,"ok":true}'
 * const value = Either.getOrThrow(Json.parse(text))
 * assert.strictEqual(Json.stringify(value), text)
 * assert.notStrictEqual(JSON.stringify(JSON.parse(text)), text)
 * ```
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse: (
  text: string,
  options?: { readonly exactIntegers?: boolean }
) => Compat.Result<Json, JsonParseError> = JsonRead.parse

/**
 * How deeply the arrays and objects of a JSON text nest (0 for a scalar,
 * 1 for `[]`), read in one pass without parsing and without recursion; past
 * `limit` it stops and answers `limit + 1`. Brackets inside strings do not
 * count. The servers refuse a body past their depth limit with it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const nestingDepth: (text: string, limit?: number) => number = JsonRead.nestingDepth

/**
 * Parses JSON text with the iterative reader whatever it holds (see {@link parse}).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseExactly: (text: string) => Compat.Result<Json, JsonParseError> = JsonRead.parseExactly

/**
 * JSON text written by `JSON.stringify` (not {@link stringify}) with its
 * number placeholders turned back into their exact literals: for serialisers
 * outside this module (an HTTP response body).
 *
 * @since 0.1.0
 * @category formatting
 */
export const restoreRawNumbers: (text: string) => string = JsonWrite.restoreRawNumbers

/**
 * Text with no number placeholder left in it, for what leaves the process (an
 * HTTP answer, an error message): a placeholder that is a whole JSON string
 * becomes its literal (as {@link restoreRawNumbers} does), one inside JSON text
 * held as a string too, and any other (a placeholder written into a message)
 * becomes the bare literal. Works on JSON text and on plain text alike.
 *
 * @since 0.1.0
 * @category formatting
 */
export const withoutRawNumbers: (text: string) => string = JsonWrite.withoutRawNumbers

/**
 * Serialises a JSON value, writing number placeholders back as their exact
 * literals. Any depth: a value nested deeper than `JSON.stringify`'s stack is
 * written without recursion. Throws only where `JSON.stringify` would for other
 * reasons (a cycle, a `bigint`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const stringify: (value: unknown, indent?: number) => string = JsonWrite.stringify

/**
 * The length of a value's compact JSON text as {@link stringify} writes it, or
 * `undefined` when it cannot be serialised (a cycle, a `bigint`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const size: (value: unknown) => number | undefined = JsonWrite.size

/**
 * {@link stringify}, or `undefined` where it would throw.
 *
 * @since 0.1.0
 * @category formatting
 */
export const stringifyOrUndefined: (value: unknown) => string | undefined = JsonWrite.stringifyOrUndefined

/**
 * Sets an own property, including keys such as `__proto__` that a plain
 * assignment would treat as the prototype.
 *
 * @since 0.1.0
 * @category constructors
 */
export const setOwn: (target: Record<string, unknown>, key: string, value: unknown) => void = JsonRead.setOwn

/**
 * Reads an own property only: `__proto__`, `constructor` and the like never
 * reach the prototype chain.
 *
 * @since 0.1.0
 * @category getters
 */
export const getOwn: (value: unknown, key: string) => unknown = JsonTree.getOwn

/**
 * Reads a dotted path of own keys (`data.approval.id`); array elements by index.
 *
 * @since 0.1.0
 * @category getters
 */
export const getPath: (value: unknown, path: string) => unknown = JsonTree.getPath

/**
 * Converts any JavaScript value to JSON the way `JSON.stringify` would (dropping
 * functions and `undefined` in objects, `null` for them in arrays, `toJSON` for
 * dates), but bounded: subtrees deeper than `maxDepth` and cycles become short
 * marker strings, and `bigint`s keep their exact digits. Returns how many
 * subtrees were cut.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromUnknown: (value: unknown, maxDepth?: number) => { readonly json: Json; readonly cut: number } =
  JsonTree.fromUnknown

/**
 * The marker that replaces a subtree nested deeper than the limit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const depthMarker: (maxDepth: number) => string = JsonTree.depthMarker

/**
 * The marker that replaces a value met again inside itself.
 *
 * @since 0.1.0
 * @category constants
 */
export const circularMarker: string = JsonTree.circularMarker

/**
 * Whether a parsed number may have lost digits: an integer past 2^53.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLossyInteger: (value: number) => boolean = JsonTree.isLossyInteger
