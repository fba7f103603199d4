/**
 * Histories edited to the same length (issue 43): an OpenAI chat history in
 * which every message carries a marker of its own (`mark-<index>-<8 hex>`),
 * and an edit that changes one message's marker (in its text, or in a tool
 * call's arguments) to another of the same length. What the engine sends
 * for the edited history must carry the new marker and never the old one,
 * whatever it remembers of the history before the edit.
 */
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"

/** A history and one same-length edit of it. */
export interface Edited {
  readonly before: ReadonlyArray<any>
  readonly after: ReadonlyArray<any>
  /** How much of `before` a first call sends, before the whole of it. */
  readonly grownFrom: number
  readonly index: number
  readonly role: string
  readonly oldMarker: string
  readonly newMarker: string
  /** The context window: small enough to compact, or one no history here reaches. */
  readonly window: number
}

const hex8 = fc.stringMatching(/^[0-9a-f]{8}$/)

const filler = (words: number, seed: number): string =>
  Array.from({ length: words }, (_, i) => ["alpha", "parser", "token", "build", "module", "check"][(seed + i) % 6])
    .join(
      " "
    )

/** An OpenAI chat history of tool-using turns, every message carrying its marker. */
export const historyOf = (
  turns: ReadonlyArray<{ readonly words: number; readonly output: number; readonly tool: boolean }>,
  marks: ReadonlyArray<string>
) => {
  const messages: Array<any> = []
  const mark = () => `mark-${messages.length}-${marks[messages.length % marks.length]}`
  messages.push({ role: "system", content: `You are a coding agent. ${mark()}` })
  turns.forEach((turn, t) => {
    messages.push({ role: "user", content: `Please ${filler(turn.words, t)} ${mark()} now.` })
    if (turn.tool) {
      const callId = `call_${t}`
      messages.push({
        role: "assistant",
        content: null,
        tool_calls: [{
          id: callId,
          type: "function",
          function: { name: "bash", arguments: JSON.stringify({ cmd: `cat src/f${t}.ts # ${mark()}` }) }
        }]
      })
      messages.push({ role: "tool", tool_call_id: callId, content: `${mark()} ${filler(turn.output, t + 1)}` })
    }
    messages.push({ role: "assistant", content: `Done: ${filler(turn.words, t + 2)} ${mark()}.` })
  })
  return messages
}

/** The marker of a message (in its text, else in its first call's arguments). */
export const markerOf = (message: any): string | undefined => {
  const text = typeof message.content === "string" ? message.content : message.tool_calls?.[0]?.function.arguments
  return /mark-\d+-[0-9a-f]{8}/.exec(text ?? "")?.[0]
}

/** The history with the marker of message `index` changed to `marker`, wherever it is written. */
export const withMarker = (messages: ReadonlyArray<any>, index: number, marker: string): ReadonlyArray<any> =>
  messages.map((message, at) => {
    if (at !== index) return message
    const old = markerOf(message)!
    return typeof message.content === "string"
      ? { ...message, content: message.content.replace(old, marker) }
      : {
        ...message,
        tool_calls: message.tool_calls.map((call: any, c: number) =>
          c === 0
            ? { ...call, function: { ...call.function, arguments: call.function.arguments.replace(old, marker) } }
            : call
        )
      }
  })

/** Histories of 2 to about 120 messages, each with one same-length edit at any position and of any kind. */
export const edited = (options: { readonly maxTurns?: number } = {}): fc.Arbitrary<Edited> =>
  fc.record({
    turns: fc.array(
      fc.record({
        words: fc.integer({ min: 2, max: 40 }),
        output: fc.integer({ min: 5, max: 400 }),
        tool: fc.boolean()
      }),
      { minLength: 1, maxLength: options.maxTurns ?? 30 }
    ),
    marks: fc.array(hex8, { minLength: 7, maxLength: 7 }),
    at: fc.nat(),
    grow: fc.nat(),
    fresh: hex8,
    small: fc.boolean()
  }).chain(({ at, fresh, grow, marks, small, turns }) => {
    const before = historyOf(turns, marks)
    const index = at % before.length
    const oldMarker = markerOf(before[index])!
    const newMarker = `${oldMarker.slice(0, -8)}${
      fresh === oldMarker.slice(-8) ? (fresh[0] === "a" ? "b" : "a") + fresh.slice(1) : fresh
    }`
    return fc.constant<Edited>({
      before,
      after: withMarker(before, index, newMarker),
      grownFrom: 1 + (grow % before.length),
      index,
      role: before[index].role,
      oldMarker,
      newMarker,
      window: small ? 3_000 : 1_000_000
    })
  })

/** What a view (OpenAI chat messages) must hold after an edit: never the old marker. */
export const violation = (view: ReadonlyArray<any>, edit: Edited): string | undefined => {
  const text = JSON.stringify(view)
  if (text.includes(edit.oldMarker)) {
    return `the view of the edited history still carries ${edit.oldMarker} (message ${edit.index}, ${edit.role}; now ${edit.newMarker})`
  }
  return undefined
}

/** Whether the edited message went into the view verbatim enough to show its marker: then the new one must be there. */
export const showsNew = (view: ReadonlyArray<any>, edit: Edited): boolean =>
  JSON.stringify(view).includes(edit.newMarker)

let run = 0
const nextSession = () => `edited-${process.pid}-${++run}`

/** A way to compact a history: the view (OpenAI chat messages) it gives for the messages of a session. */
export type Worker = (messages: ReadonlyArray<any>, sessionId: string, window: number) => Promise<ReadonlyArray<any>>

/**
 * The calls of one property run over a way to compact: the history grown to part of it, then whole (the engine
 * remembers what it sent, and may compact), then edited. Each call is given to `workers[i % workers.length]`, so
 * two workers alternate. The edited history's view must not carry the old marker.
 */
export const callsOf = async (workers: ReadonlyArray<Worker>, edit: Edited): Promise<ReadonlyArray<any>> => {
  const sessionId = nextSession()
  await workers[0]!(edit.before.slice(0, edit.grownFrom), sessionId, edit.window)
  await workers[1 % workers.length]!(edit.before, sessionId, edit.window)
  return workers[2 % workers.length]!(edit.after, sessionId, edit.window)
}

/** Fails with the violation when the view of an edited history carries the old marker. */
export const holds = (view: ReadonlyArray<any>, edit: Edited): void => {
  const found = violation(view, edit)
  if (found !== undefined) throw new Error(found)
}

/** A new temporary folder. */
export const folder = (): string => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-edited-"))
