/**
 * A request body read as the continuation of the session's last one: when
 * the new text repeats the last one's bytes up to the end of its history
 * array's last element, the values read then stand for that part (the very
 * same values), and only what follows is parsed: the new elements, and the
 * members after the array. The value is what `JsonReader.read` of the whole
 * text gives; anything that would not be read the same way (a repeated key,
 * a byte-order mark, a history that is not an array) reads the whole text.
 * In the shared core: pure, no Effect.
 *
 * @since 0.1.0
 */
import * as Result from "../Result.js"
import * as JsonReader from "./JsonReader.js"
import type * as Json from "./JsonValue.js"

/**
 * A body as read, and where its history array ends in its text: what the
 * next body of the session may continue.
 *
 * @since 0.1.0
 * @category models
 */
export interface Read {
  readonly text: string
  readonly value: { readonly [key: string]: Json.Json }
  /** The history's key. */
  readonly key: string
  /** The members before the history, in order (their values are `value`'s). */
  readonly before: ReadonlyArray<string>
  /** The index just past the history's last element (just past its `[` when it is empty). */
  readonly lastEnd: number
}

/**
 * The outcome of reading a text: its value (the reason when it is not JSON),
 * how much of it was parsed (`parsed`, in characters: the whole text, or
 * what followed the repeated part), and what the next body may continue
 * (none when the body is not an object with the history array once).
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  readonly value: Result.Result<Json.Json, string>
  readonly parsed: number
  readonly read: Read | undefined
  /** When the value continues `previous`: how many of its history's elements are the previous body's values. */
  readonly kept: number
}

const isWhitespace = (code: number): boolean => code === 32 || code === 10 || code === 13 || code === 9

const skip = (text: string, index: number): number => {
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index++
  return index
}

/** The index just past the string literal opening at `start` (-1: unterminated). */
const stringEnd = (text: string, start: number): number => {
  let end = text.indexOf("\"", start + 1)
  while (end !== -1) {
    let backslashes = 0
    for (let j = end - 1; text.charCodeAt(j) === 92; j--) backslashes++
    if (backslashes % 2 === 0) return end + 1
    end = text.indexOf("\"", end + 1)
  }
  return -1
}

/**
 * The index just past the value starting at `start` (brackets balanced,
 * strings skipped whole), -1 when the text ends first. It checks structure
 * only: the parse that follows checks the rest.
 */
const valueEnd = (text: string, start: number): number => {
  const first = text.charCodeAt(start)
  if (first === 34) return stringEnd(text, start)
  if (first !== 123 && first !== 91) {
    let index = start
    while (index < text.length) {
      const code = text.charCodeAt(index)
      if (code === 44 || code === 93 || code === 125 || isWhitespace(code)) break
      index++
    }
    return index
  }
  let depth = 0
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (code === 34) {
      const end = stringEnd(text, index)
      if (end === -1) return -1
      index = end - 1
    } else if (code === 123 || code === 91) {
      depth++
    } else if (code === 125 || code === 93) {
      if (--depth === 0) return index + 1
    }
  }
  return -1
}

/** A key's literal as a string (escapes read by `JSON.parse`); undefined when it is not one. */
const keyOf = (text: string, start: number, end: number): string | undefined => {
  const literal = text.slice(start, end)
  if (literal.indexOf("\\") === -1) return literal.slice(1, -1)
  try {
    const key: unknown = JSON.parse(literal)
    return typeof key === "string" ? key : undefined
  } catch {
    return undefined
  }
}

/**
 * The members of the object whose first member (or closing brace) is at or
 * after `index`: their keys, and for `key`'s array the index past its last
 * element; undefined when the text is not shaped so (the parse says why).
 */
const membersFrom = (
  text: string,
  index: number,
  key: string | undefined
): { readonly keys: ReadonlyArray<string>; readonly lastEnd: number | undefined; readonly end: number } | undefined => {
  const keys: Array<string> = []
  let lastEnd: number | undefined
  index = skip(text, index)
  if (text.charCodeAt(index) === 125) return { keys, lastEnd, end: index + 1 }
  for (;;) {
    if (text.charCodeAt(index) !== 34) return undefined
    const keyEnd = stringEnd(text, index)
    if (keyEnd === -1) return undefined
    const name = keyOf(text, index, keyEnd)
    if (name === undefined) return undefined
    keys.push(name)
    index = skip(text, keyEnd)
    if (text.charCodeAt(index) !== 58) return undefined
    index = skip(text, index + 1)
    if (name === key && text.charCodeAt(index) === 91) {
      const elements = elementsFrom(text, index + 1, index + 1, true)
      if (elements === undefined) return undefined
      lastEnd = elements.lastEnd
      index = elements.end
    } else {
      index = valueEnd(text, index)
      if (index === -1) return undefined
    }
    index = skip(text, index)
    const code = text.charCodeAt(index)
    if (code === 125) return { keys, lastEnd, end: index + 1 }
    if (code !== 44) return undefined
    index = skip(text, index + 1)
  }
}

/**
 * The elements of an array from `index` (just past its `[` when `afterOpen`,
 * else past an element): the index past the last one (`lastEnd` as given when
 * there is no other) and past the closing `]`; undefined when the text is not
 * so shaped.
 */
