/**
 * The working state as the compacted block shows it: markdown sections,
 * lists bounded with how many were left out.
 *
 * @since 0.1.0
 */
import type * as WorkingState from "./WorkingState.js"

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

/**
 * How the working state is rendered: within `maxTokens` (counted by
 * `tokens`), the most valuable sections first.
 *
 * @since 0.1.0
 * @category models
 */
export interface Budget {
  readonly maxTokens: number
  readonly tokens: (text: string) => number
  /** Short of room for a line per file, the files on one line (default true). */
  readonly compactFiles?: boolean
}

interface Section {
  readonly heading: string
  /** What one left-out entry is called, for the line that counts them. */
  readonly noun: string
  /** The entries, most valuable first. */
  readonly items: ReadonlyArray<string>
  /** Entries not shown whatever the budget (past a list's limit). */
  readonly alreadyLeftOut?: number
  /** A terser form of the same entries, shown instead when the budget cannot hold them all. */
  readonly compact?: ReadonlyArray<string>
}

const editLine = (edit: WorkingState.FileEdit): string =>
  `- ${inlineCode(edit.path)} — ${edit.action}${edit.times > 1 ? ` ×${edit.times}` : ""} via ${inlineCode(edit.via)} (${
    edit.times > 1 ? "last by " : ""
  }call ${inlineCode(edit.toolCallId)})`

const commandOutcome = (command: WorkingState.Command): string =>
  `${inlineCode(command.command)} — ${describeStatus(command)} (call ${inlineCode(command.toolCallId)})`

const listLine = (label: string, items: ReadonlyArray<string>, limit: number): string =>
  `- ${label}: ${items.slice(-limit).map(inlineCode).join(", ")}${
    items.length > limit ? ` (and ${items.length - limit} earlier)` : ""
  }`

/** The sections, most valuable first: what is pending, the ids, the files, the errors, where the work stands, then the rest. */
const sections = (state: WorkingState.WorkingState): ReadonlyArray<Section> => {
  const edits = state.edits
  const edited = new Set(edits.map((edit) => edit.path))
  // A state saved before edits were recorded names its written files only.
  const writtenOnly = state.filesWritten.filter((path) => !edited.has(path))
  const written = new Set(state.filesWritten)
  const readOnly = state.filePaths.filter((path) => !written.has(path))
  const changed = [...new Set([...[...edits].reverse().map((edit) => edit.path), ...writtenOnly.slice().reverse()])]
    .slice(0, renderedListLimit)
  const ids = state.protectedIds.slice(-renderedIdLimit)
  const standing = state.standing
  const standingLines: Array<string> = []
  if (standing !== null) {
    if (standing.lastTestRun !== null) {
      standingLines.push(`- Latest test run: ${commandOutcome(standing.lastTestRun)}`)
      if (standing.failingTests.length > 0) {
        standingLines.push(`- Failing in it: ${standing.failingTests.map(inlineCode).join(", ")}`)
      }
    }
    if (standing.lastCommand !== null && standing.lastCommand.toolCallId !== standing.lastTestRun?.toolCallId) {
      standingLines.push(`- Latest command: ${commandOutcome(standing.lastCommand)}`)
    }
    if (standing.changedSinceLastPass.length > 0) {
      standingLines.push(
        standing.lastPassingRun === null
          ? listLine("No test run passed; changed since the start", standing.changedSinceLastPass, 30)
          : listLine(
            `Changed since the last passing run (call ${inlineCode(standing.lastPassingRun)})`,
            standing.changedSinceLastPass,
            30
          )
      )
    } else if (standing.lastPassingRun !== null) {
      standingLines.push(`- Nothing changed since the last passing run (call ${inlineCode(standing.lastPassingRun)})`)
    }
  }
  return [
    {
      heading: "Unfinished calls",
      noun: "unfinished calls",
      items: state.unfinishedCalls.map((id) => `- ${inlineCode(id)}`)
    },
    {
      heading: "Protected ids",
      noun: "protected ids",
      items: ids.length === 0 ? [] : [ids.join(", ")],
      alreadyLeftOut: state.protectedIds.length - ids.length
    },
    {
      heading: "Files",
      noun: "files",
      items: [
        ...[...edits].reverse().slice(0, renderedListLimit).map(editLine),
        ...writtenOnly.slice(-renderedListLimit).reverse().map((path) => `- ${inlineCode(path)} — written`),
        ...(readOnly.length === 0 ? [] : [listLine("Read only", readOnly, renderedListLimit)])
      ],
      alreadyLeftOut: Math.max(0, edits.length - renderedListLimit) +
        Math.max(0, writtenOnly.length - renderedListLimit),
      // Short of room, the paths written are what a resumed agent reuses: all of them on one line, newest first, before the reads.
      compact: [
        ...(changed.length === 0 ? [] : [`- Changed (newest first): ${changed.map(inlineCode).join(", ")}`]),
        ...(readOnly.length === 0 ? [] : [listLine("Read only", readOnly, renderedListLimit)])
      ]
    },
    {
      heading: "Errors",
      noun: "errors",
      items: [...state.failures].reverse().map((failure) =>
        `- ${failure.command === null ? failure.tool : inlineCode(failure.command)}${
          failure.exitCode === null ? "" : ` — exit ${failure.exitCode}`
        } (${failure.tool}, call ${inlineCode(failure.toolCallId)}): ${
          failure.message === "" ? "no output" : inlineCode(failure.message)
        }${failure.fixedBy === null ? "" : `. Fixed: the same command exited 0 in call ${inlineCode(failure.fixedBy)}`}`
      )
    },
    { heading: "Where the work stands", noun: "lines of where the work stands", items: standingLines },
    {
      heading: "Recent commands",
      noun: "recent commands",
      items: [...state.commands].reverse().map((command) =>
        `- ${inlineCode(command.command)} — ${describeStatus(command)} (${command.tool}, call ${
          inlineCode(command.toolCallId)
        })`
      )
    },
    {
      heading: "Artifacts",
      noun: "artifacts",
      items: state.artifacts.slice(-renderedListLimit).reverse().map((path) => `- ${inlineCode(path)}`),
      alreadyLeftOut: Math.max(0, state.artifacts.length - renderedListLimit)
    },
    {
      heading: "Tools used",
      noun: "tools",
      items: state.toolsUsed.length === 0 ? [] : [state.toolsUsed.map((use) => `${use.name} ×${use.count}`).join(", ")]
    }
  ]
}

