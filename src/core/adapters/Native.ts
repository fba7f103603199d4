/**
 * How the adapters read native documents, in the shared core: checks of a
 * message, a part or a field that say, in words a user can act on, what is
 * wrong with it; an adapter adds where (`tool-call part 2 of the assistant
 * message`) and which message. The checks only read: the document's own
 * objects are what an adapter keeps and writes back, so every field it does
 * not know, and the identity of every message, survive a round trip. A field
 * is read as JSON has it: one that is absent is not one that holds
 * `undefined`, and only a value's own fields count (as the Effect 3 face's
 * Schemas read them, whose words a check without words of its own keeps:
 * `is missing`, `Expected string, actual 5`). No Effect import.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Result from "../Result.js"

/**
 * A native message, part or field as parsed: a plain object, read by its fields.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = Record<string, unknown>

/**
 * A check of a value: the value as read, or what is wrong with it.
 *
 * @since 0.1.0
 * @category models
 */
export type Check<A> = (value: unknown) => Result.Result<A, string>

/**
 * Whether a value is a plain object (not `null`, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isRecord = (value: unknown): value is Native =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether a value is a string of the document: not the placeholder the JSON
 * reader puts where a number literal a double cannot hold was (`1e400`, an
 * integer past 2^53). Such a value was a number in the JSON, and a field that
 * needs text refuses it as it refuses any other number.
 *
 * @since 0.1.0
 * @category guards
 */
export const isText = (value: unknown): value is string => typeof value === "string" && !JsonReader.isRawNumber(value)

/**
 * Whether an object has a field of its own (an inherited one is not read).
 *
 * @since 0.1.0
 * @category guards
 */
export const has = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key)

/**
 * A field of its own, or `undefined` when it has none.
 *
 * @since 0.1.0
 * @category reading
 */
export const own = (value: object, key: string): unknown => has(value, key) ? (value as Native)[key] : undefined

/**
 * A value named in an error: a string quoted (its first 40 characters), anything
 * else by its kind; a number the JSON reader kept as a placeholder is a number.
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
    ? (JsonReader.isRawNumber(value) ? "number" : JSON.stringify(value.slice(0, 40)))
    : typeof value

const circular = "[Circular]"

/**
 * A value written out in an error as Effect's `formatUnknown` writes it (the
 * words of a check that has none of its own: `actual {"a":1}`).
 *
 * @since 0.1.0
 * @category errors
 */
export const formatUnknown = (input: unknown): string => {
  const seen = new WeakSet<object>()
  const isObject = (v: unknown): v is object => (typeof v === "object" && v !== null) || typeof v === "function"
  const go = (v: unknown): string => {
    if (Array.isArray(v)) {
      if (seen.has(v)) return circular
      seen.add(v)
      return `[${v.map(go).join(",")}]`
    }
    if (v instanceof Date) {
      try {
        return v.toISOString()
      } catch {
        return "Invalid Date"
      }
    }
    if (isObject(v) && "toString" in v) {
      const toString = (v as { readonly toString: unknown }).toString
      if (
        typeof toString === "function" && toString !== Object.prototype.toString &&
        toString !== Array.prototype.toString
      ) {
        let s: string
        try {
          const written: unknown = toString.call(v)
          s = typeof written === "string" ? written : String(written)
        } catch {
          s = "[toString threw]"
        }
        return v instanceof Error && v.cause ? `${s} (cause: ${go(v.cause)})` : s
      }
    }
    if (typeof v === "string") return JSON.stringify(v)
    if (typeof v === "number" || v == null || typeof v === "boolean" || typeof v === "symbol") return String(v)
    if (typeof v === "bigint") return String(v) + "n"
    if (v instanceof Set || v instanceof Map) {
      if (seen.has(v)) return circular
      seen.add(v)
      return `${v.constructor.name}(${go(Array.from(v))})`
    }
    if (isObject(v)) {
      if (seen.has(v)) return circular
      seen.add(v)
      let keys: Array<PropertyKey>
      try {
        keys = Reflect.ownKeys(v)
      } catch {
        keys = ["[ownKeys threw]"]
      }
      const body = `{${
        keys.map((k) => `${typeof k === "string" ? JSON.stringify(k) : String(k)}:${go((v as Native)[k as string])}`)
          .join(",")
      }}`
      const ctor = (v as { readonly constructor?: { readonly name?: string } }).constructor
      return ctor && ctor !== Object.prototype.constructor && ctor.name ? `${ctor.name}(${body})` : body
    }
    return String(v)
  }
  return go(input)
}

/**
 * A check of a value by a guard, failing with `problem` of the value found.
 *
 * @since 0.1.0
 * @category checks
 */
export const check = <A>(
  guard: (value: unknown) => value is A,
  problem: (actual: unknown) => string
): Check<A> =>
(value) => guard(value) ? Result.ok(value) : Result.err(problem(value))

/**
 * A required field: the object's own, passing `guard`, or `problem` (absent or of the wrong kind).
 *
 * @since 0.1.0
 * @category checks
 */
export const required = <A>(
  object: object,
  key: string,
  guard: (value: unknown) => value is A,
  problem: string
): Result.Result<A, string> => {
  const value = own(object, key)
  return has(object, key) && guard(value) ? Result.ok(value) : Result.err(problem)
}

/**
 * Whether a value is anything (a field whose presence alone is asked).
 *
 * @since 0.1.0
 * @category guards
 */
export const isAnything = (_: unknown): _ is unknown => true

/**
 * Whether a value is an array, its elements not read.
 *
 * @since 0.1.0
 * @category guards
 */
export const isArray = (value: unknown): value is ReadonlyArray<unknown> => Array.isArray(value)

/**
 * Whether a value is an object with an array of its own under `messages`.
 *
 * @since 0.1.0
 * @category guards
 */
export const hasMessages = (value: unknown): value is Native & { readonly messages: ReadonlyArray<unknown> } =>
  isRecord(value) && has(value, "messages") && Array.isArray(value["messages"])

/**
 * A result's failure as a longer sentence, `where` before it.
 *
 * @since 0.1.0
 * @category checks
 */
export const within = <A>(result: Result.Result<A, string>, where: string): Result.Result<A, string> =>
  result._tag === "Ok" ? result : Result.err(`${where} ${result.error}`)
