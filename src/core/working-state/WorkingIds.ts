/**
 * Working ids: the ids a tool result produced that a later call used (a
 * reservation, a user id, a job, a commit). They are what an agent resumes
 * with, whatever their shape, so they are found by use rather than by
 * prefix: a token of a tool result that reappears in a later call's arguments.
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as ShellCommands from "../shell/ShellCommands.js"
import * as Transcript from "../transcript/TranscriptData.js"

/**
 * How many working ids a working state keeps: the most recently used.
 *
 * @since 0.1.0
 * @category constants
 */
export const limit = 40

// A token: letters, digits and the joiners ids use, `/[A-Za-z0-9][A-Za-z0-9_\-]{4,63}/g` as `matchAll` takes it
// (read by character codes in `idsIn`).
const isDigit = (code: number): boolean => code >= 48 && code <= 57
const isLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
const isAlphanumeric = (code: number): boolean => isDigit(code) || isLetter(code)
// A letter, a digit or `_`: what may not stand right before or after a number.
const isWordChar = (code: number): boolean => isAlphanumeric(code) || code === 95

/**
 * Whether a token looks like an id: five characters or more, with a digit,
 * and a letter unless it is a number of six digits or more; not a word of a
 * path or a file name (those are the working state's files).
 *
 * @since 0.1.0
 * @category guards
 */
export const isIdLike = (token: string): boolean => {
  if (token.length < 5 || token.length > 64 || !/\d/.test(token)) return false
  // A date or a version is no id.
  if (/^\d{4}-\d{2}-\d{2}$/.test(token) || /^v?\d+([._-]\d+)+$/.test(token)) return false
  return /[A-Za-z]/.test(token) || token.length >= 6
}

/**
 * The ids of a text: its tokens (the matches of `/[A-Za-z0-9][A-Za-z0-9_\-]{4,63}/g`, as `matchAll`
 * takes them) that are id-like and not inside a path or a file name
 * (`src/a1b2c/x.py`, `test_v2.py`). Read by character codes, since every word
 * of every tool result is a token: only a token with a digit, which an id
 * needs, is cut out of the text and tested.
 *
 * @since 0.1.0
 * @category extracting
 */
export const idsIn = (text: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const length = text.length
  let start = 0
  while (start < length) {
    if (!isAlphanumeric(text.charCodeAt(start))) {
      start++
      continue
    }
    // The token from here: the longest run of token characters, at most 64 long.
    let end = start + 1
    let digit = isDigit(text.charCodeAt(start))
    while (end < length && end - start < 64) {
      const code = text.charCodeAt(end)
      if (!isWordChar(code) && code !== 45) break
      digit ||= isDigit(code)
      end++
    }
    // A run shorter than five ends before the limit: no token starts inside it either.
    if (end - start >= 5 && digit) {
      const before = text.charCodeAt(start - 1)
      const after = text.charCodeAt(end)
      if (before !== 47 && before !== 46 && after !== 47 && after !== 46) {
        const token = text.slice(start, end)
        if (isIdLike(token)) found.push(token)
      }
    }
    start = end
  }
  return found
}

/**
 * The working ids of a span, oldest use first, after those of `earlier`
 * (a persisted state's): a token of a tool result (or of `produced`, the text
 * of an earlier block) that a later call's arguments hold. An id used again
 * moves to the end; the {@link limit} most recently used are kept.
 *
 * @since 0.1.0
 * @category extracting
 */
export const extract = (
  span: Transcript.Transcript,
  earlier: ReadonlyArray<string> = [],
  produced = ""
): ReadonlyArray<string> => {
  const seen = new Set<string>([...earlier, ...idsIn(produced)])
  const used = new Map<string, true>(earlier.map((id) => [id, true]))
  for (const message of span) {
    if (message._tag === "ToolResult" || message._tag === "Compacted") {
      for (const id of idsIn(message.content)) seen.add(id)
      continue
    }
    if (message._tag !== "Assistant") continue
    for (const call of message.toolCalls) {
      for (const id of idsIn(call.arguments)) {
        if (!seen.has(id)) continue
        used.delete(id)
        used.set(id, true)
      }
    }
  }
  return [...used.keys()].slice(-limit)
}

/**
 * How many working numbers a working state keeps: the most recently used.
 *
 * @since 0.1.0
 * @category constants
 */
export const numberLimit = 40

// A run of digits with dot-separated runs after it (an integer, a decimal, a version).
const numberPattern = /\d+(?:\.\d+)*/g

