/**
 * How the working state reads a tool result: JSON only when the text looks
 * like it, the envelope without its declared omissions, the head and tail of
 * long output, a bounded walk over parsed JSON, and the ids of tool text.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Json from "../json/JsonTree.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import * as Reduce from "../reduce/Reduce.js"
import * as Result from "../Result.js"
import { idsOfParsed } from "./Ids.js"

/** Tool output past this many characters is only read at its head and tail. */
export const scanChars = 8_000
/** Bounds of a walk over a parsed JSON value. */
const walkNodeLimit = 50_000
const walkDepthLimit = 64

/**
 * Parses text that looks like JSON (an object or an array); anything else,
 * and broken JSON, gives `undefined`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (text: string): Json.Json | undefined => {
  const start = text.trimStart().charCodeAt(0)
  if (start !== 123 && start !== 91) return undefined
  return Result.getOrUndefined(JsonReader.read(text, { exactIntegers: false }))
}

/**
 * The agentic-workspace/v1 envelope a tool result holds, if any.
 *
 * @since 0.1.0
 * @category parsing
 */
export const envelopeOf = (content: string): Envelope.Envelope | undefined =>
  content.includes(Envelope.protocol) ? readToolResult(content).envelope : undefined

/**
 * A tool result as the working state reads it: its text, its parsed JSON and
 * its agentic-workspace/v1 envelope, the paths the envelope declares omitted
 * (`retention.omit_when_summarizing`) removed from all three (SPEC R1.2), so
 * that no declared omission reaches the working state or a summary made from it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readToolResult = (content: string): {
  readonly content: string
  readonly parsed: Json.Json | undefined
  readonly envelope: Envelope.Envelope | undefined
} => {
  const parsed = parseJson(content)
  if (parsed === undefined || !content.includes(Envelope.protocol) || !Envelope.isEnvelope(parsed)) {
    return { content, parsed, envelope: undefined }
  }
  const stripped = Reduce.withoutDeclaredOmissions(parsed)
  if (stripped === parsed) return { content, parsed, envelope: parsed }
  return { content: Json.stringify(stripped), parsed: stripped, envelope: stripped as Envelope.Envelope }
}

export const scanWindow = (text: string): string =>
  text.length <= 2 * scanChars ? text : text.slice(0, scanChars) + "\n" + text.slice(text.length - scanChars)

export const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

export const asExitCode = (value: unknown): number | null => {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value
  if (typeof value === "string" && /^-?\d{1,9}$/.test(value.trim())) return Number(value.trim())
  return null
}

/** Visits every node of a JSON value with its key, bounded in depth and count. */
export const walk = (value: unknown, visit: (key: string, node: unknown, parent: unknown) => void): void => {
  const stack: Array<{ key: string; node: unknown; parent: unknown; depth: number }> = [{
    key: "",
    node: value,
    parent: undefined,
    depth: 0
  }]
  let visited = 0
  while (stack.length > 0 && visited < walkNodeLimit) {
    const { depth, key, node, parent } = stack.pop()!
    visited++
    visit(key, node, parent)
    if (typeof node !== "object" || node === null || depth >= walkDepthLimit) continue
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) {
        stack.push({ key: String(i), node: node[i], parent: node, depth: depth + 1 })
      }
    } else {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ key: keys[i]!, node: (node as Record<string, unknown>)[keys[i]!], parent: node, depth: depth + 1 })
      }
    }
  }
}

/**
 * The prefixed ids of a piece of tool text: read from the parsed JSON when it
 * is JSON (escapes such as `\n` would hide an id's start in the raw text),
 * else from the text; only {@link isLikelyId} ones.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfToolText = (text: string): ReadonlyArray<string> => idsOfParsed(text, parseJson(text))
