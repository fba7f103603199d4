/**
 * JSON values as the rules see them, and a reader and writer for the places
 * where JavaScript's own JSON functions lose data or crash: number literals a
 * double cannot hold (integers past 2^53, `1e400`) and nesting deeper than the
 * stack.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Cooperative from "./internal/Cooperative.js"

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
 * The prefix of the placeholder string that stands for a number literal a
 * double cannot hold exactly (an integer past 2^53, `1e400`, 30 significant
 * digits) while the rules run; {@link stringify} writes the literal back.
 */
// A per-process nonce in the placeholder: no string of the input can forge one.
const rawNumberNonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0")).join("")
const rawNumberTag = `context-compressor:number:${rawNumberNonce}:`
const rawNumberPrefix = "\u0000" + rawNumberTag
const numberLiteral = "-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?"
const rawNumberPattern = new RegExp(`^\\u0000${rawNumberTag}(${numberLiteral})$`)
const rawNumberInText = new RegExp(`"\\\\u0000${rawNumberTag}(${numberLiteral})"`, "g")
const numberLiteralPattern = new RegExp(`^${numberLiteral}$`)

/**
 * Whether a string is the placeholder of a number literal kept exactly.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRawNumber = (value: string): boolean => value.startsWith(rawNumberPrefix) && rawNumberPattern.test(value)

/**
 * The literal a placeholder stands for (`"1e400"`), or `undefined` for any other string.
 *
 * @since 0.1.0
 * @category getters
 */
export const rawNumberLiteral = (value: string): string | undefined => {
  if (!value.startsWith(rawNumberPrefix)) return undefined
  const match = rawNumberPattern.exec(value)
  return match === null ? undefined : match[1]
}

/**
 * The placeholder of a number literal, as {@link parse} makes it; the literal
 * must be a JSON number.
 *
 * @since 0.1.0
 * @category constructors
 */
export const rawNumber = (literal: string): string => rawNumberPrefix + literal

/**
 * Whether a JSON value is a number, or the placeholder of one kept exactly.
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

/**
 * Whether JSON text may hold a number literal that `JSON.parse` would not keep
 * exactly: 16 digits in a row, an exponent of three digits, or a negative zero
 * (which `JSON.stringify` writes as `0`). A cheap linear
 * check; `true` only means the exact parse is needed to know.
 *
 * @since 0.1.0
 * @category parsing
 */
export const mayHoldInexactNumbers = (text: string): boolean => inexactNumberHint.test(text)

// 16 digits in a row, a three-digit exponent, or a negative zero (`-0`, `-0.0`, `-0e5`) where a value starts.
const inexactNumberHint = /\d{16}|\d[eE][+-]?\d{3}|(?:^|[:,[\s])-0(?:\.0+)?(?:[eE][+-]?\d+)?(?=[\s,\]}]|$)/

/**
 * The former name of {@link mayHoldInexactNumbers}.
 *
 * @since 0.1.0
 * @category parsing
 */
export const mayHoldLargeIntegers = mayHoldInexactNumbers

/** A decimal literal as its significant digits and the power of ten of the last one. */
const decimalOf = (literal: string): { readonly digits: string; readonly exponent: number } => {
  const body = literal.charCodeAt(0) === 45 ? literal.slice(1) : literal
  const e = body.search(/[eE]/)
  const mantissa = e === -1 ? body : body.slice(0, e)
  let exponent = e === -1 ? 0 : Number(body.slice(e + 1))
  const dot = mantissa.indexOf(".")
  let digits = mantissa
  if (dot !== -1) {
    digits = mantissa.slice(0, dot) + mantissa.slice(dot + 1)
    exponent -= mantissa.length - dot - 1
  }
  let start = 0
  while (start < digits.length - 1 && digits.charCodeAt(start) === 48) start++
  let end = digits.length
  while (end > start + 1 && digits.charCodeAt(end - 1) === 48) {
    end--
    exponent++
  }
  digits = digits.slice(start, end)
  return digits === "0" ? { digits, exponent: 0 } : { digits, exponent }
}

/** A number literal as a double when the double writes back as the same decimal, else its placeholder. */
const exactNumber = (literal: string): number | string => {
  const value = Number(literal)
  // JSON.stringify writes -0 as 0: a negative zero is kept as its literal.
  if (Object.is(value, -0)) return rawNumberPrefix + literal
  if (/^-?(?:0|[1-9]\d{0,14})$/.test(literal)) return value
  if (!Number.isFinite(value)) return rawNumberPrefix + literal
  const written = decimalOf(String(value))
  const read = decimalOf(literal)
  return written.digits === read.digits && written.exponent === read.exponent ? value : rawNumberPrefix + literal
}