/**
 * The numbers of a text: a run of digits with dot-separated runs of digits
 * after it (an integer, a decimal, a version), at least three characters, not
 * inside a word, an id or a path (no letter, digit, `_`, `.` or `-` before it),
 * followed by at most three letters (a unit: `0.45s`, `12ms`) and then no
 * letter, digit or `_`. A number an id-like token is (six digits or more) is
 * an id, not a number.
 *
 * @since 0.1.0
 * @category extracting
 */
export const numbersIn = (text: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const match of text.matchAll(numberPattern)) {
    const number = match[0]
    if (number.length < 3 || number.length > 64) continue
    // Read by character codes (a number is met often): what comes before, then the unit's letters and after.
    const before = text.charCodeAt(match.index - 1)
    if (isWordChar(before) || before === 46 || before === 45) continue
    let end = match.index + number.length
    for (let letters = 0; letters < 3 && isLetter(text.charCodeAt(end)); letters++) end++
    if (!isWordChar(text.charCodeAt(end)) && !isIdLike(number)) found.push(number)
  }
  return found
}

/**
 * Whether an entry of a working state's `workingIds` is a working number
 * (the list holds both: a number is digits and dots, and no id).
 *
 * @since 0.1.0
 * @category guards
 */
export const isWorkingNumber = (entry: string): boolean => /^\d+(?:\.\d+)*$/.test(entry) && !isIdLike(entry)

/**
 * The working numbers of a span, oldest use first, after those of `earlier`:
 * a number a tool result (or `produced`, the text of an earlier block) gave
 * that a later assistant message used, in its text or its calls' arguments
 * (a line number a later `sed -n` reads, a count, a port, a version). A
 * number the user or the assistant wrote before any result showed it is not
 * one. A number used again moves to the end; the {@link numberLimit} most
 * recently used are kept. `before` (messages just before the span, already
 * compacted) only says where a number first appeared: a result the span's
 * first message reads from was often cut off from it by the boundary.
 *
 * @since 0.1.0
 * @category extracting
 */
export const numbers = (
  span: Transcript.Transcript,
  earlier: ReadonlyArray<string> = [],
  produced = "",
  before: Transcript.Transcript = []
): ReadonlyArray<string> => {
  const source = new Map<string, "result" | "other">([...earlier, ...numbersIn(produced)].map((n) => [n, "result"]))
  const used = new Map<string, true>(earlier.map((number) => [number, true]))
  for (const message of before) {
    const result = message._tag === "ToolResult" || message._tag === "Compacted"
    for (const number of numbersIn(Transcript.text(message))) {
      if (!source.has(number)) source.set(number, result ? "result" : "other")
    }
  }
  for (const message of span) {
    if (message._tag === "ToolResult" || message._tag === "Compacted") {
      for (const number of numbersIn(message.content)) if (!source.has(number)) source.set(number, "result")
      continue
    }
    const texts = message._tag === "Assistant"
      ? [message.content, ...message.toolCalls.map((call) => call.arguments)]
      : [message.content]
    for (const text of texts) {
      for (const number of numbersIn(text)) {
        const from = source.get(number)
        if (from === undefined) source.set(number, "other")
        if (from !== "result" || message._tag !== "Assistant") continue
        used.delete(number)
        used.set(number, true)
      }
    }
  }
  return [...used.keys()].slice(-numberLimit)
}

/**
 * How many test commands a working state keeps: the latest.
 *
 * @since 0.1.0
 * @category constants
 */
export const testCommandLimit = 3

/** The command line of a call: its `command` or `cmd` argument, its `executable` with its `args`, or its arguments as they are. */
const commandLine = (args: string): string => {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    // Not JSON: the arguments are the command line.
    return args
  }
  const command = Json.getOwn(parsed, "command") ?? Json.getOwn(parsed, "cmd")
  return typeof command === "string" ? command : ShellCommands.executableText(parsed) ?? args
}

/**
 * The latest test commands of a span after those of `earlier`, oldest first:
 * the command lines of calls that run tests (`isTestCommand`), each once
 * (run again, it moves to the end), the {@link testCommandLimit} latest kept.
 *
 * @since 0.1.0
 * @category extracting
 */
export const testCommands = (
  span: Transcript.Transcript,
  isTestCommand: (command: string) => boolean,
  earlier: ReadonlyArray<string> = []
): ReadonlyArray<string> => {
  const found = new Map<string, true>(earlier.map((command) => [command, true]))
  for (const message of span) {
    if (message._tag !== "Assistant") continue
    for (const call of message.toolCalls) {
      const command = commandLine(call.arguments).trim()
      if (command === "" || command.length > 2_000 || !isTestCommand(command)) continue
      found.delete(command)
      found.set(command, true)
    }
  }
  return [...found.keys()].slice(-testCommandLimit)
}
