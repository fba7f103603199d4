/**
 * The JSON reader behind `Json.parse`, in the shared core (docs/effect4.md): number literals a
 * double cannot hold kept exactly as placeholders (a per-process nonce, so no input string can
 * forge one), an iterative reader of any depth that pauses every few thousand tokens
 * (`readSteps`), and the native `JSON.parse` for text without such a literal. It answers with the
 * core's `Result`; `JsonRead.ts` is its Effect 3 API (`Either`, `JsonParseError`) and `Json` the
 * documented face.
 *
 * @since 0.1.0
 */
import * as Result from "../Result.js"
import * as Steps from "../Steps.js"
import type * as Json from "./JsonValue.js"

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
 * The prefix of the placeholder string that stands for a number literal a
 * double cannot hold exactly (an integer past 2^53, `1e400`, 30 significant
 * digits) while the rules run; `Json.stringify` writes the literal back.
 */
// A per-process nonce in the placeholder: no string of the input can forge one.
const rawNumberNonce = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, "0"))
  .join("")
export const rawNumberTag = `context-compressor:number:${rawNumberNonce}:`
const rawNumberPrefix = "\u0000" + rawNumberTag
export const numberLiteral = "-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?"
const rawNumberPattern = new RegExp(`^\\u0000${rawNumberTag}(${numberLiteral})$`)
export const rawNumberInText = new RegExp(`"\\\\u0000${rawNumberTag}(${numberLiteral})"`, "g")
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
 * The placeholder of a number literal, as {@link read} makes it; the literal
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

/**
 * A number literal as a double when the double writes back as the same decimal, else its placeholder. An integer
 * written as digits stays digits: one that a double writes with an exponent (from 1e21) is kept as its literal.
 */
const exactNumber = (literal: string): number | string => {
  const value = Number(literal)
  // JSON.stringify writes -0 as 0: a negative zero is kept as its literal.
  if (Object.is(value, -0)) return rawNumberPrefix + literal
  if (/^-?(?:0|[1-9]\d{0,14})$/.test(literal)) return value
  if (!Number.isFinite(value)) return rawNumberPrefix + literal
  const text = String(value)
  if (text.includes("e") && /^-?\d+$/.test(literal)) return rawNumberPrefix + literal
  const written = decimalOf(text)
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

/** The length from which V8 makes a slice of a string a view of it (`SlicedString::kMinLength`), not a copy. */
const slicedFrom = 13

/**
 * An iterative JSON reader: no recursion (any depth), no regular expression
 * over the whole text (strings of any length), every number literal kept
 * exactly (a double when it writes back the same, else a placeholder). As
 * steps that pause every few thousand tokens.
 */
function* parseExact(text: string): Steps.Steps<unknown> {
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
        // A slice this long is a view of the whole text, keeping all of it alive while the string lives (a message's
        // id outliving its request's body, one body kept per turn of a session); a slice of a joined copy is not.
        return i - start - 1 >= slicedFrom ? (" " + text.slice(start + 1, i)).slice(1) : text.slice(start + 1, i)
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
 * value (`-0`) becomes a placeholder that the writer
 * writes back as the same literal. Text without such a literal goes to the
 * native `JSON.parse` (which is iterative); with `exactIntegers: false` all
 * text does (faster, for callers that check for lossy integers
 * and parse again). The value, or the reason the text is not JSON (at most
 * 200 characters), as the core's `Result`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const read = (
  text: string,
  options: { readonly exactIntegers?: boolean } = {}
): Result.Result<Json.Json, string> => Steps.runSync(readSteps(text, options))

/**
 * {@link read} as steps: the same result, for a caller that lets the event
 * loop run while a long text is read (`Cooperative.run`). The exact reader
 * pauses every few thousand tokens; the native `JSON.parse`, which text
 * without an inexact number goes to, reads in one piece.
 *
 * @since 0.1.0
 * @category parsing
 */
export function* readSteps(
  text: string,
  options: { readonly exactIntegers?: boolean } = {}
): Steps.Steps<Result.Result<Json.Json, string>> {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Result.ok(
      (options.exactIntegers === false || !mayHoldInexactNumbers(source)
        ? JSON.parse(source)
        : yield* parseExact(source)) as Json.Json
    )
  } catch (error) {
    const reason = error instanceof SyntaxFailure
      ? error.reason
      : error instanceof Error
      ? error.message
      : String(error)
    return Result.err(reason.length > 200 ? reason.slice(0, 199) + "…" : reason)
  }
}

/**
 * Parses JSON text with the iterative reader whatever it holds (see {@link read}); the reason,
 * when it is not JSON, unshortened.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readExactly = (text: string): Result.Result<Json.Json, string> => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Result.ok(Steps.runSync(parseExact(source)) as Json.Json)
  } catch (error) {
    return Result.err(error instanceof SyntaxFailure ? error.reason : String(error))
  }
}

/**
 * How deeply the arrays and objects of a JSON text nest (0 for a scalar),
 * counted in one pass over the text without parsing it, and stopping as soon
 * as `limit` is passed (then `limit + 1`). Brackets inside strings do not
 * count; text that is not JSON gives the depth its brackets reach.
 *
 * @since 0.1.0
 * @category parsing
 */
export const nestingDepth = (text: string, limit: number = Number.MAX_SAFE_INTEGER): number =>
  nestingDepthOf(text, limit)

/**
 * What {@link nestingDepthOf} reads: a text, or its UTF-8 bytes read as one (JSON's brackets, quotes and
 * backslashes are one byte each, and no byte of a multi-byte character is one of them).
 *
 * @since 0.1.0
 * @category parsing
 */
export interface Scanned {
  readonly length: number
  charCodeAt(index: number): number
  indexOf(quote: "\"", from: number): number
}

/**
 * {@link nestingDepth} of a text or of its bytes read as one ({@link Scanned}); `from`, the depth at
 * which the text starts (the part of a text after its first `from` open brackets).
 *
 * @since 0.1.0
 * @category parsing
 */
export const nestingDepthOf = (text: Scanned, limit: number = Number.MAX_SAFE_INTEGER, from: number = 0): number => {
  let depth = from
  let deepest = from
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code === 0x22) {
      // A string: skip to its closing quote, one not escaped by an odd run of backslashes.
      let end = text.indexOf("\"", i + 1)
      while (end !== -1) {
        let backslashes = 0
        for (let j = end - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++
        if (backslashes % 2 === 0) break
        end = text.indexOf("\"", end + 1)
      }
      if (end === -1) return deepest
      i = end
    } else if (code === 0x5b || code === 0x7b) {
      depth++
      if (depth > deepest) {
        deepest = depth
        if (deepest > limit) return deepest
      }
    } else if ((code === 0x5d || code === 0x7d) && depth > 0) {
      depth--
    }
  }
  return deepest
}