const isWhitespace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9

class SyntaxFailure {
  constructor(readonly reason: string) {}
}

const describeAt = (text: string, index: number): string =>
  index >= text.length
    ? "Unexpected end of JSON input"
    : `Unexpected token ${JSON.stringify(text.slice(index, index + 1))} at position ${index}`

interface Frame {
  readonly container: Array<unknown> | Record<string, unknown>
  key: string | undefined
}

/** How many tokens the exact reader reads between two pauses. */
const tokensPerStep = 4_096

/**
 * An iterative JSON reader: no recursion (any depth), no regular expression
 * over the whole text (strings of any length), every number literal kept
 * exactly (a double when it writes back the same, else a placeholder). As
 * steps that pause every few thousand tokens.
 */
function* parseExact(text: string): Cooperative.Steps<unknown> {
  const length = text.length
  let index = 0
  const stack: Array<Frame> = []
  let root: unknown = undefined
  const skip = () => {
    while (index < length && isWhitespace(text.charCodeAt(index))) index++
  }
  const readString = (): string => {
    const start = index
    // A short string without escapes is read here; a long one or one with escapes natively below.
    for (let i = index + 1, stop = Math.min(length, index + 257); i < stop; i++) {
      const code = text.charCodeAt(i)
      if (code === 34) {
        index = i + 1
        return text.slice(start + 1, i)
      }
      if (code === 92) break
      if (code < 32) throw new SyntaxFailure(`Bad control character in string literal in JSON at position ${i}`)
    }
    let end = index + 1
    for (;;) {
      end = text.indexOf("\"", end)
      if (end === -1) throw new SyntaxFailure("Unterminated string in JSON at position " + start)
      let backslashes = 0
      while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes++
      if (backslashes % 2 === 0) break
      end++
    }
    index = end + 1
    try {
      // The literal alone: JSON.parse checks its escapes and control characters natively.
      return JSON.parse(text.slice(start, end + 1)) as string
    } catch {
      throw new SyntaxFailure(`Bad string in JSON at position ${start}`)
    }
  }
  const readScalar = (): unknown => {
    const code = text.charCodeAt(index)
    if (code === 34) return readString()
    if (text.startsWith("true", index)) {
      index += 4
      return true
    }
    if (text.startsWith("false", index)) {
      index += 5
      return false
    }
    if (text.startsWith("null", index)) {
      index += 4
      return null
    }
    const start = index
    while (index < length) {
      const c = text.charCodeAt(index)
      if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69) index++
      else break
    }
    const literal = text.slice(start, index)
    if (literal === "" || !numberLiteralPattern.test(literal)) throw new SyntaxFailure(describeAt(text, start))
    return exactNumber(literal)
  }
  // Places a finished value in the innermost container, or as the root.
  const place = (value: unknown) => {
    const frame = stack[stack.length - 1]
    if (frame === undefined) root = value
    else if (Array.isArray(frame.container)) frame.container.push(value)
    else {
      setOwn(frame.container, frame.key!, value)
      frame.key = undefined
    }
  }
  // true: a value is expected next (after `[`, `,` or `:`), false: a separator or a closing bracket.
  let expectValue = true
  let tokens = 0
  skip()
  if (index >= length) throw new SyntaxFailure("Unexpected end of JSON input")
  for (;;) {
    if (++tokens % tokensPerStep === 0) yield
    skip()
    const frame = stack[stack.length - 1]
    if (expectValue) {
      if (frame !== undefined && !Array.isArray(frame.container) && frame.key === undefined) {
        // An object's key, then its colon.
        if (text.charCodeAt(index) !== 34) throw new SyntaxFailure(describeAt(text, index))
        frame.key = readString()
        skip()
        if (text.charCodeAt(index) !== 58) throw new SyntaxFailure(describeAt(text, index))
        index++
        skip()
      }
      const code = text.charCodeAt(index)
      if (code === 123 || code === 91) {
        index++
        const container = code === 123 ? {} : []
        place(container)
        stack.push({ container, key: undefined })
        skip()
        if (text.charCodeAt(index) === (code === 123 ? 125 : 93)) {
          index++
          stack.pop()
          expectValue = false
        }
        continue
      }
      if (index >= length) throw new SyntaxFailure("Unexpected end of JSON input")
      place(readScalar())
      expectValue = false
      continue
    }
    if (frame === undefined) {
      if (index < length) throw new SyntaxFailure(`Unexpected non-whitespace character after JSON at position ${index}`)
      return root
    }
    const code = text.charCodeAt(index)
    if (code === 44) {
      index++
      expectValue = true
      continue
    }
    if (code === (Array.isArray(frame.container) ? 93 : 125)) {
      index++
      stack.pop()
      continue
    }
    throw new SyntaxFailure(describeAt(text, index))
  }
}

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
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, options: { readonly exactIntegers?: boolean } = {}): Either.Either<Json, JsonParseError> =>
  Cooperative.runSync(parseSteps(text, options))

