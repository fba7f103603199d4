/**
 * Recall handles (SPEC R2.18): the short names a compacted block gives the
 * messages it moved out, so that an agent can ask for one back whole with
 * `context_recall`. A handle is `ctx_` and 12 letters or digits: 3 that name
 * the session, 9 that name the message's text within it, so the same text of
 * the same session always has the same handle and a handle says at once
 * whether it is of the session asking.
 *
 * @since 0.1.0
 */
import * as ViewFit from "../checkpoint/ViewFit.js"
import * as Clip from "../reduce/Clip.js"
import * as RecallHandles from "../services/RecallHandles.js"
import * as ShellCommands from "../shell/ShellCommands.js"
import * as Transcript from "../transcript/TranscriptData.js"
import * as Failures from "../working-state/Failures.js"

/**
 * What every handle starts with.
 *
 * @since 0.1.0
 * @category constants
 */
export const prefix: string = RecallHandles.prefix

/**
 * A well-formed handle: `ctx_` and 10 or more letters or digits.
 *
 * @since 0.1.0
 * @category constants
 */
export const pattern: RegExp = RecallHandles.pattern

/**
 * The length from which a tool result or an assistant message is listed by
 * handle whatever the summary says of it; a shorter one is listed when the
 * summary cites its id.
 *
 * @since 0.1.0
 * @category constants
 */
export const listedFromChars = 200

/**
 * The text a handle gives back: a tool result's content, an assistant
 * message's text with its calls (`name(arguments)` a line), a user or system
 * message's content. A compacted block has none: it is not recalled, its
 * messages are.
 *
 * @since 0.1.0
 * @category getters
 */
export const textOf: (message: Transcript.Message) => string | undefined = RecallHandles.textOf

/**
 * The handle of a text in a session: stable for the two, another for any
 * other session.
 *
 * @since 0.1.0
 * @category constructors
 */
export const handleOf: (sessionId: string, text: string) => string = RecallHandles.handleOf

/**
 * Whether a handle was made in `sessionId`: a handle of another session (or a
 * made-up one) is refused before anything is read.
 *
 * @since 0.1.0
 * @category guards
 */
export const belongsTo: (handle: string, sessionId: string) => boolean = RecallHandles.belongsTo

/**
 * The handle of a message in a session, when it has text to give back.
 *
 * @since 0.1.0
 * @category constructors
 */
export const handleOfMessage = (sessionId: string, message: Transcript.Message): string | undefined => {
  const text = textOf(message)
  return text === undefined ? undefined : handleOf(sessionId, text)
}

/**
 * One line of the block's handle list.
 *
 * @since 0.1.0
 * @category models
 */
export interface Listed {
  readonly handle: string
  readonly messageId: string
  /** What the message holds, in one line. */
  readonly note: string
}

const thousands = (n: number): string => n.toLocaleString("en-US")

/** What a call did, in a few words: the command it ran, else its name and its arguments' head. */
const callLabel = (call: Transcript.ToolCall): string => {
  let args: unknown
  try {
    args = JSON.parse(call.arguments)
  } catch {
    args = undefined
  }
  const command = ShellCommands.shellCommandText(call.name, args, call.arguments) ?? ShellCommands.executableText(args)
  if (command !== undefined) return `${call.name}: ${Clip.label(ShellCommands.commandLabel(command), 90)}`
  const flat = call.arguments.replace(/\s+/g, " ").trim()
  return flat === "" || flat === "{}" ? call.name : `${call.name} ${Clip.label(flat, 80)}`
}

/**
 * The one-line note of a message: for a tool result the call that made it,
 * its exit code when it failed, and its length; for another message its
 * kind, its first words and its length.
 *
 * @since 0.1.0
 * @category rendering
 */
export const noteOf = (
  message: Transcript.Message,
  callOf: (toolCallId: string) => Transcript.ToolCall | undefined
): string => {
  const text = textOf(message) ?? ""
  const size = `${thousands(text.length)} chars`
  switch (message._tag) {
    case "ToolResult": {
      const call = callOf(message.toolCallId)
      const exit = Failures.exitCodeOf(message.content)
      const what = call === undefined ? `${message.name ?? "tool"} result` : callLabel(call)
      return `${what} (${exit === null || exit === 0 ? "" : `exit ${exit}, `}${size})`
    }
    case "Assistant": {
      const words = message.content.replace(/\s+/g, " ").trim()
      const calls = message.toolCalls.map((call) => call.name).join(", ")
      const what = words === "" ? `calls ${calls}` : Clip.label(words, 80) + (calls === "" ? "" : `; calls ${calls}`)
      return `assistant ${message.id}: ${what} (${size})`
    }
    default:
      return `${message._tag.toLowerCase()} ${message.id}: ${
        Clip.label(text.replace(/\s+/g, " ").trim(), 80)
      } (${size})`
  }
}

/** Whether `text` names `id` as a whole word. */
const cites = (text: string, id: string): boolean => {
  for (let at = text.indexOf(id); at !== -1; at = text.indexOf(id, at + 1)) {
    const before = text[at - 1]
    const after = text[at + id.length]
    if ((before === undefined || !/[\w-]/.test(before)) && (after === undefined || !/[\w-]/.test(after))) return true
  }
  return false
}

/**
 * The messages of a compacted span that the block lists by handle, oldest
 * first, once per handle: tool results and assistant messages over
 * {@link listedFromChars} characters or cited by the summary, and user
 * messages over {@link listedFromChars} characters that the summary cites
 * (a shorter one the block quotes or names already).
 *
 * @since 0.1.0
 * @category constructors
 */
