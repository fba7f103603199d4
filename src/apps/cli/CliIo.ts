/**
 * What the verbs of the command line share: exit codes, the errors that end
 * a verb with one line on stderr, and reading and writing files.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as CliCompat from "#compat-cli"
import { Flag } from "#compat-cli"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodeNet from "node:net"
import * as NodePath from "node:path"
import * as Production from "../../face/layers/Production.js"
import * as SqlPg from "../../face/layers/sql/SqlPg.js"
import * as SummarizerChatCompletions from "../../face/layers/SummarizerChatCompletions.js"
import * as Json from "../../face/models/Json.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"
import type * as Report from "../../face/models/Report.js"
import type * as Summarizer from "../../face/services/Summarizer.js"

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
  const candidates = [
    error,
    typeof error === "object" && error !== null ? (error as { cause?: unknown }).cause : undefined
  ]
  for (const candidate of candidates) {
    const code = typeof candidate === "object" && candidate !== null
      ? (candidate as { code?: unknown }).code
      : undefined
    if (typeof code === "string" && systemReasons[code] !== undefined) return systemReasons[code]
  }
  if (typeof error === "object" && error !== null) {
    const description = (error as { description?: unknown }).description
    if (typeof description === "string") return description
  }
  return error instanceof Error ? error.message : String(error)
}

/**
 * How many sequences of `bytes` are not UTF-8 (each read as U+FFFD).
 *
 * @since 0.1.0
 * @category files
 */
export const invalidUtf8Count = (bytes: Uint8Array, text: string): number => {
  let replaced = 0
  for (let i = text.indexOf("\ufffd"); i !== -1; i = text.indexOf("\ufffd", i + 1)) replaced++
  if (replaced === 0) return 0
  // U+FFFD written in the input itself (EF BF BD) is not a replacement.
  let written = 0
  for (let i = bytes.indexOf(0xef); i !== -1 && i + 2 < bytes.length; i = bytes.indexOf(0xef, i + 1)) {
    if (bytes[i + 1] === 0xbf && bytes[i + 2] === 0xbd) written++
  }
  return replaced - written
}

/**
 * An input's text and how many of its byte sequences were not UTF-8 (read as U+FFFD).
 *
 * @since 0.1.0
 * @category models
 */
export interface InputText {
  readonly text: string
  readonly invalidUtf8: number
}

const decodeBytes = (bytes: Uint8Array): InputText => {
  const text = new TextDecoder("utf-8").decode(bytes)
  return { text, invalidUtf8: invalidUtf8Count(bytes, text) }
}

/**
 * The line said on stderr about an input that was not all UTF-8.
 *
 * @since 0.1.0
 * @category formatting
 */
export const invalidUtf8Note = (label: string, count: number): string =>
  `${label}: ${count} byte sequence${count === 1 ? " is" : "s are"} not UTF-8 and ${
    count === 1 ? "was" : "were"
  } read as U+FFFD (the replacement character)`

/**
 * Reads a file, or standard input for `-`, as UTF-8, counting the byte
 * sequences that are not UTF-8.
 *
 * @since 0.1.0
 * @category files
 */
export const readInputChecked = (path: string): Effect.Effect<InputText, InputUnreadable, Compat.FileSystem> =>
  path === stdinPath
    ? CliCompat.readAll(
      () => process.stdin,
      (error) => new InputUnreadable({ path: "standard input", reason: describeFailure(error) })
    ).pipe(Effect.map(decodeBytes))
    : Effect.flatMap(Compat.FileSystem, (fs) =>
      fs.stat(path).pipe(
        Effect.flatMap((info) => info.type === "FIFO" ? readFifo(path) : fs.readFile(path)),
        Effect.map(decodeBytes),
        Effect.mapError((error) => new InputUnreadable({ path, reason: describeFailure(error) }))
      ))

/**
 * A named pipe read without blocking a thread of Node's pool: opened
 * non-blocking and read as a stream, it waits for a writer on the event loop.
 * (Opened the ordinary way, a pipe with no writer holds a pool thread, and the
 * process cannot end when a signal stops it.)
 */
