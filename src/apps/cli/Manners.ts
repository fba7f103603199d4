/**
 * The program's manners on a terminal: colour only where a terminal shows it
 * (never when the stream is a pipe or a file, never with `NO_COLOR`), logs on
 * stderr, help text that names the program and says what each option is for,
 * and error lines of a bounded length.
 *
 * @since 0.1.0
 */
import * as CliCompat from "#compat-cli"
import { Flag } from "#compat-cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { stripVTControlCharacters } from "node:util"

/**
 * Whether colour may be written to a stream: it is a terminal and `NO_COLOR`
 * is unset or empty (https://no-color.org).
 *
 * @since 0.1.0
 * @category terminal
 */
export const colorAllowed = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "")

/**
 * The most characters of an input value an error line echoes.
 *
 * @since 0.1.0
 * @category constants
 */
export const echoLimit = 200

/**
 * A value to name in an error, cut to {@link echoLimit} characters with a note
 * of its full length.
 *
 * @since 0.1.0
 * @category formatting
 */
export const echo = (value: string, limit: number = echoLimit): string =>
  value.length <= limit ? value : `${value.slice(0, limit)}… (${value.length.toLocaleString("en-US")} characters)`

// The sentences @effect/cli adds to every option whatever it is; the descriptions say more.
const genericSentences = new Set([
  "A user-defined piece of text.",
  "This setting is optional.",
  "This argument is optional.",
  "This argument must be repeated at least 1 times."
])

/**
 * Help text as @effect/cli renders it, with its generic sentences removed and
 * the USAGE line of a subcommand naming the whole command
 * (`$ context-compressor compact …` instead of `$ compact …`).
 *
 * @since 0.1.0
 * @category help
 */
export const helpText = (text: string, programName: string, commandPath: ReadonlyArray<string>): string => {
  const lines = text.split("\n").filter((line) => !genericSentences.has(stripVTControlCharacters(line).trim()))
  const fixed = lines.map((line) => {
    const usage = /^\$ ([a-z][a-z-]*)(?= |$)/.exec(line)
    if (usage === null || usage[1] === programName) return line
    const at = commandPath.lastIndexOf(usage[1]!)
    return at === -1
      ? line
      : `$ ${[programName, ...commandPath.slice(0, at + 1)].join(" ")}${line.slice(usage[0].length)}`
  })
  return fixed.join("\n").replace(/\n{3,}/g, "\n\n")
}

/**
 * The words at the head of the arguments, up to the first option: the
 * subcommands asked for (`settings get`), perhaps followed by a file name.
 *
 * @since 0.1.0
 * @category help
 */
export const commandPath = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const path: Array<string> = []
  for (const arg of args) {
    if (arg.startsWith("-")) break
    path.push(arg)
  }
  return path
}

/**
 * Whether the arguments ask for help (`--help` or `-h` before a `--`).
 *
 * @since 0.1.0
 * @category help
 */
export const asksForHelp = (args: ReadonlyArray<string>): boolean => {
  const end = args.indexOf("--")
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === "--help" || arg === "-h")
}

const plainText = (
  args: ReadonlyArray<unknown>,
  strip: boolean,
  rewrite: (text: string) => string
): ReadonlyArray<unknown> =>
  args.map((arg) => (typeof arg === "string" ? rewrite(strip ? stripVTControlCharacters(arg) : arg) : arg))

/**
 * Runs a program with its manners: colour stripped from what goes to a stream
 * that is not a terminal (or with `NO_COLOR`), help text rewritten by
 * `rewriteHelp` when help was asked for, and the default logger replaced by one
 * that writes to stderr.
 *
 * @since 0.1.0
 * @category running
 */
export const withManners = (options: {
  readonly rewriteHelp?: ((text: string) => string) | undefined
}) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  const stripOut = !colorAllowed(process.stdout)
  const stripErr = !colorAllowed(process.stderr)
  const rewrite = options.rewriteHelp ?? ((text: string) => text)
  return CliCompat.withConsoleAndLogger((console): Console.Console => ({
    ...console,
    log: (...args) => console.log(...plainText(args, stripOut, rewrite)),
    error: (...args) => console.error(...plainText(args, stripErr, (text) => text))
  }), !stripErr)(self)
}

/**
 * An integer flag whose refusal names it: `--window must be an integer (got
 * 'abc')`, where @effect/cli's own `Options.integer` says only "'abc' is not
 * a integer". Digits with an optional sign; past 2^53, refused too.
 *
 * @since 0.1.0
 * @category options
 */
export const integer = (name: string): Flag<number> =>
  Flag.String(name).pipe(
    Flag.withMetavar("INTEGER"),
    Flag.check((value: string) =>
      /^[-+]?[0-9]+$/.test(value.trim()) && Number.isSafeInteger(Number(value))
        ? Effect.succeed(Number(value))
        : Effect.fail(`--${name} must be an integer (got '${echo(value, 40)}')`)
    )
  )

/**
 * The one line on stderr of a verb that runs in memory because SQLite is not
 * installed: why (the command that would install it) and what that costs.
 *
 * @since 0.1.0
 * @category messages
 */
export const memoryLine = (reason: string, folder: string): string =>
  `warning: ${reason}; until then the settings overrides, compaction states and summary cache are kept in memory for this process's life (${folder}/config.toml is read, and compacted messages are archived in ${folder}/transcripts)`

/**
 * Says {@link memoryLine} on stderr: the `onMemory` of `serve` and `proxy`.
 *
 * @since 0.1.0
 * @category messages
 */
export const announceMemory = (folder: string) => (reason: string): Effect.Effect<void> =>
  Console.error(memoryLine(reason, folder))
