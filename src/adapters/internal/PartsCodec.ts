/**
 * What the @effect/ai `Prompt` and AI SDK adapters share: both formats keep
 * messages whose content is a list of typed parts (text, reasoning, files,
 * tool calls and results), and write a view back the same way, regrouping the
 * neutral messages that came from one native message. Each adapter gives its
 * part vocabulary; the rest is here.
 *
 * @since 0.1.0
 */
import * as Json from "../../Json.js"
import type * as Transcript from "../../Transcript.js"

/**
 * A native message or part, as parsed.
 *
 * @since 0.1.0
 * @category models
 */
export type Native = Record<string, unknown>

/**
 * What decoding a document kept to write a view of it back.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decoding {
  readonly natives: ReadonlyArray<Native>
  /** The neutral messages of each native message, by its index. */
  readonly neutral: ReadonlyArray<ReadonlyArray<Transcript.Message>>
  /** The native message each neutral message came from, by neutral id. */
  readonly origins: ReadonlyMap<string, { readonly index: number; readonly message: Transcript.Message }>
  /** The index of the tool-result part each neutral tool result came from, by neutral id. */
  readonly resultParts: ReadonlyMap<string, number>
  /** Tool names by call id, for results written fresh. */
  readonly callNames: ReadonlyMap<string, string>
}

/**
 * How a format writes its parts and messages.
 *
 * @since 0.1.0
 * @category models
 */
export interface Vocabulary {
  readonly message: (role: "system" | "user" | "assistant" | "tool", content: string | ReadonlyArray<unknown>) => Native
  readonly text: (text: string) => Native
  readonly toolCall: (call: Transcript.ToolCall) => Native
  readonly toolResult: (callId: string, name: string, content: string) => Native
  /** The call id of a tool-call part. */
  readonly callIdOf: (part: Native) => string
  /** A tool-call part with changed arguments (JSON text). */
  readonly withArguments: (part: Native, args: string) => Native
  /** A tool-result part carrying a changed neutral result. */
  readonly changedResult: (part: Native, result: Transcript.ToolResult) => Native
}

/**
 * Whether a value is a plain object.
 *
 * @since 0.1.0
 * @category guards
 */
export const isRecord = (value: unknown): value is Native => typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The neutral id of the `k`-th neutral message made from native message `index`: `m3`, `m3.1`, ….
 *
 * @since 0.1.0
 * @category ids
 */
export const neutralId = (index: number, k: number): string => (k === 0 ? `m${index}` : `m${index}.${k}`)

/**
 * Any value as JSON text (bounded and total).
 *
 * @since 0.1.0
 * @category json
 */
export const jsonText = (value: unknown): string => Json.stringifyOrUndefined(value) ?? Json.stringify(Json.fromUnknown(value).json)

/**
 * JSON text as the value it denotes, or the text itself when it is not JSON.
 *
 * @since 0.1.0
 * @category json
 */
export const parseOrText = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

/**
 * A value named in an error: a string quoted, anything else by its kind.
 *
 * @since 0.1.0
 * @category errors
 */
export const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "an array" : typeof value === "string" ? JSON.stringify(value.slice(0, 40)) : typeof value

/**
 * Whether two lists of calls are the same calls.
 *
 * @since 0.1.0
 * @category comparing
 */
export const sameCalls = (a: ReadonlyArray<Transcript.ToolCall>, b: ReadonlyArray<Transcript.ToolCall>): boolean =>
  a.length === b.length && a.every((call, i) => call.id === b[i]!.id && call.name === b[i]!.name && call.arguments === b[i]!.arguments)

/**
 * Whether a view message is the decoded message, unchanged (the same object or equal fields).
 *
 * @since 0.1.0
 * @category comparing
 */
export const unchanged = (view: Transcript.Message, decoded: Transcript.Message): boolean => {
  if (view === decoded) return true
  if (view._tag !== decoded._tag || view.id !== decoded.id || view.content !== decoded.content) return false
  if (view._tag === "Assistant") return decoded._tag === "Assistant" && sameCalls(view.toolCalls, decoded.toolCalls)
  if (view._tag === "ToolResult") return decoded._tag === "ToolResult" && view.toolCallId === decoded.toolCallId && view.name === decoded.name
  return true
}

