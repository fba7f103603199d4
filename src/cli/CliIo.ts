/**
 * What the verbs of the command line share: exit codes, the errors that end
 * a verb with one line on stderr, and reading and writing files.
 *
 * @since 0.1.0
 */
import * as Options from "@effect/cli/Options"
import * as FileSystem from "@effect/platform/FileSystem"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as Production from "../../layers/Production.js"
import * as SqlPg from "../../layers/sql/SqlPg.js"
import type * as OptionalPackage from "../OptionalPackage.js"
import * as SummarizerChatCompletions from "../../layers/SummarizerChatCompletions.js"
import type * as Summarizer from "../../services/Summarizer.js"
import * as Json from "../Json.js"
import type * as Report from "../Report.js"

/**
 * The name the program is installed under, and the prefix of its error lines.
 *
 * @since 0.1.0
 * @category constants
 */
export const programName = "context-compressor"

/**
 * The exit codes of the program: `success` when the command ran (or help was
 * shown), `failure` for bad usage, an input that cannot be read or a report
 * that cannot be written.
 *
 * @since 0.1.0
 * @category constants
 */
export const ExitCode = { success: 0, failure: 2 } as const

/**
 * An exit code of the program.
 *
 * @since 0.1.0
 * @category models
 */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/**
 * The input of `reduce` could not be read (missing, a directory, no permission).
 *
 * @since 0.1.0
 * @category errors
 */
export class InputUnreadable extends Schema.TaggedError<InputUnreadable>()("InputUnreadable", {
  path: Schema.String,
  reason: Schema.String
}) {}

/**
 * The file named by `--report` could not be written.
 *
 * @since 0.1.0
 * @category errors
 */
export class ReportUnwritable extends Schema.TaggedError<ReportUnwritable>()("ReportUnwritable", {
  path: Schema.String,
  reason: Schema.String
}) {}

/**
 * The argument that stands for standard input.
 *
 * @since 0.1.0
 * @category constants
 */
export const stdinPath = "-"

const systemReasons: Record<string, string> = {
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "a component of the path is not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EROFS: "read-only file system",
  ENOSPC: "no space left on device"
}

/**
 * A platform or Node error as a short reason, without repeating the path.
 *
 * @since 0.1.0
 * @category errors
 */
export const describeFailure = (error: unknown): string => {
  const candidates = [error, typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined]
  for (const candidate of candidates) {
    const code = typeof candidate === "object" && candidate !== null ? (candidate as { code?: unknown }).code : undefined
    if (typeof code === "string" && systemReasons[code] !== undefined) return systemReasons[code]
  }
  if (typeof error === "object" && error !== null) {
    const description = (error as { description?: unknown }).description
    if (typeof description === "string") return description
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * Reads a file, or standard input for `-`.
 *
 * @since 0.1.0
 * @category files
 */
export const readInput = (path: string): Effect.Effect<string, InputUnreadable, FileSystem.FileSystem> =>
  path === stdinPath
    ? NodeStream.toString(() => process.stdin, {
      onFailure: (error) => new InputUnreadable({ path: "standard input", reason: describeFailure(error) })
    })
    : Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(path)).pipe(
      Effect.mapError((error) => new InputUnreadable({ path, reason: describeFailure(error) }))
    )

/**
 * Writes a report as indented JSON.
 *
 * @since 0.1.0
 * @category files
 */
export const writeReport = (path: string, report: Report.Report): Effect.Effect<void, ReportUnwritable, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.writeFileString(path, `${Json.stringify(report, 2)}\n`)).pipe(
    Effect.mapError((error) => new ReportUnwritable({ path, reason: describeFailure(error) }))
  )


/**
 * A verb that cannot do what it was asked (a file that is not a transcript, a
 * window too small, a setting out of range): ends the program with one line
 * naming the problem, and exit code 2. Nothing is written.
 *
 * @since 0.1.0
 * @category errors
 */
