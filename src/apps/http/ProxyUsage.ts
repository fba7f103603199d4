/**
 * The prompt tokens an upstream reports, and the signal the proxy gives the
 * next checkpoint of a session from them (SPEC R2.1). A report is of the
 * request it answered: the proxy keeps with it its own count of the
 * messages that request sent and where that request's history ended. The
 * next request's signal is the report, never below the proxy's own count
 * of the same messages (some servers report only an uncached suffix, or a
 * count of their own that is that wrong), plus the proxy's count of the
 * messages the history gained since. A history that does not continue the
 * reported one, message for message, gets no signal: the engine counts it
 * itself.
 *
 * @since 0.1.0
 */
import * as CompactedBlock from "../../core/block/CompactedBlock.js"
import * as SameMessage from "../../core/checkpoint/SameMessage.js"
import * as Transcript from "../../face/models/Transcript.js"

const record = (value: unknown): { readonly [key: string]: unknown } | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as { readonly [key: string]: unknown }
    : undefined

const usageNumber = (
  value: unknown
): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0)

/**
 * `usage.prompt_tokens` of a chat completion or of its last stream chunk.
 *
 * @since 0.1.0
 * @category usage
 */
export const openAiUsage = (body: unknown): number | undefined => {
  const usage = record(record(body)?.["usage"])
  const prompt = usage?.["prompt_tokens"]
  return typeof prompt === "number" && prompt > 0 ? prompt : undefined
}

/**
 * The input tokens of a Messages response or of a stream's `message_start`,
 * cached ones included.
 *
 * @since 0.1.0
 * @category usage
 */
export const anthropicUsage = (body: unknown): number | undefined => {
  const object = record(body)
  const usage = record(object?.["usage"]) ?? record(record(object?.["message"])?.["usage"])
  if (usage === undefined || typeof usage["input_tokens"] !== "number") return undefined
  const total = usageNumber(usage["input_tokens"]) + usageNumber(usage["cache_creation_input_tokens"]) +
    usageNumber(usage["cache_read_input_tokens"])
  return total > 0 ? total : undefined
}

/**
 * `usage.input_tokens` of a Responses answer, or of the `response` of a
 * stream's `response.completed` event. Its cached tokens
 * (`input_tokens_details.cached_tokens`) are a part of it, not added to it.
 *
 * @since 0.1.0
 * @category usage
 */
export const responsesUsage = (body: unknown): number | undefined => {
  const object = record(body)
  const usage = record(object?.["usage"]) ?? record(record(object?.["response"])?.["usage"])
  const input = usage?.["input_tokens"]
  return typeof input === "number" && Number.isFinite(input) && input > 0 ? input : undefined
}

/**
 * What the proxy knows of a request it sent: its own count of the messages
 * sent, and the end of the history it came with.
 *
 * @since 0.1.0
 * @category models
 */
export interface Basis {
  /** The proxy's count of the messages sent (the view), in tokens. */
  readonly counted: number
  /** How many messages the request's history held. */
  readonly messages: number
  /**
   * A digest of the whole history, each message by its content digest in order (`SameMessage`), to know the next
   * history continues it: an edit anywhere in it, to the same length or not, makes another.
   */
  readonly history: string
  /**
   * Which compaction was in force in the view sent (the number of its block, 0 for none): the engine believes
   * the report only for a view of the same compaction (a compaction whose answer was lost is not reported).
   * Undefined in a basis an older version stored.
   */
  readonly compactions?: number | undefined
}

/**
 * The number of the compaction whose block a view holds (`compacted-N`), 0 for a view without one.
 *
 * @since 0.1.0
 * @category usage
 */
export const compactionsOf = (view: Transcript.Transcript): number => {
  const block = view.find((message) => message._tag === "Compacted")
  return block === undefined ? 0 : CompactedBlock.compactionsOfId(block.id) ?? 0
}

/**
 * The basis of a request: its history and the view sent for it, counted with
 * the engine's `tokensOf`.
 *
 * @since 0.1.0
 * @category models
 */
export const basisOf = (
  transcript: Transcript.Transcript,
  view: Transcript.Transcript,
  tokensOf: (message: Transcript.Message) => number,
  digests: SameMessage.Digests
): Basis => {
  let counted = 0
  for (const message of view) counted += tokensOf(message)
  return {
    counted,
    messages: transcript.length,
    history: SameMessage.digestOfAll(transcript, digests),
    compactions: compactionsOf(view)
  }
}

/**
 * A report of the upstream: the prompt tokens it gave, with the basis of the
 * request it answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly tokens: number
  readonly basis: Basis
}

/**
 * The signal a report gives the next checkpoint of a history: the report,
 * never below the proxy's own count of what its request sent, plus the
 * proxy's count of the messages the history gained since; none when the
 * history does not continue the reported one.
 *
 * @since 0.1.0
 * @category signals
 */
export const signalOf = (
  report: Report,
  transcript: Transcript.Transcript,
  tokensOf: (message: Transcript.Message) => number,
  digests: SameMessage.Digests
): number | undefined => {
  const { basis, tokens } = report
  if (
    transcript.length < basis.messages ||
    SameMessage.digestOfAll(transcript.slice(0, basis.messages), digests) !== basis.history
  ) return undefined
  let added = 0
  for (let index = basis.messages; index < transcript.length; index++) added += tokensOf(transcript[index]!)
  return Math.max(tokens, basis.counted) + added
}

/**
 * A basis as the text a shared store keeps, and back (`undefined` for a text
 * that is not one).
 *
 * @since 0.1.0
 * @category models
 */
export const basisText = {
  encode: (basis: Basis): string =>
    JSON.stringify(
      basis.compactions === undefined
        ? [basis.counted, basis.messages, basis.history]
        : [basis.counted, basis.messages, basis.history, basis.compactions]
    ),
  // A basis an older version stored (the digest of the history's last message, a number) reads as none: the
  // session's next request is counted by the engine.
  decode: (text: string): Basis | undefined => {
    try {
      const parsed: unknown = JSON.parse(text)
      const finite = (each: unknown) => typeof each === "number" && Number.isFinite(each)
      if (
        !Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4) ||
        !finite(parsed[0]) || !finite(parsed[1]) || typeof parsed[2] !== "string" ||
        (parsed.length === 4 && !finite(parsed[3]))
      ) return undefined
      return {
        counted: parsed[0],
        messages: parsed[1],
        history: parsed[2],
        ...(parsed.length === 4 ? { compactions: parsed[3] } : {})
      }
    } catch {
      return undefined
    }
  }
}