const readFifo = (path: string): Effect.Effect<Uint8Array, unknown> =>
  Effect.flatMap(
    Effect.try(() => NodeFs.openSync(path, NodeFs.constants.O_RDONLY | NodeFs.constants.O_NONBLOCK)),
    (fd) => CliCompat.readAll(() => new NodeNet.Socket({ fd, readable: true, writable: false }), (error) => error)
  )

/**
 * Reads a file, or standard input for `-`; byte sequences that are not UTF-8
 * are read as U+FFFD and said on stderr.
 *
 * @since 0.1.0
 * @category files
 */
export const readInput = (path: string): Effect.Effect<string, InputUnreadable, Compat.FileSystem> =>
  Effect.flatMap(
    readInputChecked(path),
    ({ invalidUtf8, text }) =>
      invalidUtf8 === 0
        ? Effect.succeed(text)
        : Effect.as(
          Console.error(`warning: ${invalidUtf8Note(path === stdinPath ? "standard input" : path, invalidUtf8)}`),
          text
        )
  )

/**
 * Writes a report as indented JSON, as {@link writeText} writes a file.
 *
 * @since 0.1.0
 * @category files
 */
export const writeReport = (
  path: string,
  report: Report.Report
): Effect.Effect<void, ReportUnwritable, Compat.FileSystem> =>
  Effect.suspend(() => writeTo(path, `${Json.stringify(report, 2)}\n`)).pipe(
    Effect.mapError((error) => new ReportUnwritable({ path, reason: error.reason }))
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
 * Standard output was closed by its reader (`| head`): the program ends
 * quietly, as other Unix tools do, with the exit code it had.
 *
 * @since 0.1.0
 * @category errors
 */
export class StdoutClosed extends Schema.TaggedError<StdoutClosed>()("StdoutClosed", {}) {}

/** The first error of writing standard output in this process, once there was one. */
let stdoutFailure: NodeJS.ErrnoException | undefined

/**
 * Listens for the errors of writing standard output (the executable calls it
 * once): a closed reader (EPIPE) ends the process quietly; any other error is
 * kept for {@link printOut} to report.
 *
 * @since 0.1.0
 * @category output
 */
export const watchStdout = (): void => {
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0)
    stdoutFailure ??= error
  })
}

/** Waits until what was written to standard output is flushed, and fails if writing it did. */
const stdoutFlushed: Effect.Effect<void, CliFailure | StdoutClosed> = Compat.callback((resume) => {
  const settle = (error?: Error | null) => {
    const failure = (error ?? stdoutFailure) as NodeJS.ErrnoException | null | undefined
    if (failure === null || failure === undefined) return resume(Effect.void)
    resume(
      failure.code === "EPIPE"
        ? Effect.fail(new StdoutClosed())
        : Effect.fail(new CliFailure({ message: `cannot write standard output: ${describeFailure(failure)}` }))
    )
  }
  if (stdoutFailure !== undefined || process.stdout.destroyed) {
    return settle(stdoutFailure ?? new Error("standard output is closed"))
  }
  process.stdout.write("", settle)
})

/**
 * Prints a result on standard output (a line, through the current `Console`)
 * and waits for it to be written: a failed write (a full disk, `/dev/full`)
 * fails the verb with one line and exit code 2 before it says it succeeded.
 *
 * @since 0.1.0
 * @category output
 */
export const printOut = (text: string): Effect.Effect<void, CliFailure | StdoutClosed> =>
  Effect.andThen(Console.log(text), stdoutFlushed)

/** The temporaries `writeText` names for `path`: `<path>.<pid>.tmp`. */
const temporaryName = /^(.*)\.(\d+)\.tmp$/

/** Whether a process of this id is running (a process of another user counts as running). */
const running = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * Removes the temporaries of `path` a killed run left (`<path>.<pid>.tmp`
 * whose process is gone); never fails.
 *
 * @since 0.1.0
 * @category files
 */
