/**
 * What `compact` says of what it did: the report of a file (`FileReport`, as
 * `--report` writes it), its line on stderr, and for a directory the progress
 * line and the table of every file.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import * as Adapter from "../../face/adapters/Adapter.js"
import * as Compactor from "../../face/engine/Compactor.js"

/**
 * What `compact` did to one file, as its report writes it.
 *
 * @since 0.1.0
 * @category models
 */
export class FileReport extends Schema.Class<FileReport>("FileReport")({
  file: Schema.String,
  format: Adapter.Format,
  messages: Schema.Int,
  viewMessages: Schema.Int,
  tokensBefore: Schema.Number,
  tokensAfter: Schema.Number,
  trigger: Schema.Number,
  /**
   * The compaction, or null when the transcript was under the trigger (its view changed only by the ladder and the
   * repairs, if at all).
   */
  compacted: Schema.NullOr(Compactor.Compacted),
  /** The rungs of the degradation ladder the view took, compacted or not, in order (none when it fit as it was). */
  ladder: Schema.Array(Compactor.LadderStep),
  /** Lost, late or duplicated tool results repaired in the view, compacted or not. */
  repairs: Schema.Array(Compactor.Repair)
}) {}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

const idList = (ids: ReadonlyArray<string>): string =>
  ids.length <= 5 ? ids.join(", ") : `${ids.slice(0, 5).join(", ")} and ${ids.length - 5} more`

/**
 * What the ladder and the repairs did to a view, in words ("1 message clipped,
 * 1 lost tool result answered"), or `undefined` when they did nothing.
 *
 * @since 0.1.0
 * @category formatting
 */
export const fitNote = (
  ladder: ReadonlyArray<Compactor.LadderStep>,
  repairs: ReadonlyArray<Compactor.Repair>
): string | undefined => {
  const parts = ladder.map((step) => {
    switch (step.step) {
      case "reply-reserve":
        return `the reply's room scaled to ${thousands(step.tokensAfter)} tokens`
      case "reduce-tool-results":
        return `${plural(step.messageIds.length, "tool result")} reduced (${idList(step.messageIds)})`
      case "clip-messages":
        return `${plural(step.messageIds.length, "message")} clipped (${idList(step.messageIds)})`
      case "clip-block":
        return "the compacted block clipped"
    }
  })
  const counts = repairCounts(repairs)
  if (counts["lost-result"] > 0) parts.push(`${plural(counts["lost-result"], "lost tool result")} answered`)
  if (counts["late-result"] > 0) {
    parts.push(`${plural(counts["late-result"], "late tool result")} moved next to its call`)
  }
  if (counts["duplicate-result"] > 0) parts.push(`${plural(counts["duplicate-result"], "second tool result")} left out`)
  return parts.length === 0 ? undefined : parts.join(", ")
}

const repairKinds = ["lost-result", "late-result", "duplicate-result"] as const satisfies ReadonlyArray<
  Compactor.Repair["kind"]
>

/** How many repairs of each kind. */
const repairCounts = (repairs: ReadonlyArray<Compactor.Repair>): Record<Compactor.Repair["kind"], number> => {
  const counts = { "lost-result": 0, "late-result": 0, "duplicate-result": 0 }
  for (const repair of repairs) counts[repair.kind]++
  return counts
}

/** The directory table's cell of the ladder and the repairs: each step and repair kind with its count. */
const fitCell = (report: FileReport): string => {
  const cells = report.ladder.map((step) =>
    step.step === "reply-reserve" || step.step === "clip-block" ? step.step : `${step.step} ${step.messageIds.length}`
  )
  const counts = repairCounts(report.repairs)
  for (const kind of repairKinds) if (counts[kind] > 0) cells.push(`${kind} ${counts[kind]}`)
  return cells.length === 0 ? "-" : cells.join(", ")
}

const thousands = (n: number): string => Math.round(n).toLocaleString("en-US")

/**
 * The line on stderr about one compacted file.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summaryLine = (report: FileReport): string => {
  const fit = fitNote(report.ladder, report.repairs)
  const inView = fit === undefined ? "" : `; in the view: ${fit}`
  if (report.compacted === null) {
    return fit === undefined
      ? `${report.file} (${report.format}): ${report.messages} messages, ${
        thousands(report.tokensAfter)
      } tokens, under the trigger of ${thousands(report.trigger)}: unchanged`
      : `${report.file} (${report.format}): ${report.messages} → ${report.viewMessages} messages, ${
        thousands(report.tokensBefore)
      } → ${thousands(report.tokensAfter)} tokens ` +
        `(trigger ${thousands(report.trigger)}); not compacted${inView}`
  }
  const c = report.compacted
  const how = c.fallback === "none"
    ? `summary ${
      c.cacheHit
        ? "from the cache"
        : `by the summariser (${c.summarizerCalls} call${c.summarizerCalls === 1 ? "" : "s"})`
    }`
    : `trimmed without a summary (${c.gate.join(", ") || "no summary"})`
  const facts = c.missingFromSummary.length === 0
    ? ""
    : `, ${c.missingFromSummary.length} ids and paths added beside it`
  const after = c.cause === "overflow" ? " after the main model's context overflow" : ""
  return `${report.file} (${report.format}): ${report.messages} → ${report.viewMessages} messages, ${
    thousands(report.tokensBefore)
  } → ${thousands(report.tokensAfter)} tokens ` +
    `(trigger ${thousands(report.trigger)}); ${c.replaced.count} messages compacted${after}, ${how}${facts}${inView}`
}

/**
 * Reports as `--report` writes a directory's: an array of them, encoded.
 *
 * @since 0.1.0
 * @category formatting
 */
export const encodeReports = Schema.encodeSync(Schema.Array(FileReport))

/**
 * The progress line of a directory: a bar, the files done of all, the file.
 *
 * @since 0.1.0
 * @category formatting
 */
export const progress = (done: number, total: number, name: string): string => {
  const width = 24
  const filled = Math.round((done / Math.max(total, 1)) * width)
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${name}`
}

const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)))
  return rows.map((row) =>
    row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ")
  ).join("\n")
}

/**
 * The table of a directory's compacted files, one row each: its format,
 * messages and tokens before and after, what was compacted and how, and the
 * view's ladder and repairs.
 *
 * @since 0.1.0
 * @category formatting
 */
export const directoryTable = (reports: ReadonlyArray<FileReport>): string => {
  const rows = [
    ["file", "format", "messages", "tokens before", "tokens after", "compacted", "summary", "ladder and repairs"],
    ...reports.map((r) => [
      NodePath.basename(r.file),
      r.format,
      `${r.messages} → ${r.viewMessages}`,
      thousands(r.tokensBefore),
      thousands(r.tokensAfter),
      r.compacted === null ? "no" : String(r.compacted.replaced.count),
      r.compacted === null
        ? "-"
        : r.compacted.fallback === "trim"
        ? "trimmed"
        : r.compacted.cacheHit
        ? "cache"
        : "summariser",
      fitCell(r)
    ])
  ]
  return table(rows)
}
