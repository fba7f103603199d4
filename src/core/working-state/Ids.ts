/**
 * The one home of prefixed ids (`tx_`, `run_`, `approval_`, …): the protocol's
 * prefixes and their extraction from text and JSON (`idsInText`,
 * `Envelope.ids` are faces of it), and which of them the working state keeps
 * as ids rather than identifiers of code.
 *
 * @since 0.1.0
 */
import type * as Json from "../json/JsonTree.js"

/**
 * The kinds of prefixed ids the protocol uses, in the order a recovery list
 * names them.
 *
 * @since 0.1.0
 * @category constants
 */
export const idPrefixes = ["approval_", "plan_", "tx_", "job_", "todo_", "research_", "run_", "source_"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type IdPrefix = (typeof idPrefixes)[number]

const idPattern = /\b(?:approval|plan|tx|job|todo|research|run|source)_[A-Za-z0-9][A-Za-z0-9_-]*/g

/**
 * The prefixed ids mentioned in a piece of text, in order of appearance.
 *
 * @since 0.1.0
 * @category getters
 */
export const idsInText = (text: string): ReadonlyArray<string> => text.includes("_") ? text.match(idPattern) ?? [] : []

/**
 * The distinct prefixed ids in the strings of a JSON value, in document
 * order, at most `maxDepth` levels deep.
 *
 * @since 0.1.0
 * @category getters
 */
export const ids = (value: unknown, maxDepth = 256): ReadonlyArray<string> => {
  const found = new Set<string>()
  const go = (node: unknown, depth: number): void => {
    if (typeof node === "string") {
      for (const id of idsInText(node)) found.add(id)
      return
    }
    if (typeof node !== "object" || node === null || depth >= maxDepth) return
    if (Array.isArray(node)) {
      for (const item of node) go(item, depth + 1)
    } else {
      for (const key of Object.keys(node)) go((node as Record<string, unknown>)[key], depth + 1)
    }
  }
  go(value, 0)
  return Array.from(found)
}

/**
 * The prefixed ids of message text: those of `idsInText` that are {@link isLikelyId}.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfText = (text: string): ReadonlyArray<string> => idsInText(text).filter(isLikelyId)

/** The likely ids of tool text: from its parsed JSON when it is JSON, else from the text. */
export const idsOfParsed = (text: string, parsed: Json.Json | undefined): ReadonlyArray<string> => {
  if (!text.includes("_")) return []
  return (parsed === undefined ? idsInText(text) : ids(parsed)).filter(isLikelyId)
}

/**
 * Whether a prefixed word is an id rather than an identifier of code, prose or
 * a call's argument names: `run_from_argv`, `source_code`, `plan_id` and
 * `job_queue` are not ids; `tx_8f2c`, `approval_979a8972` and `plan_deadbeef`
 * are (a digit, a capital or a dash in the suffix, or six or more hex digits).
 *
 * @since 0.1.0
 * @category ids
 */
export const isLikelyId = (id: string): boolean => {
  const suffix = id.slice(id.indexOf("_") + 1)
  return /\d/.test(suffix) || /[A-Z-]/.test(suffix) || /^[0-9a-f]{6,}$/.test(suffix)
}
