/**
 * The working state as the compacted block shows it: markdown sections,
 * lists bounded with how many were left out.
 *
 * @since 0.1.0
 */
import type * as WorkingState from "../WorkingState.js"

/**
 * Text as a markdown code span, with a fence longer than any run of backticks inside it.
 *
 * @since 0.1.0
 * @category rendering
 */
export const inlineCode = (text: string): string => {
  const flat = text.replace(/\s*\n\s*/g, " ")
  const longest = Math.max(0, ...Array.from(flat.matchAll(/`+/g), (match) => match[0].length))
  const fence = "`".repeat(longest + 1)
  const pad = flat.startsWith("`") || flat.endsWith("`") ? " " : ""
  return `${fence}${pad}${flat}${pad}${fence}`
}

/**
 * How a command's status reads.
 *
 * @since 0.1.0
 * @category rendering
 */
export const describeStatus = (command: WorkingState.Command): string => {
  switch (command.status) {
    case "exited":
      return `exit ${command.exitCode}`
    case "running":
      return "still running"
    case "pending-approval":
      return "waiting for approval"
    case "no-result":
      return "no result in this span"
    case "unknown":
      return "exit status not reported"
  }
}

/** Lists longer than this are shown in part, with how many were left out. */
const renderedListLimit = 50

// The newest ids shown in the block; the rest stay findable in the verbatim transcript.
const renderedIdLimit = 200

const bullets = (items: ReadonlyArray<string>): ReadonlyArray<string> =>
  items.length <= renderedListLimit
    ? items.map((item) => `- ${item}`)
    : [...items.slice(-renderedListLimit).map((item) => `- ${item}`), `- … and ${items.length - renderedListLimit} earlier`]

/**
 * Renders the working state as a compact markdown section: `### Files
 * written`, `### Recent commands`, `### Artifacts`, `### Tools used`,
 * `### Failures`, `### Unfinished calls`, `### Protected ids`, `### File
 * paths`, leaving out the empty ones. An empty state renders as "".
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (state: WorkingState.WorkingState): string => {
  const parts: Array<string> = []
  const section = (heading: string, lines: ReadonlyArray<string>): void => {
    if (lines.length > 0) parts.push([`### ${heading}`, ...lines].join("\n"))
  }
  section("Files written", bullets(state.filesWritten.map(inlineCode)))
  section(
    "Recent commands",
    state.commands.map((command) => `- ${inlineCode(command.command)} — ${describeStatus(command)} (${command.tool}, call ${inlineCode(command.toolCallId)})`)
  )
  section("Artifacts", bullets(state.artifacts.map(inlineCode)))
  section("Tools used", state.toolsUsed.length === 0 ? [] : [state.toolsUsed.map((use) => `${use.name} ×${use.count}`).join(", ")])
  section(
    "Failures",
    state.failures.map((failure) =>
      `- ${failure.command === null ? failure.tool : inlineCode(failure.command)}${failure.exitCode === null ? "" : ` — exit ${failure.exitCode}`} (${failure.tool}, call ${
        inlineCode(failure.toolCallId)
      }): ${failure.message === "" ? "no output" : inlineCode(failure.message)}`
    )
  )
  section("Unfinished calls", bullets(state.unfinishedCalls.map(inlineCode)))
  section(
    "Protected ids",
    state.protectedIds.length === 0
      ? []
      : [
        state.protectedIds.slice(-renderedIdLimit).join(", ") +
        (state.protectedIds.length > renderedIdLimit ? ` (and ${state.protectedIds.length - renderedIdLimit} earlier ones, in the verbatim transcript)` : "")
      ]
  )
  section("File paths", bullets(state.filePaths.filter((path) => !state.filesWritten.includes(path)).map(inlineCode)))
  return parts.join("\n\n")
}