export const removeStaleTemporaries = (path: string): Effect.Effect<void, never, Compat.FileSystem> =>
  Effect.flatMap(Compat.FileSystem, (fs) => {
    const directory = NodePath.dirname(path)
    const base = NodePath.basename(path)
    return fs.readDirectory(directory).pipe(
      Effect.flatMap((names) =>
        Effect.forEach(names, (name) => {
          const match = temporaryName.exec(name)
          if (match === null || match[1] !== base) return Effect.void
          const pid = Number(match[2])
          return pid === process.pid || running(pid)
            ? Effect.void
            : Effect.ignore(fs.remove(NodePath.join(directory, name)))
        }, { discard: true })
      ),
      Effect.ignore
    )
  })

/** Why a file could not be written, without its path. */
class WriteRefused extends Schema.TaggedError<WriteRefused>()("WriteRefused", { reason: Schema.String }) {}

const refused = (reason: string) => new WriteRefused({ reason })

/** A promise of Node's `fs` as an effect; its rejection as the reason it gives. */
const attempt = <A>(run: () => Promise<A>): Effect.Effect<A, WriteRefused> =>
  Effect.tryPromise({ try: run, catch: (error) => refused(describeFailure(error)) })

/** What `path` names without following a link: its stat, or `undefined` when nothing is there. */
const lstatOf = (path: string): Effect.Effect<NodeFs.Stats | undefined, WriteRefused> =>
  Effect.tryPromise({
    try: () =>
      NodeFs.promises.lstat(path).catch((error: NodeJS.ErrnoException) =>
        error.code === "ENOENT" ? undefined : Promise.reject(error)
      ),
    catch: (error) => refused(describeFailure(error))
  })

/** Writes all of `text` to an open file and closes it, also when the write fails or is interrupted. */
const writeAndClose = (handle: NodeFs.promises.FileHandle, text: string): Effect.Effect<void, WriteRefused> =>
  attempt(() => handle.writeFile(text, "utf8")).pipe(
    Effect.ensuring(Effect.promise(() => handle.close().catch(() => undefined)))
  )

/** How long to wait between two tries to open a named pipe that has no reader yet. */
const fifoRetry = Duration.millis(50)

const noReader = refused("the named pipe has no reader")

/**
 * Writes into a named pipe in place. Opened non-blocking (so that no thread of
 * Node's pool waits for a reader, and a signal can still end the process), it
 * is tried again until a reader comes, then written as a stream.
 */
const writeFifo = (path: string, text: string): Effect.Effect<void, WriteRefused> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(NodeFs.openSync(path, NodeFs.constants.O_WRONLY | NodeFs.constants.O_NONBLOCK))
    } catch (error) {
      // ENXIO: no process has the pipe open for reading yet.
      return Effect.fail((error as NodeJS.ErrnoException).code === "ENXIO" ? noReader : refused(describeFailure(error)))
    }
  }).pipe(
    Effect.retry({ while: (error) => error === noReader, schedule: Schedule.spaced(fifoRetry) }),
    Effect.flatMap((fd) =>
      Compat.callback<void, WriteRefused>((resume) => {
        const pipe = new NodeNet.Socket({ fd, readable: false, writable: true })
        pipe.on("error", (error) => resume(Effect.fail(refused(describeFailure(error)))))
        pipe.end(text, () => resume(Effect.void))
        return Effect.sync(() => pipe.destroy())
      })
    )
  )

/**
 * Replaces a regular file (or makes a new one) whole: the text goes to
 * `<path>.<pid>.tmp`, created exclusively and never through a link (`O_EXCL`,
 * `O_NOFOLLOW`: something already at that name is refused, not written
 * through), then renamed into place. The temporary is removed when anything
 * fails or the run is stopped.
 */
