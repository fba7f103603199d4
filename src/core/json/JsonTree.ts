/**
 * The JSON value's operations that the shared core (docs/effect4.md) reads and builds trees with:
 * own-key access, bounded conversion of any JavaScript value, and the writer's and reader's
 * names it needs, with no Effect import, so the core runs the same on Effect 3 and 4. `Json` is
 * the documented face; the core imports this module under that name.
 *
 * @since 0.1.0
 */
import * as JsonReader from "./JsonReader.js"
import type * as JsonValue from "./JsonValue.js"
import * as JsonWrite from "./JsonWrite.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Json = JsonValue.Json

/**
 * @since 0.1.0
 * @category models
 */
export type JsonObject = JsonValue.JsonObject

/**
 * @since 0.1.0
 * @category guards
 */
export const isRawNumber: (value: string) => boolean = JsonReader.isRawNumber

/**
 * @since 0.1.0
 * @category constructors
 */
export const setOwn: (target: Record<string, unknown>, key: string, value: unknown) => void = JsonReader.setOwn

/**
 * @since 0.1.0
 * @category formatting
 */
export const stringify: (value: unknown, indent?: number) => string = JsonWrite.stringify

/**
 * @since 0.1.0
 * @category formatting
 */
export const stringifyOrUndefined: (value: unknown) => string | undefined = JsonWrite.stringifyOrUndefined

/**
 * @since 0.1.0
 * @category getters
 */
export const size: (value: unknown) => number | undefined = JsonWrite.size

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @since 0.1.0
 * @category guards
 */
export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

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
        return Number.isSafeInteger(Number(current)) ? Number(current) : JsonReader.rawNumber(current.toString())
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
