/**
 * The `context-compressor` command line: `reduce FILE|-` reduces one tool
 * result with the built-in policies, prints the reduced text on stdout and one
 * line about what happened on stderr.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as CliCompat from "#compat-cli"
import { Argument, Command, Flag } from "#compat-cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as PackageVersion from "../../face/engine/internal/PackageVersion.js"
import * as Reduce from "../../face/engine/Reduce.js"
import * as Json from "../../face/models/Json.js"
import * as Report from "../../face/models/Report.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as AdminCli from "./AdminCli.js"
import * as CliIo from "./CliIo.js"
import { ExitCode, stdinPath, writeReport } from "./CliIo.js"
import * as CompactCli from "./CompactCli.js"
import * as Manners from "./Manners.js"
import * as ProxyCli from "./ProxyCli.js"
import * as RecallCli from "./RecallCli.js"
import * as ServeCli from "./ServeCli.js"

/**
 * The name the program is installed under, and the prefix of its error lines.
 *
 * @since 0.1.0
 * @category constants
 */
export const programName = CliIo.programName

export {
  /**
   * The exit codes of the program.
   *
   * @since 0.1.0
   * @category constants
   */
  ExitCode
} from "./CliIo.js"

/**
 * The version shown by `--version`: the package's, from its `package.json`.
 *
 * @since 0.1.0
 * @category constants
 */
export const version: string = PackageVersion.version

const noteLength = 160

/**
 * The one line written on stderr after a reduction: sizes, route, policy, the
 * decisions by action and, off the envelope route, the notes.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summaryLine = (source: string, report: Report.Report): string => {
  const route = report.policy === null ? `${report.route} route` : `${report.route} route (${report.policy})`
  const decisions = Object.entries(Report.totals(report))
    .sort(([, a], [, b]) => b - a)
    .map(([action, count]) => `${action} ${count}`)
    .join(", ")
  const notes = report.route === "envelope"
    ? ""
    : report.notes
      .map((note) => note.replace(/\s+/g, " "))
      .map((note) => (note.length > noteLength ? `${note.slice(0, noteLength - 1)}…` : note))
      .join("; ")
  return `reduced ${source}: ${report.inputChars} → ${report.outputChars} characters, ${route}` +
    (decisions === "" ? "" : `: ${decisions}`) +
    (notes === "" ? "" : ` — ${notes}`)
}

/** Digits only; a cap past 2^53 means no practical cap and is read as the largest safe integer. */
const parseCap = (value: string): Effect.Effect<number, string> =>
  /^[0-9]+$/.test(value) && Number(value) >= Reduce.minimumCap
    ? Effect.succeed(Math.min(Number(value), Number.MAX_SAFE_INTEGER))
    : Effect.fail(`--cap must be an integer of at least ${Reduce.minimumCap} characters (got '${value}')`)

/** @effect/cli reads an unknown flag before FILE as FILE itself; this names it as the flag it is. */
const rejectFlag = (value: string): Effect.Effect<string, string> =>
  value.startsWith("-") && value !== stdinPath
    ? Effect.fail(`Unknown option '${value}' (a FILE whose name starts with - can be given as ./${value})`)
    : Effect.succeed(value)

const input = Argument.String("FILE").pipe(
  Argument.check(rejectFlag),
  Argument.withDescription("The tool result to reduce: a JSON file, or - to read standard input.")
)

const cap = Flag.String("cap").pipe(
  Flag.withMetavar("CHARS"),
  Flag.check(parseCap),
  Flag.withDescription(
    `The cap in characters of compact JSON: an integer of at least ${Reduce.minimumCap}, default ${Reduce.defaultCap}. ` +
      "A reduced envelope over the cap is replaced by its recovery list."
  ),
  Flag.withDefault(Reduce.defaultCap)
)

const report = Flag.String("report").pipe(
  Flag.withMetavar("FILE"),
  Flag.withDescription(
    "Also write the report of the reduction (route, policy, what each rule decided) to FILE as JSON."
  ),
  Flag.optional
)

const pretty = Flag.Boolean("pretty").pipe(
  Flag.withDescription(
    "Print the reduced JSON indented by two spaces instead of compact (text that is not JSON is printed as it is)."
  )
)

/**
 * The `reduce` subcommand: reads FILE (or stdin for `-`), reduces it with the
 * built-in policies, prints the output on stdout and a summary line on stderr.
 *
 * @since 0.1.0
 * @category commands
 */