const replaceWhole = (path: string, text: string): Effect.Effect<void, WriteRefused, Compat.FileSystem> => {
  const temporary = `${path}.${process.pid}.tmp`
  const { O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY } = NodeFs.constants
  return removeStaleTemporaries(path).pipe(
    Effect.andThen(
      Effect.tryPromise({
        try: () => NodeFs.promises.open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o666),
        catch: (error) => error as NodeJS.ErrnoException
      }).pipe(
        Effect.mapError((error) =>
          refused(
            error.code === "EEXIST"
              ? `its temporary file ${NodePath.basename(temporary)} is already there and was not made by this run`
              : describeFailure(error)
          )
        )
      )
    ),
    Effect.flatMap((handle) =>
      writeAndClose(handle, text).pipe(
        Effect.andThen(attempt(() => NodeFs.promises.rename(temporary, path))),
        Effect.onExit((exit) =>
          exit._tag === "Success"
            ? Effect.void
            : Effect.promise(() => NodeFs.promises.rm(temporary, { force: true }).catch(() => undefined))
        )
      )
    )
  )
}

const kindOf = (stat: NodeFs.Stats): string =>
  stat.isSocket() ? "a socket" : stat.isBlockDevice() ? "a block device" : "not a regular file"

/**
 * Writes `text` to `path` by what is there: a regular file or nothing is
 * replaced whole ({@link replaceWhole}); a character device (`/dev/null`,
 * `/dev/full`) or a named pipe is written in place, never replaced; a
 * symbolic link, a directory, a socket or a block device is refused.
 */
const writeTo = (path: string, text: string): Effect.Effect<void, WriteRefused, Compat.FileSystem> =>
  Effect.flatMap(lstatOf(path), (stat) => {
    if (stat === undefined || stat.isFile()) return replaceWhole(path, text)
    if (stat.isSymbolicLink()) {
      return Effect.fail(
        refused("it is a symbolic link, which is neither written through nor replaced: name the file it points to")
      )
    }
    if (stat.isDirectory()) return Effect.fail(refused(systemReasons["EISDIR"]!))
    if (stat.isFIFO()) return writeFifo(path, text)
    if (stat.isCharacterDevice()) {
      return Effect.flatMap(
        attempt(() => NodeFs.promises.open(path, NodeFs.constants.O_WRONLY | NodeFs.constants.O_NOFOLLOW)),
        (handle) => writeAndClose(handle, text)
      )
    }
    return Effect.fail(refused(`it is ${kindOf(stat)}, which is not replaced`))
  })

/**
 * Writes a text file whole: a regular file under a temporary name created
 * exclusively and never through a link, then renamed into place (the
 * temporaries of the same file a killed run left are removed first); a
 * device or a named pipe written in place; a symbolic link, a directory or a
 * socket refused with one line.
 *
 * @since 0.1.0
 * @category files
 */
export const writeText = (path: string, text: string): Effect.Effect<void, CliFailure, Compat.FileSystem> =>
  writeTo(path, text).pipe(
    Effect.mapError((error) => new CliFailure({ message: `cannot write ${path}: ${error.reason}` }))
  )

/**
 * The `--database-url URL` flag of the verbs that use the database (`compact`,
 * `settings`, `cache`), else `$CONTEXT_COMPRESSOR_DATABASE_URL`: a PostgreSQL
 * database that replaces the SQLite files (`--cache`, `--state`) when given.
 *
 * @since 0.1.0
 * @category options
 */
export const databaseUrl: Flag<Option.Option<string>> = Flag.String("database-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    `A PostgreSQL database (postgres://user:password@host:port/database) for the summary cache and the settings overrides, ` +
      `shared by every worker that names it, instead of the SQLite files (default ${SqlPg.urlEnv}).`
  ),
  Flag.withFallbackConfig(Compat.configString(SqlPg.urlEnv)),
  Flag.optional,
  Flag.map(Option.filter((url) => url.trim() !== ""))
)

/**
 * The line a verb ends with when the database of `--database-url` cannot be
 * used, or its client (`@effect/sql-pg`) is not installed.
 *
 * @since 0.1.0
 * @category errors
 */
export const connectFailure = (error: SqlPg.ConnectError | OptionalPackage.MissingPackageError): CliFailure =>
  new CliFailure({
    message: error._tag === "MissingPackageError"
      ? error.message
      : `cannot use the database ${error.url}: ${error.reason}`
  })