/**
 * Writes a view back as native messages: every run of view messages from one
 * native message regrouped into it (the original itself when nothing
 * changed), a narrowed assistant message keeping its reasoning and files with
 * the calls it keeps, results not from the document sharing one tool message,
 * and anything else (a compacted block among them, as a user message) written anew.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeMessages = (decoding: Decoding, view: Transcript.Transcript, build: Vocabulary): Array<Native> => {
  const out: Array<Native> = []
  const callNames = new Map(decoding.callNames)
  const originOf = (message: Transcript.Message) => {
    const origin = decoding.origins.get(message.id)
    return origin !== undefined && origin.message._tag === message._tag ? origin : undefined
  }

  const regroup = (index: number, group: ReadonlyArray<Transcript.Message>): Native => {
    const native = decoding.natives[index]!
    const decoded = decoding.neutral[index]!
    if (group.length === decoded.length && group.every((message, k) => unchanged(message, decoded[k]!))) return native
    const head = group[0]!
    switch (native["role"]) {
      case "system":
        return { ...native, content: head.content }
      case "user":
        return { ...native, content: typeof native["content"] === "string" ? head.content : [build.text(head.content)] }
      case "tool":
        return {
          ...native,
          content: group.map((message) => {
            const part = (native["content"] as ReadonlyArray<Native>)[decoding.resultParts.get(message.id)!]!
            const original = decoding.origins.get(message.id)!.message
            return message._tag === "ToolResult" && !unchanged(message, original) ? build.changedResult(part, message) : part
          })
        }
      default:
        return regroupAssistant(native, decoded, group)
    }
  }

  const regroupAssistant = (native: Native, decoded: ReadonlyArray<Transcript.Message>, group: ReadonlyArray<Transcript.Message>): Native => {
    const original = decoded[0] as Transcript.AssistantMessage
    const assistant = group.find((message): message is Transcript.AssistantMessage => message._tag === "Assistant")
    const content = native["content"]
    if (typeof content === "string" && assistant !== undefined && assistant.toolCalls.length === 0) return { ...native, content: assistant.content }
    const parts: ReadonlyArray<Native> = typeof content === "string" ? [build.text(content)] : (content as ReadonlyArray<Native>)
    const keptCalls = new Map((assistant?.toolCalls ?? []).map((call) => [call.id, call]))
    const originalCalls = new Map(original.toolCalls.map((call) => [call.id, call]))
    const keptResults = new Map<number, Transcript.ToolResult>()
    for (const message of group) if (message._tag === "ToolResult") keptResults.set(decoding.resultParts.get(message.id)!, message)
    const textChanged = assistant !== undefined && assistant.content !== original.content
    let textPlaced = false
    const kept: Array<Native> = []
    parts.forEach((part, k) => {
      switch (part["type"]) {
        case "tool-call": {
          const call = keptCalls.get(build.callIdOf(part))
          if (call === undefined) return
          keptCalls.delete(call.id)
          kept.push(call.arguments === originalCalls.get(call.id)?.arguments ? part : build.withArguments(part, call.arguments))
          return
        }
        case "tool-result": {
          const result = keptResults.get(k)
          if (result === undefined) return
          const before = decoding.origins.get(result.id)!.message
          kept.push(unchanged(result, before) ? part : build.changedResult(part, result))
          return
        }
        case "text":
          if (assistant === undefined) return
          if (!textChanged) kept.push(part)
          else if (!textPlaced) {
            textPlaced = true
            if (assistant.content !== "") kept.push(build.text(assistant.content))
          }
          return
        default:
          // Reasoning and files stay with whatever calls of the message remain.
          if (assistant !== undefined) kept.push(part)
      }
    })
    if (textChanged && !textPlaced && assistant.content !== "") kept.unshift(build.text(assistant.content))
    for (const call of keptCalls.values()) kept.push(build.toolCall(call))
    return { ...native, content: kept }
  }

  const fresh = (message: Exclude<Transcript.Message, Transcript.ToolResult>): Native => {
    switch (message._tag) {
      case "System":
        return build.message("system", message.content)
      case "User":
      case "Compacted":
        return build.message("user", [build.text(message.content)])
      case "Assistant":
        return build.message("assistant", [...(message.content === "" ? [] : [build.text(message.content)]), ...message.toolCalls.map(build.toolCall)])
    }
  }

  let i = 0
  while (i < view.length) {
    const message = view[i]!
    if (message._tag === "Assistant") for (const call of message.toolCalls) callNames.set(call.id, call.name)
    const origin = message._tag === "Compacted" ? undefined : originOf(message)
    if (origin !== undefined) {
      const group = [message]
      let j = i + 1
      while (j < view.length && originOf(view[j]!)?.index === origin.index && !group.some((m) => m.id === view[j]!.id)) group.push(view[j++]!)
      out.push(regroup(origin.index, group))
      i = j
    } else if (message._tag === "ToolResult") {
      // Consecutive results not from the document share one tool message.
      const results: Array<Native> = []
      let j = i
      for (let next = view[j]; next?._tag === "ToolResult" && originOf(next) === undefined; next = view[++j]) {
        results.push(build.toolResult(next.toolCallId, next.name ?? callNames.get(next.toolCallId) ?? "unknown", next.content))
      }
      out.push(build.message("tool", results))
      i = j
    } else {
      out.push(fresh(message))
      i++
    }
  }
  return out
}
