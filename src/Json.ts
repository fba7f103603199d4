/**
 * JSON values as the rules see them, and the two places where JavaScript's own
 * JSON functions lose data: integers past 2^53 and nesting deeper than the stack.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"

/**
 * A JSON value.
 *
 * @since 0.1.0
 * @category models
 */
export type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

/**
 * A JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: Json }

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
 * The prefix of the placeholder string that stands for an integer literal past
 * 2^53 while the rules run; {@link stringify} writes the literal back.
 */
// A per-process nonce in the placeholder: no string of the input can forge one.
const rawNumberNonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("")
const rawNumberTag = `context-compressor:number:${rawNumberNonce}:`
const rawNumberPrefix = "\u0000" + rawNumberTag
const rawNumberPattern = new RegExp(`^\\u0000${rawNumberTag}(-?\\d+)$`)
const rawNumberInText = new RegExp(`"\\\\u0000${rawNumberTag}(-?\\d+)"`, "g")

/**
 * Whether a string is the placeholder of an integer literal past 2^53.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRawNumber = (value: string): boolean => value.startsWith(rawNumberPrefix) && rawNumberPattern.test(value)

/**
 * Whether a JSON value is a number, or the placeholder of one past 2^53.
 *
 * @since 0.1.0
 * @category guards
 */
export const isNumberLike = (value: unknown): boolean =>
  typeof value === "number" || (typeof value === "string" && isRawNumber(value))

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// A string literal, or a number literal: used to find integer literals outside strings.
const tokenPattern = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g

/**
 * Whether JSON text may hold an integer literal past 2^53: a number literal
 * follows `:`, `[` or `,`, and without 16 digits there none can. A cheap
 * check; `true` only means the exact parse is needed to know.
 *
 * @since 0.1.0
 * @category parsing
 */
export const mayHoldLargeIntegers = (text: string): boolean => /[:[,]\s*-?\d{16}/.test(text)

const protectLargeIntegers = (text: string): { readonly text: string; readonly found: boolean } => {
  if (!mayHoldLargeIntegers(text)) return { text, found: false }
  let found = false
  const rewritten = text.replace(tokenPattern, (token) => {
    if (token.charCodeAt(0) === 34) return token
    if (/[.eE]/.test(token)) return token
    if (Number.isSafeInteger(Number(token))) return token
    found = true
    return JSON.stringify(rawNumberPrefix + token)
  })
  return { text: rewritten, found }
}

/**
 * Parses JSON text. Integer literals past 2^53 are kept exactly (as placeholders
 * that {@link stringify} turns back into the same literal) instead of being
 * rounded by `JSON.parse`; with `exactIntegers: false`, the text goes to
 * `JSON.parse` as it is (faster, for callers that check for
 * {@link isLossyInteger} values and parse again).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, options: { readonly exactIntegers?: boolean } = {}): Either.Either<Json, JsonParseError> => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Either.right(JSON.parse(options.exactIntegers === false ? source : protectLargeIntegers(source).text) as Json)
  } catch (error) {
    return Either.left(new JsonParseError({ reason: error instanceof Error ? error.message : String(error) }))
  }
}

/**
 * Serialises a JSON value produced by the rules, writing integer placeholders
 * back as their exact literals. Throws only where `JSON.stringify` would (a value
 * nested deeper than the stack); values the interpreter returns are depth-bounded.
 *
 * @since 0.1.0
 * @category formatting
 */
export const stringify = (value: unknown, indent?: number): string => {
  const text = JSON.stringify(value, null, indent) ?? "null"
  return text.includes(rawNumberTag) ? text.replace(rawNumberInText, "$1") : text
}

/**
 * The length of a value's compact JSON text as {@link stringify} writes it, or
 * `undefined` when it cannot be serialised (nesting deeper than the stack).
 *
 * @since 0.1.0
 * @category formatting
 */
export const size = (value: unknown): number | undefined => stringifyOrUndefined(value)?.length

/**
 * {@link stringify}, or `undefined` where it would throw.
 *
 * @since 0.1.0
 * @category formatting
 */
export const stringifyOrUndefined = (value: unknown): string | undefined => {
  try {
    return stringify(value)
  } catch {
    return undefined
  }
}

/**
 * Sets an own property, including keys such as `__proto__` that a plain
 * assignment would treat as the prototype.
 *
 * @since 0.1.0
 * @category constructors
 */
export const setOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else {
    target[key] = value
  }
}

/**
 * Reads an own property only: `__proto__`, `constructor` and the like never
 * reach the prototype chain.
 *
 * @since 0.1.0
 * @category getters
 */
export const getOwn = (value: unknown, key: string): unknown => {
  if (typeof value !== "object" || value === null) return undefined
  if (Array.isArray(value)) {
    if (!/^(0|[1-9]\d*)$/.test(key)) return undefined
    return value[Number(key)]
  }
  return Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined
}

/**
 * Reads a dotted path of own keys (`data.approval.id`); array elements by index.
 *
 * @since 0.1.0
 * @category getters
 */
export const getPath = (value: unknown, path: string): unknown => {
  if (path === "") return value
  let current = value
  for (const key of path.split(".")) {
    current = getOwn(current, key)
    if (current === undefined) return undefined
  }
  return current
}

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
export const fromUnknown = (value: unknown, maxDepth = 256): { readonly json: Json; readonly cut: number } => {
  let cut = 0
  const ancestors = new Set<object>()
  const go = (current: unknown, depth: number): Json | undefined => {
    switch (typeof current) {
      case "string":
      case "boolean":
        return current
      case "number":
        return Number.isFinite(current) ? current : null
      case "bigint":
        return Number.isSafeInteger(Number(current)) ? Number(current) : rawNumberPrefix + current.toString()
      case "undefined":
      case "function":
      case "symbol":
        return undefined
    }
    if (current === null) return null
    const object = current as object
    if (typeof (object as { toJSON?: unknown }).toJSON === "function") {
      return go((object as { toJSON: () => unknown }).toJSON(), depth)
    }
    if (depth >= maxDepth) {
      cut++
      return depthMarker(maxDepth)
    }
    if (ancestors.has(object)) {
      cut++
      return circularMarker
    }
    ancestors.add(object)
    let result: Json
    if (Array.isArray(object)) {
      result = object.map((item) => go(item, depth + 1) ?? null)
    } else {
      const out: Record<string, Json> = {}
      for (const key of Object.keys(object)) {
        const child = go((object as Record<string, unknown>)[key], depth + 1)
        if (child !== undefined) setOwn(out, key, child)
      }
      result = out
    }
    ancestors.delete(object)
    return result
  }
  return { json: go(value, 0) ?? null, cut }
}

/**
 * The marker that replaces a subtree nested deeper than the limit.
 *
 * @since 0.1.0
 * @category constructors
 */
export const depthMarker = (maxDepth: number): string => `[nesting deeper than ${maxDepth} levels elided]`

/**
 * The marker that replaces a value met again inside itself.
 *
 * @since 0.1.0
 * @category constants
 */
export const circularMarker = "[circular reference elided]"

/**
 * Whether a parsed number may have lost digits: an integer past 2^53.
 *
 * @since 0.1.0
 * @category guards
 */
export const isLossyInteger = (value: number): boolean => !Number.isSafeInteger(value) && Number.isInteger(value)