const elementsFrom = (
  text: string,
  index: number,
  lastEnd: number,
  afterOpen: boolean
): { readonly lastEnd: number; readonly end: number } | undefined => {
  index = skip(text, index)
  if (text.charCodeAt(index) === 93) return { lastEnd, end: index + 1 }
  // From just past `[` the first element follows; past an element, a comma first.
  let expectComma = !afterOpen
  for (;;) {
    if (expectComma) {
      if (text.charCodeAt(index) !== 44) return undefined
      index = skip(text, index + 1)
    }
    const end = valueEnd(text, index)
    if (end === -1 || end === index) return undefined
    lastEnd = end
    index = skip(text, end)
    if (text.charCodeAt(index) === 93) return { lastEnd, end: index + 1 }
    expectComma = true
  }
}

const hasDuplicate = (keys: ReadonlyArray<string>): boolean => new Set(keys).size !== keys.length

const isRecord = (value: Json.Json): value is { readonly [key: string]: Json.Json } =>
  value !== null && typeof value === "object" && !Array.isArray(value)

const readOf = (text: string, value: Json.Json, key: string): Read | undefined => {
  if (!isRecord(value) || !Array.isArray(value[key])) return undefined
  if (text.charCodeAt(0) === 0xfeff) return undefined
  const start = skip(text, 0)
  if (text.charCodeAt(start) !== 123) return undefined
  const members = membersFrom(text, start + 1, key)
  if (members === undefined || members.lastEnd === undefined || hasDuplicate(members.keys)) return undefined
  return { text, value, key, before: members.keys.slice(0, members.keys.indexOf(key)), lastEnd: members.lastEnd }
}

/**
 * Reads a body whose history is the array under `key`: as the continuation
 * of `previous` when its text repeats `previous`'s up to the end of that
 * history's last element (the values of that part reused, the rest parsed),
 * else whole (`JsonReader.read`). The value is the same either way.
 *
 * @since 0.1.0
 * @category parsing
 */
export const read = (text: string, key: string, previous?: Read | undefined): Outcome => {
  const continued = previous === undefined || previous.key !== key ? undefined : continueFrom(text, previous)
  if (continued !== undefined) return continued
  const value = JsonReader.read(text)
  return {
    value,
    parsed: text.length,
    read: value._tag === "Ok" ? readOf(text, value.value, key) : undefined,
    kept: 0
  }
}

const continueFrom = (text: string, previous: Read): Outcome | undefined => {
  const { lastEnd } = previous
  if (text.length <= lastEnd || !text.startsWith(previous.text.slice(0, lastEnd))) return undefined
  const continued = continueAt(text, lastEnd, previous)
  return continued === undefined ? undefined : {
    value: Result.ok(continued.value),
    parsed: text.length - lastEnd,
    read: { text, value: continued.value, key: previous.key, before: previous.before, lastEnd: continued.lastEnd },
    kept: continued.kept
  }
}

/**
 * A body continued: its value, the index past its history's last element (in
 * the text given), and how many of that history's elements are the previous
 * body's values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Continued {
  readonly value: { readonly [key: string]: Json.Json }
  readonly lastEnd: number
  readonly kept: number
}

/**
 * The continuation of `previous` by what follows its history's last element
 * (`tail`: the text from there to the body's end, for a caller that knows
 * the part before it repeats `previous`'s, as a proxy comparing the bodies'
 * bytes does): the value reads as the whole text would. Undefined when
 * `tail` is not read the same way as part of the whole (then read the whole
 * text).
 *
 * @since 0.1.0
 * @category parsing
 */
export const continueAfter = (
  tail: string,
  previous: Pick<Read, "value" | "key" | "before">
): Continued | undefined => continueAt(tail, 0, previous)

const continueAt = (
  text: string,
  start: number,
  previous: Pick<Read, "value" | "key" | "before">
): Continued | undefined => {
  const kept = previous.value[previous.key] as ReadonlyArray<Json.Json>
  // What follows the repeated part: the new elements, the array's end, the members after it.
  const elements = elementsFrom(text, start, start, kept.length === 0)
  if (elements === undefined) return undefined
  const after = skip(text, elements.end)
  const code = text.charCodeAt(after)
  const members = code === 125
    ? { keys: [] as ReadonlyArray<string>, end: after + 1 }
    : code === 44
    ? membersFrom(text, after + 1, undefined)
    : undefined
  if (members === undefined || skip(text, members.end) !== text.length) return undefined
  if (members.keys.includes(previous.key) || members.keys.some((k) => previous.before.includes(k))) return undefined
  if (hasDuplicate(members.keys)) return undefined
  // The new elements as an array's text: after the comma that follows the last kept one, or all of them after `[`.
  const firstNew = skip(text, start)
  const added = JsonReader.read(
    kept.length === 0
      ? "[" + text.slice(start, elements.end)
      : text.charCodeAt(firstNew) === 44
      ? "[" + text.slice(firstNew + 1, elements.end)
      : "[]"
  )
  const rest = JsonReader.read(code === 44 ? "{" + text.slice(after + 1, members.end) : "{}")
  if (added._tag === "Err" || rest._tag === "Err") return undefined
  const value: Record<string, Json.Json> = {}
  for (const name of previous.before) JsonReader.setOwn(value, name, previous.value[name]!)
  JsonReader.setOwn(value, previous.key, [...kept, ...(added.value as ReadonlyArray<Json.Json>)])
  for (const [name, member] of Object.entries(rest.value as Record<string, Json.Json>)) {
    JsonReader.setOwn(value, name, member)
  }
  return { value, lastEnd: elements.lastEnd, kept: kept.length }
}
