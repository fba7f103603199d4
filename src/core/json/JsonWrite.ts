/**
 * The JSON writer behind `Json.stringify`: placeholders written back as their
 * literals, values nested deeper than `JSON.stringify`'s stack written without
 * recursion, and the same as steps that pause between the elements of long
 * arrays near the top of a value (`stringifySteps`). `Json` is its documented
 * face.
 *
 * @since 0.1.0
 */
import * as Steps from "../Steps.js"
import { numberLiteral, rawNumberInText, rawNumberTag } from "./JsonReader.js"

/**
 * JSON text written by `JSON.stringify` (not {@link stringify}) with its
 * number placeholders turned back into their exact literals: for serialisers
 * outside this module (an HTTP response body).
 *
 * @since 0.1.0
 * @category formatting
 */
export const restoreRawNumbers = (text: string): string =>
  text.includes(rawNumberTag) ? text.replace(rawNumberInText, "$1") : text

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
  const emit = (
    current: unknown,
    key: string | undefined,
    inArray: boolean,
    depth: number,
    prefix: string
  ): boolean => {
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
    text = stringifyIterative(
      value,
      indent === undefined ? "" : " ".repeat(Math.min(Math.max(0, Math.floor(indent)), 10))
    )
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
  if (typeof value !== "object" || value === null || typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return false
  }
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
export function* stringifySteps(value: unknown): Steps.Steps<string> {
  const out: Array<string> = []
  let written = 0
  // Writes a value; false when JSON skips it (an object's field that is undefined, a function).
  function* write(current: unknown, depth: number): Steps.Steps<boolean> {
    if (!splits(current, depth)) {
      const text = writeText(current)
      if (++written % Steps.itemsPerStep === 0) yield
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
