/**
 * What a failed tool result says: its exit code, and the message the working
 * state keeps (an envelope's error, a traceback's exception line, the first
 * meaningful line).
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as Clip from "../reduce/Clip.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import { asExitCode, asString, scanChars, scanWindow } from "./ToolResultRead.js"

/**
 * The exit code a tool result reports: an envelope's `data.job.exitCode` (or
 * `data.exitCode`), `<returncode>N</returncode>`, `exit code N`, `Exit code: N`,
 * `exit status N`, or an `exit_code`/`returncode` JSON field.
 *
 * @since 0.1.0
 * @category tool results
 */
export const exitCodeOf = (content: string, envelope?: Envelope.Envelope): number | null => {
  if (envelope !== undefined) {
    const fromJob = asExitCode(Json.getPath(envelope, "data.job.exitCode"))
    if (fromJob !== null) return fromJob
    const direct = asExitCode(Json.getPath(envelope, "data.exitCode"))
    if (direct !== null) return direct
    return null
  }
  const window = scanWindow(content)
  const tagged = /<returncode>\s*(-?\d{1,9})\s*<\/returncode>/i.exec(window)
  if (tagged !== null) return Number(tagged[1])
  const spoken = /\b(?:exit(?:ed)?(?: with)?[ _-]?(?:code|status)|return(?:ed)?[ _-]?code)\s*[:=]?\s*(-?\d{1,9})\b/i
    .exec(window)
  if (spoken !== null) return Number(spoken[1])
  const field = /"(?:exit_?code|exitCode|returncode|return_code|status_code)"\s*:\s*(-?\d{1,9})\b/.exec(window)
  if (field !== null) return Number(field[1])
  return null
}

const wrapperLine =
  /^<\/?(?:returncode|output|stdout|stderr|error|result)>(?:-?\d+<\/returncode>)?$|^<returncode>.*<\/returncode>$/i

/** The first line of a tool result worth quoting: past wrapper tags and blank lines. */
const firstMeaningfulLine = (content: string): string => {
  const window = content.length > scanChars ? content.slice(0, scanChars) : content
  for (const line of window.split("\n")) {
    const trimmed = line.trim()
    if (trimmed !== "" && !wrapperLine.test(trimmed)) return Clip.label(trimmed, 240)
  }
  return ""
}

/** The exception line that ends a Python traceback, if the output holds one. */
const tracebackException = (content: string): string | undefined => {
  const window = scanWindow(content)
  const start = window.lastIndexOf("Traceback (most recent call last)")
  if (start === -1) return undefined
  const exception = window
    .slice(start)
    .split("\n")
    .slice(1)
    .find((line) => /^[A-Za-z_][\w.]*(?::\s.*|:)?\s*$/.test(line) && !line.startsWith("During handling"))
  return exception === undefined ? undefined : Clip.label(exception.trim(), 240)
}

export const errorOpening = /^(?:Error\b|ERROR\b|error:|Traceback\b|Exception\b|fatal:|FATAL\b|panic:)/

export const failureMessage = (content: string, envelope: Envelope.Envelope | undefined): string => {
  if (envelope !== undefined) {
    const error = Json.getPath(envelope, "data.error") ?? Json.getPath(envelope, "error")
    const stderr = asString(Json.getPath(envelope, "data.stderr")) ??
      asString(Json.getPath(envelope, "data.job.stderr"))
    const fromStderr = stderr === undefined ? undefined : tracebackException(stderr) ?? firstMeaningfulLine(stderr)
    const message = asString(error) ?? asString(Json.getPath(error, "message")) ??
      (fromStderr === "" ? undefined : fromStderr) ??
      envelope.summary ?? `${envelope.tool} ${envelope.action} failed`
    return Clip.label(message.split("\n")[0]!.trim(), 240)
  }
  return tracebackException(content) ?? firstMeaningfulLine(content)
}