/**
 * `--port PORT` of a server verb (`serve`, `proxy`), with its default.
 *
 * @since 0.1.0
 * @category options
 */
export const portOption = (defaultPort: number): Flag<number> =>
  Flag.Int("port").pipe(
    Flag.withMetavar("PORT"),
    Flag.withDescription(`The port to listen on (default ${defaultPort}; 0 for any free port, printed on stderr).`),
    Flag.withDefault(defaultPort)
  )

/**
 * `--summarizer offline|openai`, shared by the verbs that summarise.
 *
 * @since 0.1.0
 * @category options
 */
export const summarizerOption = Flag.Literals("summarizer", ["offline", "openai"]).pipe(
  Flag.withDescription(
    "offline (default): the extractive summariser, no model. openai: an OpenAI-compatible chat-completions server " +
      "(--base-url, else CONTEXT_COMPRESSOR_OPENAI_BASE_URL, else api.openai.com; key from CONTEXT_COMPRESSOR_OPENAI_API_KEY or OPENAI_API_KEY)."
  ),
  Flag.withDefault("offline" as const)
)

/**
 * `--base-url URL`, the server of `--summarizer openai`.
 *
 * @since 0.1.0
 * @category options
 */
export const baseUrlOption = Flag.String("base-url").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription("The chat-completions server of --summarizer openai, e.g. http://127.0.0.1:8080/v1."),
  Flag.optional
)

/**
 * The API key to send to `baseUrl`, from the environment: the rule of
 * `SummarizerChatCompletions.apiKeyFor` (a key goes only to the server it was
 * configured for, compared by origin) over `process.env`. A key withheld from
 * another server is named in `withheld`, to be said on stderr.
 *
 * @since 0.1.0
 * @category summarisers
 */
export const apiKeyFor = (
  baseUrl: string,
  env: Readonly<Record<string, string | undefined>> = process.env
): SummarizerChatCompletions.ApiKeyChoice => SummarizerChatCompletions.apiKeyFor(baseUrl, env)

/**
 * The timeout variable of the chat-completions summariser, shared by the CLI and `serve`.
 *
 * @since 0.1.0
 * @category summarisers
 */
export const timeoutEnv = "CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT"

/**
 * The chat-completions summariser of `--summarizer openai`: the server of
 * `--base-url`, else of the environment; the key from the environment, sent
 * only to the server it was configured for (see {@link apiKeyFor}); each call's
 * timeout from `CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT` (a duration such as `30
 * seconds`; an invalid one is said on stderr and the default used).
 *
 * @since 0.1.0
 * @category summarisers
 */
export const openAiSummarizer = (baseUrl: Option.Option<string>): Layer.Layer<Summarizer.Summarizer> =>
  Compat.unwrapLayer(
    Effect.gen(function*() {
      const url = Option.getOrElse(
        baseUrl,
        () => process.env["CONTEXT_COMPRESSOR_OPENAI_BASE_URL"] ?? SummarizerChatCompletions.defaultBaseUrl
      )
      const { apiKey, withheld } = apiKeyFor(url)
      if (withheld !== undefined) yield* Effect.logWarning(withheld)
      const timeout = yield* Compat.result(Config.option(Compat.configDuration(timeoutEnv)))
      const given = Compat.matchResult(timeout, {
        onSuccess: (value) => Option.getOrUndefined(value),
        onFailure: () => undefined
      })
      if (Compat.matchResult(timeout, { onSuccess: () => false, onFailure: () => true })) {
        yield* Effect.logWarning(
          `${timeoutEnv} is not a duration (such as "30 seconds"): the default of ${
            Duration.format(SummarizerChatCompletions.defaultTimeout)
          } is used`
        )
      }
      return SummarizerChatCompletions.layer({
        baseUrl: url,
        ...(apiKey === undefined ? {} : { apiKey }),
        ...(given === undefined ? {} : { timeout: given })
      }).pipe(Layer.provide(Production.nodeHttpClient))
    })
  )