/**
 * Renders the working state as compact markdown sections, the most valuable
 * first: `### Unfinished calls`, `### Protected ids`, `### Files` (per file
 * what happened, through which command or tool and by which call; then the
 * files only read), `### Errors` (with the fix when a later run of the same
 * command exited 0), `### Where the work stands` (the latest test run and
 * command, the failing tests, the files changed since the last passing run),
 * `### Recent commands`, `### Artifacts`, `### Tools used`; lists newest
 * first, empty sections left out. Within a budget, sections fill it in that
 * order and a last line says what was left out. An empty state renders as "".
 *
 * @since 0.1.0
 * @category rendering
 */
export const render = (state: WorkingState.WorkingState, budget?: Budget): string => {
  const parts: Array<string> = []
  const leftOut: Array<string> = []
  let used = 0
  const cost = (line: string): number => (budget === undefined ? 0 : budget.tokens(line) + 1)
  const limit = budget === undefined ? Infinity : Math.max(0, budget.maxTokens)
  for (const full of sections(state)) {
    if (full.items.length === 0) continue
    const heading = `### ${full.heading}`
    const fits = used + cost(heading) + full.items.reduce((n, item) => n + cost(item), 0) <= limit
    const section = fits || full.compact === undefined || budget?.compactFiles === false
      ? full
      : { ...full, items: full.compact, alreadyLeftOut: 0 }
    if (section !== full) leftOut.push(`the ${full.noun}' details (how and by which call)`)
    const shown: Array<string> = []
    let sectionCost = cost(heading)
    for (const item of section.items) {
      const itemCost = cost(item)
      if (used + sectionCost + itemCost > limit) break
      shown.push(item)
      sectionCost += itemCost
    }
    const dropped = section.items.length - shown.length
    if (shown.length > 0) {
      parts.push([heading, ...shown].join("\n"))
      used += sectionCost
    }
    const earlier = section.alreadyLeftOut ?? 0
    if (earlier > 0 && shown.length > 0) {
      parts[parts.length - 1] += section.heading === "Protected ids"
        ? ` (and ${earlier} earlier ones, in the verbatim transcript)`
        : `\n- … and ${earlier} earlier`
    }
    if (dropped > 0) {
      leftOut.push(
        `${dropped} ${section.items.length === 1 ? `line of ${section.heading.toLowerCase()}` : section.noun}`
      )
    }
  }
  if (leftOut.length > 0) {
    parts.push(`### Left out for the budget\n- ${leftOut.join("; ")}: the oldest of each, in the verbatim transcript.`)
  }
  return parts.join("\n\n")
}
