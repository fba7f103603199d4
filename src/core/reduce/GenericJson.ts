/**
 * The generic JSON policy: JSON that no policy accepts, shrunk so that it stays
 * JSON. Arrays keep their first entries and gain a counter, long strings are
 * clipped head and tail with a note, objects with very many keys keep the first
 * ones, deep subtrees become a marker; truncation flags and their counters are
 * never dropped. Limits tighten step by step until the text fits the cap.
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as Clip from "./Clip.js"

/**
 * The limits of one pass of the generic JSON policy.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** Entries an array keeps; the rest are counted in a counter. */
  readonly arrayEntries: number
  /** Characters a string keeps (head and tail, with a note of what was cut). */
  readonly stringChars: number
  /** Keys an object keeps, besides its truncation flags and counters. */
  readonly objectKeys: number
  /** Levels of nesting kept; a deeper subtree becomes a marker. */
  readonly depth: number
}

/**
 * The passes tried in order, loosest first: the first array limit is the
 * generic array cap of the envelope rules (20).
 *
 * @since 0.1.0
 * @category constants
 */
export const ladder: ReadonlyArray<Limits> = [
  { arrayEntries: 20, stringChars: 2_000, objectKeys: 200, depth: 64 },
  { arrayEntries: 10, stringChars: 500, objectKeys: 50, depth: 32 },
  { arrayEntries: 5, stringChars: 200, objectKeys: 20, depth: 16 },
  { arrayEntries: 3, stringChars: Clip.minimumMax + 30, objectKeys: 10, depth: 8 },
  { arrayEntries: 1, stringChars: Clip.minimumMax, objectKeys: 5, depth: 4 }
]

/**
 * What one pass did.
 *
 * @since 0.1.0
 * @category models
 */
export interface Shrunk {
  readonly value: Json.Json
  readonly limits: Limits
  readonly arrayEntriesOmitted: number
  readonly stringsClipped: number
  readonly keysOmitted: number
  readonly subtreesElided: number
}

// The truncation vocabulary of the protocol (SPEC: truncation flags and counters at any depth).
const isTruncationKey = (key: string): boolean =>
  key === "truncated" || /(?:Omitted|Bytes|Chars|Entries|Lines)$/.test(key)

const freeKey = (object: Record<string, unknown>, base: string): string => {
  for (let attempt = 0;; attempt++) {
    const candidate = attempt === 0 ? `${base}Omitted` : `${base}Reduction${attempt === 1 ? "" : attempt}Omitted`
    if (!Object.prototype.hasOwnProperty.call(object, candidate)) return candidate
  }
}

/**
 * One pass over a JSON value with the given limits. Recursion stops at
 * `limits.depth`, so any input depth is safe.
 *
 * @since 0.1.0
 * @category reducing
 */
export const shrink = (value: Json.Json, limits: Limits): Shrunk => {
  let arrayEntriesOmitted = 0
  let stringsClipped = 0
  let keysOmitted = 0
  let subtreesElided = 0
  const go = (current: Json.Json, depth: number): Json.Json => {
    if (typeof current === "string") {
      if (current.length <= limits.stringChars || Json.isRawNumber(current)) return current
      stringsClipped++
      return Clip.headTail(current, limits.stringChars)
    }
    if (current === null || typeof current !== "object") return current
    if (depth >= limits.depth) {
      subtreesElided++
      return Json.depthMarker(limits.depth)
    }
    if (Array.isArray(current)) {
      const kept = current.slice(0, limits.arrayEntries).map((entry) => go(entry, depth + 1))
      const omitted = current.length - kept.length
      if (omitted > 0) {
        arrayEntriesOmitted += omitted
        // Inside an array there is no key to put a counter beside: the counter is the last entry.
        if (depth === 0 || !isInObject.has(current)) kept.push({ arrayEntriesOmitted: omitted })
        else pendingCounter = omitted
      }
      return kept
    }
    const object = current as Record<string, Json.Json>
    const out: Record<string, Json.Json> = {}
    let keys = 0
    let dropped = 0
    for (const key of Object.keys(object)) {
      const child = object[key]!
      if (keys >= limits.objectKeys && !isTruncationKey(key)) {
        dropped++
        continue
      }
      if (!isTruncationKey(key)) keys++
      if (Array.isArray(child)) isInObject.add(child)
      pendingCounter = 0
      Json.setOwn(out, key, go(child, depth + 1))
      if (pendingCounter > 0) {
        Json.setOwn(out, freeKey(object, key), pendingCounter)
        pendingCounter = 0
      }
    }
    if (dropped > 0) {
      keysOmitted += dropped
      Json.setOwn(out, freeKey(object, "keys"), dropped)
    }
    return out
  }
  const isInObject = new WeakSet<object>()
  let pendingCounter = 0
  return { value: go(value, 0), limits, arrayEntriesOmitted, stringsClipped, keysOmitted, subtreesElided }
}

/**
 * The loosest pass of {@link ladder} whose compact JSON fits `cap`, with its
 * text; `undefined` when even the tightest does not fit.
 *
 * @since 0.1.0
 * @category reducing
 */
export const fit = (value: Json.Json, cap: number): { readonly shrunk: Shrunk; readonly text: string } | undefined => {
  for (const limits of ladder) {
    const shrunk = shrink(value, limits)
    const text = Json.stringifyOrUndefined(shrunk.value)
    if (text !== undefined && text.length <= cap) return { shrunk, text }
  }
  return undefined
}

/**
 * What a pass did, in one sentence for the report.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = (shrunk: Shrunk): string => {
  const parts = [
    shrunk.arrayEntriesOmitted > 0
      ? `${shrunk.arrayEntriesOmitted} array entries past ${shrunk.limits.arrayEntries} omitted (counted)`
      : undefined,
    shrunk.stringsClipped > 0
      ? `${shrunk.stringsClipped} strings clipped to ${shrunk.limits.stringChars} characters`
      : undefined,
    shrunk.keysOmitted > 0
      ? `${shrunk.keysOmitted} object keys past ${shrunk.limits.objectKeys} omitted (counted)`
      : undefined,
    shrunk.subtreesElided > 0
      ? `${shrunk.subtreesElided} subtrees deeper than ${shrunk.limits.depth} levels elided`
      : undefined
  ].filter((part): part is string => part !== undefined)
  return `generic JSON policy: ${
    parts.length === 0 ? "nothing cut" : parts.join(", ")
  }; truncation flags and counters kept`
}