export class CliFailure extends Schema.TaggedError<CliFailure>()("CliFailure", {
  message: Schema.String
}) {}

/**
 * Writes a text file whole: under a temporary name, then renamed into place.
 *
 * @since 0.1.0
 * @category files
 */
export const writeText = (path: string, text: string): Effect.Effect<void, CliFailure, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => {
    const temporary = `${path}.${process.pid}.tmp`
    return Effect.zipRight(fs.writeFileString(temporary, text), fs.rename(temporary, path)).pipe(
      Effect.tapError(() => Effect.ignore(fs.remove(temporary))),
      Effect.mapError((error) => new CliFailure({ message: `cannot write ${path}: ${describeFailure(error)}` }))
    )
  })

/**
 * The `--database-url URL` flag of the verbs that use the database (`compact`,
 * `settings`, `cache`), else `$CONTEXT_COMPRESSOR_DATABASE_URL`: a PostgreSQL
 * database that replaces the SQLite files (`--cache`, `--state`) when given.
 *
 * @since 0.1.0
 * @category options
 */
export const databaseUrl: Options.Options<Option.Option<string>> = Options.text("database-url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription(
    `A PostgreSQL database (postgres://user:password@host:port/database) for the summary cache and the settings overrides, ` +
      `shared by every worker that names it, instead of the SQLite files (default ${SqlPg.urlEnv}).`
  ),
  Options.withFallbackConfig(Config.string(SqlPg.urlEnv)),
  Options.optional,
  Options.map(Option.filter((url) => url.trim() !== ""))
)

/**
 * The line a verb ends with when the database of `--database-url` cannot be
 * used, or its client (`@effect/sql-pg`) is not installed.
 *
 * @since 0.1.0
 * @category errors
 */
export const connectFailure = (error: SqlPg.ConnectError | OptionalPackage.MissingPackageError): CliFailure =>
  new CliFailure({ message: error._tag === "MissingPackageError" ? error.message : `cannot use the database ${error.url}: ${error.reason}` })

/**
 * `--summarizer offline|openai`, shared by the verbs that summarise.
 *
 * @since 0.1.0
 * @category options
 */
export const summarizerOption = Options.choice("summarizer", ["offline", "openai"]).pipe(
  Options.withDescription(
    "offline (default): the extractive summariser, no model. openai: an OpenAI-compatible chat-completions server " +
      "(--base-url, else CONTEXT_COMPRESSOR_OPENAI_BASE_URL, else api.openai.com; key from CONTEXT_COMPRESSOR_OPENAI_API_KEY or OPENAI_API_KEY)."
  ),
  Options.withDefault("offline" as const)
)

/**
 * `--base-url URL`, the server of `--summarizer openai`.
 *
 * @since 0.1.0
 * @category options
 */
export const baseUrlOption = Options.text("base-url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("The chat-completions server of --summarizer openai, e.g. http://127.0.0.1:8080/v1."),
  Options.optional
)

const environmentKey = (): Redacted.Redacted<string> | undefined => {
  const key = [process.env["CONTEXT_COMPRESSOR_OPENAI_API_KEY"], process.env["OPENAI_API_KEY"]].find((value) => value !== undefined && value.trim() !== "")
  return key === undefined ? undefined : Redacted.make(key)
}

/**
 * The chat-completions summariser of `--summarizer openai`: the server of
 * `--base-url`, else of the environment, the key from the environment.
 *
 * @since 0.1.0
 * @category summarisers
 */
export const openAiSummarizer = (baseUrl: Option.Option<string>): Layer.Layer<Summarizer.Summarizer> => {
  const apiKey = environmentKey()
  return SummarizerChatCompletions.layer({
    baseUrl: Option.getOrElse(baseUrl, () => process.env["CONTEXT_COMPRESSOR_OPENAI_BASE_URL"] ?? SummarizerChatCompletions.defaultBaseUrl),
    ...(apiKey === undefined ? {} : { apiKey })
  }).pipe(Layer.provide(Production.nodeHttpClient))
}