export const reduceCommand = Command.make(
  "reduce",
  { input, cap, report, pretty },
  (options) =>
    Effect.gen(function*() {
      const label = options.input === stdinPath ? "standard input" : options.input
      const { invalidUtf8, text } = yield* CliIo.readInputChecked(options.input)
      const reduced = Reduce.reduce(text, { policies: builtInPolicies, cap: options.cap })
      const encodingNotes = invalidUtf8 === 0 ? [] : [CliIo.invalidUtf8Note("the input", invalidUtf8)]
      const reduction = {
        ...reduced,
        report: { ...reduced.report, notes: [...encodingNotes, ...reduced.report.notes] }
      }
      let output = reduction.text
      let prettyNote: string | undefined
      if (options.pretty && reduction.value !== undefined) {
        // Indenting a value nested thousands deep can outgrow any string: then it is printed compact, and said.
        try {
          output = Json.stringify(reduction.value, 2)
        } catch {
          prettyNote = "--pretty: too deeply nested to indent; printed compact"
        }
      }
      // The report before stdout: a report that cannot be written leaves stdout empty.
      if (Option.isSome(options.report)) yield* writeReport(options.report.value, reduction.report)
      yield* CliIo.printOut(output)
      if (invalidUtf8 > 0) yield* Console.error(`warning: ${CliIo.invalidUtf8Note(label, invalidUtf8)}`)
      if (prettyNote !== undefined) yield* Console.error(`warning: ${prettyNote}`)
      yield* Console.error(summaryLine(label, reduction.report))
    })
).pipe(
  Command.withDescription(
    "Reduce one tool result (an agentic-workspace/v1 envelope, MCP structuredContent, or any text) to fit the cap, " +
      "printing the reduced text on stdout and a one-line summary on stderr."
  )
)

/**
 * The root command, `context-compressor`, with its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(programName).pipe(
  Command.withDescription(
    "Context compaction for LLM agents: reduces tool results with retention rules that keep what an agent needs to resume."
  ),
  Command.withSubcommands([
    CompactCli.compactCommand,
    reduceCommand,
    CompactCli.replayCommand,
    AdminCli.settingsCommand,
    AdminCli.cacheCommand,
    AdminCli.archiveCommand,
    ServeCli.serveCommand,
    ProxyCli.proxyCommand,
    RecallCli.recallCommand
  ])
)

const runCommand = CliCompat.runner(command, { name: programName, version })

const optionsWithValues = new Set([
  "--cap",
  "--report",
  "--log-level",
  "--completions",
  "--format",
  "--window",
  "--trigger-pct",
  "--summary-request",
  "--summarizer",
  "--base-url",
  "--model",
  "--cache",
  "--state",
  "--config",
  "--out",
  "--record",
  "--max-age-days",
  "--max-mb",
  "--port",
  "--host",
  "--dir",
  "--token",
  "--max-body-mb",
  "--max-compactions",
  "--max-event-streams",
  "--min-usable",
  "--upstream",
  "--admin-port",
  "--upstream-timeout",
  "--connect-timeout",
  "--allowed-host",
  "--session",
  "--offset",
  "--length"
])

/**
 * @effect/cli stops looking for options at an argument that starts with `-`, so
 * `reduce - --pretty` would leave `--pretty` unread: the stdin marker is moved last.
 */
const stdinMarkerLast = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (args.includes("--")) return args
  const index = args.findIndex((arg, i) => arg === stdinPath && !optionsWithValues.has(args[i - 1] ?? ""))
  return index === -1 ? args : [...args.slice(0, index), ...args.slice(index + 1), stdinPath]
}

/**
 * Runs the program on the arguments that follow the program name (as in
 * `process.argv.slice(2)`) and succeeds with the exit code to end with. Usage
 * errors are printed by @effect/cli; read and write failures as one line on stderr.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (args: ReadonlyArray<string>): Effect.Effect<ExitCode, never, CliCompat.Environment> =>
  // The version alone on its line, whichever command-line library the build has (each words its own).
  (args.length === 1 && args[0] === "--version" ? Console.log(version) : runCommand(stdinMarkerLast(args))).pipe(
    Effect.as<ExitCode>(ExitCode.success),
    Compat.catchFailure((error) => {
      if (CliCompat.isUsageError(error)) return Effect.succeed(ExitCode.failure)
      // A reader that closed standard output (`| head`) ends the program quietly.
      if (error._tag === "StdoutClosed") return Effect.succeed(ExitCode.success)
      const line = error._tag === "InputUnreadable"
        ? `${programName}: cannot read ${error.path}: ${error.reason}`
        : error._tag === "ReportUnwritable"
        ? `${programName}: cannot write the report to ${error.path}: ${error.reason}`
        : `${programName}: ${error.message}`
      return Effect.as(Console.error(Manners.echo(line, 2_000)), ExitCode.failure)
    }),
    // A defect (a bug, or an input no check foresaw) is one line, never a stack trace.
    Compat.catchDefect((defect) =>
      Effect.as(
        Console.error(
          `${programName}: internal error: ${
            Manners.echo(defect instanceof Error ? `${defect.name}: ${defect.message}` : String(defect))
          }`
        ),
        ExitCode.failure
      )
    ),
    Manners.withManners({
      rewriteHelp: Manners.asksForHelp(args)
        ? (text) => Manners.helpText(text, programName, Manners.commandPath(args))
        : undefined
    })
  )