/**
 * {@link parse} as steps: the same result, for a caller that lets the event
 * loop run while a long text is read (`Cooperative.run`). The exact reader
 * pauses every few thousand tokens; the native `JSON.parse`, which text
 * without an inexact number goes to, reads in one piece.
 *
 * @since 0.1.0
 * @category parsing
 */
export function* parseSteps(text: string, options: { readonly exactIntegers?: boolean } = {}): Cooperative.Steps<Either.Either<Json, JsonParseError>> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Either.right(
      (options.exactIntegers === false || !mayHoldInexactNumbers(source) ? JSON.parse(source) : yield* parseExact(source)) as Json
    )
  } catch (error) {
    const reason = error instanceof SyntaxFailure ? error.reason : error instanceof Error ? error.message : String(error)
    return Either.left(new JsonParseError({ reason: reason.length > 200 ? reason.slice(0, 199) + "…" : reason }))
  }
}

/**
 * Parses JSON text with the iterative reader whatever it holds (see {@link parse}).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseExactly = (text: string): Either.Either<Json, JsonParseError> => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Either.right(Cooperative.runSync(parseExact(source)) as Json)
  } catch (error) {
    return Either.left(new JsonParseError({ reason: error instanceof SyntaxFailure ? error.reason : String(error) }))
  }
}

/**
 * JSON text written by `JSON.stringify` (not {@link stringify}) with its
 * number placeholders turned back into their exact literals: for serialisers
 * outside this module (an HTTP response body).
 *
 * @since 0.1.0
 * @category formatting
 */
export const restoreRawNumbers = (text: string): string => text.includes(rawNumberTag) ? text.replace(rawNumberInText, "$1") : text

// A placeholder inside JSON text that is itself held as a string (written by JSON.stringify, then quoted again).
const rawNumberInNestedText = new RegExp(`\\\\"\\\\\\\\u0000${rawNumberTag}(${numberLiteral})\\\\"`, "g")
// What is left of any placeholder once the whole ones are written back: its prefix, raw or escaped any number of times.
const rawNumberPrefixAnywhere = new RegExp(`(?:\\u0000|\\\\+u0000)${rawNumberTag}`, "g")

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
export const withoutRawNumbers = (text: string): string =>
  !text.includes(rawNumberTag)
    ? text
    : text.replace(rawNumberInText, "$1").replace(rawNumberInNestedText, "$1").replace(rawNumberPrefixAnywhere, "")