export const listed = (
  sessionId: string,
  span: ReadonlyArray<Transcript.Message>,
  summary: string | undefined,
  callOf: (toolCallId: string) => Transcript.ToolCall | undefined
): ReadonlyArray<Listed> => {
  const seen = new Set<string>()
  const out: Array<Listed> = []
  for (const message of span) {
    const text = textOf(message)
    if (text === undefined || message._tag === "System") continue
    const work = message._tag === "ToolResult" || message._tag === "Assistant"
    const cited = summary !== undefined && message.id !== "" && cites(summary, message.id)
    // A short user message the summary cites is one the block quotes or names already: not worth a line.
    if (!(work && (text.length > listedFromChars || cited)) && !(cited && text.length > listedFromChars)) continue
    const handle = handleOf(sessionId, text)
    if (seen.has(handle)) continue
    seen.add(handle)
    out.push({ handle, messageId: message.id, note: noteOf(message, callOf) })
  }
  return out
}

/**
 * The heading of the block's handle list.
 *
 * @since 0.1.0
 * @category constants
 */
export const sectionHeading = "## Compacted content by handle (newest first)"

const listLine = /^- (ctx_[A-Za-z0-9]{10,}) — (.*)$/
const moreLine = /^- \(and (\d+) older ones? not listed\)$/

/**
 * The handle list of an earlier block, newest first, and the count it left
 * out: a later compaction folds the earlier block in, and its handles stay
 * listed after the new ones.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromBlock = (
  content: string
): { readonly lines: ReadonlyArray<{ readonly handle: string; readonly note: string }>; readonly more: number } => {
  const at = content.indexOf(`\n${sectionHeading}\n`)
  if (at === -1) return { lines: [], more: 0 }
  const lines: Array<{ handle: string; note: string }> = []
  let more = 0
  for (const line of content.slice(at + sectionHeading.length + 2).split("\n")) {
    if (line.startsWith("## ")) break
    const entry = listLine.exec(line)
    if (entry !== null) lines.push({ handle: entry[1]!, note: entry[2]! })
    const counted = moreLine.exec(line)
    if (counted !== null) more += Number(counted[1])
  }
  return { lines, more }
}

/**
 * The block's handle list within `maxTokens`: the newest first, then a line
 * with the count of the rest. Empty when nothing is listed or nothing fits.
 *
 * @since 0.1.0
 * @category rendering
 */
export const section = (
  entries: ReadonlyArray<{ readonly handle: string; readonly note: string }>,
  earlierMore: number,
  maxTokens: number,
  count: (text: string) => number
): { readonly text: string; readonly shown: number } => {
  if (entries.length === 0 && earlierMore === 0) return { text: "", shown: 0 }
  const head =
    `${sectionHeading}\n\nEach is a message this block stands for, whole; read one with the context_recall tool { handle, offset?, length? } when you have it.\n`
  let used = count(head) + 12
  const lines: Array<string> = []
  for (const entry of entries) {
    const line = `- ${entry.handle} — ${entry.note}`
    const cost = count(line) + 1
    if (used + cost > maxTokens) break
    lines.push(line)
    used += cost
  }
  if (lines.length === 0) return { text: "", shown: 0 }
  const more = entries.length - lines.length + earlierMore
  if (more > 0) lines.push(`- (and ${more} older one${more === 1 ? "" : "s"} not listed)`)
  return { text: `${head}\n${lines.join("\n")}\n`, shown: lines.length - (more > 0 ? 1 : 0) }
}

/**
 * The share of the block's budget its handle list may take.
 *
 * @since 0.1.0
 * @category constants
 */
export const blockShare = 0.1

/**
 * What a block lists by handle: the span's listed messages, newest first,
 * then those the earlier block listed, and the count the earlier block left
 * out. Messages made for a view (a synthetic "result lost") are never
 * archived, so never listed. Render it with {@link section}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const blockListing = (options: {
  readonly sessionId: string
  readonly span: ReadonlyArray<Transcript.Message>
  readonly summary: string | undefined
  readonly transcript: ReadonlyArray<Transcript.Message>
  readonly earlierBlock: string | undefined
}): { readonly entries: ReadonlyArray<{ readonly handle: string; readonly note: string }>; readonly more: number } => {
  const calls = new Map<string, Transcript.ToolCall>()
  for (const message of options.transcript) {
    if (message._tag === "Assistant") { for (const call of message.toolCalls) calls.set(call.id, call) }
  }
  const span = options.span.filter((message) => !ViewFit.isDerived(message))
  const fresh = listed(options.sessionId, span, options.summary, (id) => calls.get(id)).slice().reverse()
  const earlier = options.earlierBlock === undefined ? { lines: [], more: 0 } : fromBlock(options.earlierBlock)
  const freshHandles = new Set(fresh.map((entry) => entry.handle))
  return { entries: [...fresh, ...earlier.lines.filter((line) => !freshHandles.has(line.handle))], more: earlier.more }
}

/**
 * The recall handles of a view's messages by the text the transcript holds
 * for them (found by id, so a message the ladder already cut still gets the
 * handle of its whole text); the map is made on the first call.
 *
 * @since 0.1.0
 * @category handles
 */
export const byTranscript = (sessionId: string, transcript: Transcript.Transcript) => {
  let byId: Map<string, Transcript.Message> | undefined
  return (message: Transcript.Message): string | undefined => {
    byId ??= new Map(transcript.map((original) => [original.id, original] as const))
    const original = byId.get(message.id)
    return original === undefined || original._tag !== message._tag ? undefined : handleOfMessage(sessionId, original)
  }
}
