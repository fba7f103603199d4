/**
 * The newest error output a span showed: the last line naming an error
 * (`Error`, `Traceback`, `FAILED`, `error:`) of the newest tool result that
 * has one, whether the call failed or not (a test run that exits 0 with a
 * failure printed, a traceback inside a log, the line a `sed -n` shows). The
 * block quotes it, so a compaction whose verbatim tail is short still shows
 * the agent what it saw last; the block carries it over to the next one.
 *
 * @since 0.1.0
 */
import type * as Transcript from "../transcript/TranscriptData.js"
import * as ToolResultRead from "./ToolResultRead.js"

/** A line naming an error. */
const errorLine = /Error|Traceback|FAILED|error:/

/** The quoted line is clipped to this many characters. */
const lineChars = 300

/** The heading of the block's section. */
const heading = "### Newest error output of the compacted part (a tool result's last line naming an error; quoted)"

/**
 * The newest error output of a span.
 *
 * @since 0.1.0
 * @category models
 */
export interface NewestError {
  readonly toolCallId: string
  /** The line, whitespace collapsed, clipped to {@link lineChars} characters. */
  readonly line: string
}

/** The lines of a tool result: of its string values when it is JSON (an envelope's message is a line of its own). */
const linesOf = (content: string): ReadonlyArray<string> => {
  const { parsed } = ToolResultRead.readToolResult(content)
  if (parsed === undefined) return ToolResultRead.scanWindow(content).split("\n")
  const lines: Array<string> = []
  ToolResultRead.walk(parsed, (_key, node) => {
    if (typeof node === "string") { for (const line of ToolResultRead.scanWindow(node).split("\n")) lines.push(line) }
  })
  return lines
}

const collapse = (line: string): string => line.replace(/\s+/g, " ").trim()

/**
 * The newest error output of `span`, read from its end: the first tool result
 * from the end with a line naming an error gives its last such line.
 *
 * @since 0.1.0
 * @category extracting
 */
export const newestIn = (span: Transcript.Transcript): NewestError | undefined => {
  for (let index = span.length - 1; index >= 0; index--) {
    const message = span[index]!
    if (message._tag !== "ToolResult" || !errorLine.test(message.content)) continue
    const lines = linesOf(message.content).map(collapse).filter((line) => line !== "" && errorLine.test(line))
    const last = lines.at(-1)
    if (last !== undefined) {
      return {
        toolCallId: message.toolCallId,
        line: last.length > lineChars ? `${last.slice(0, lineChars)}…` : last
      }
    }
  }
  return undefined
}

/**
 * The block's section quoting an error output.
 *
 * @since 0.1.0
 * @category rendering
 */
export const section = (error: NewestError): string => `${heading}\n\nCall ${error.toolCallId}:\n> ${error.line}\n\n`

/**
 * The error output an earlier block quoted, read back from its text: what a
 * later block carries over when its own span showed none.
 *
 * @since 0.1.0
 * @category parsing
 */
export const fromBlock = (text: string | undefined): NewestError | undefined => {
  if (text === undefined) return undefined
  const at = text.indexOf(heading)
  if (at < 0) return undefined
  const match = /^\n\nCall (\S*):\n> ([^\n]*)/.exec(text.slice(at + heading.length))
  return match === null ? undefined : { toolCallId: match[1]!, line: match[2]! }
}