/** `JSON.stringify` without recursion, for values nested deeper than its stack allows. */
const stringifyIterative = (value: unknown, indent: string): string => {
  const out: Array<string> = []
  const newline = indent === "" ? "" : "\n"
  const colon = indent === "" ? ":" : ": "
  interface Open {
    readonly entries: ReadonlyArray<readonly [string | undefined, unknown]>
    readonly close: string
    next: number
    written: number
    readonly depth: number
  }
  const stack: Array<Open> = []
  const ancestors = new Set<object>()
  const holders: Array<object> = []
  // Writes a value, or opens its container; false when it is skipped (undefined, a function).
  const emit = (current: unknown, key: string | undefined, inArray: boolean, depth: number, prefix: string): boolean => {
    let item = current
    if (item !== null && typeof item === "object" && typeof (item as { toJSON?: unknown }).toJSON === "function") {
      item = (item as { toJSON: (key: string) => unknown }).toJSON(key ?? "")
    }
    if (typeof item === "bigint") throw new TypeError("Do not know how to serialize a BigInt")
    if (item === undefined || typeof item === "function" || typeof item === "symbol") {
      if (!inArray) return false
      out.push(prefix, "null")
      return true
    }
    if (item === null || typeof item !== "object") {
      out.push(prefix, JSON.stringify(item))
      return true
    }
    if (ancestors.has(item)) throw new TypeError("Converting circular structure to JSON")
    const entries: Array<readonly [string | undefined, unknown]> = Array.isArray(item)
      ? item.map((element) => [undefined, element] as const)
      : Object.keys(item).map((name) => [name, (item as Record<string, unknown>)[name]] as const)
    ancestors.add(item)
    holders.push(item)
    out.push(prefix, Array.isArray(item) ? "[" : "{")
    stack.push({ entries, close: Array.isArray(item) ? "]" : "}", next: 0, written: 0, depth })
    return true
  }
  emit(value, undefined, true, 0, "")
  if (stack.length === 0) return out.join("")
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!
    if (top.next >= top.entries.length) {
      stack.pop()
      ancestors.delete(holders.pop()!)
      out.push(top.written > 0 ? newline + indent.repeat(top.depth) + top.close : top.close)
      continue
    }
    const [name, child] = top.entries[top.next++]!
    const lead = (top.written > 0 ? "," : "") + newline + indent.repeat(top.depth + 1)
    const prefix = name === undefined ? lead : lead + JSON.stringify(name) + colon
    if (emit(child, name, name === undefined, top.depth + 1, prefix)) top.written++
  }
  return out.join("")
}

/**
 * A value's JSON text as `JSON.stringify` writes it, past its stack without
 * recursion and with the placeholders written back as their literals; or
 * `undefined` for what JSON skips (`undefined`, a function).
 */
const writeText = (value: unknown, indent?: number): string | undefined => {
  let text: string | undefined
  try {
    text = JSON.stringify(value, null, indent)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    text = stringifyIterative(value, indent === undefined ? "" : " ".repeat(Math.min(Math.max(0, Math.floor(indent)), 10)))
  }
  return text === undefined ? undefined : restoreRawNumbers(text)
}

/**
 * Serialises a JSON value, writing number placeholders back as their exact
 * literals. Any depth: a value nested deeper than `JSON.stringify`'s stack is
 * written without recursion. Throws only where `JSON.stringify` would for other
 * reasons (a cycle, a `bigint`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const stringify = (value: unknown, indent?: number): string => writeText(value, indent) ?? "null"

/** Whether the stepped writer writes a value's entries one by one: a plain array, or a plain object near the top. */
const splits = (value: unknown, depth: number): value is ReadonlyArray<unknown> | Record<string, unknown> => {
  if (typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") return false
  if (Array.isArray(value)) return depth < 3
  const prototype = Object.getPrototypeOf(value)
  return depth < 2 && (prototype === Object.prototype || prototype === null)
}

/**
 * {@link stringify} (compact) as steps: a long array near the top of the
 * value (an answer's transcript, its view) is written element by element,
 * pausing every few elements, so that a caller can let the event loop run
 * while a large value is written (`Cooperative.run`). The same text as
 * `stringify(value)`; each element is written by `JSON.stringify`, which
 * cannot be cut.
 *
 * @since 0.1.0
 * @category formatting
 */
export function* stringifySteps(value: unknown): Cooperative.Steps<string> {
  const out: Array<string> = []
  let written = 0
  // Writes a value; false when JSON skips it (an object's field that is undefined, a function).
  function* write(current: unknown, depth: number): Cooperative.Steps<boolean> {
    if (!splits(current, depth)) {
      const text = writeText(current)
      if (++written % Cooperative.itemsPerStep === 0) yield
      if (text === undefined) return false
      out.push(text)
      return true
    }
    if (Array.isArray(current)) {
      out.push("[")
      for (let index = 0; index < current.length; index++) {
        if (index > 0) out.push(",")
        if (!(yield* write(current[index], depth + 1))) out.push("null")
      }
      out.push("]")
      return true
    }
    const record = current as Record<string, unknown>
    out.push("{")
    let fields = 0
    for (const key of Object.keys(record)) {
      const at = out.length
      out.push(fields > 0 ? "," : "", JSON.stringify(key), ":")
      if (yield* write(record[key], depth + 1)) fields++
      else out.length = at
    }
    out.push("}")
    return true
  }
  return (yield* write(value, 0)) ? out.join("") : "null"
}

/**
 * The length of a value's compact JSON text as {@link stringify} writes it, or
 * `undefined` when it cannot be serialised (a cycle, a `bigint`).
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
