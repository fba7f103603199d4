/**
 * The `serve` verb of the command line: the HTTP API (settings, compaction,
 * reduction, events) and the inspector page over the production layers of a
 * folder, on 127.0.0.1 unless told otherwise. See `docs/http.md`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import { Command, Flag } from "#compat-cli"
import * as CompatHttp from "#compat-http"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Toml from "smol-toml"
import * as Production from "../../face/layers/Production.js"
import * as SqlPg from "../../face/layers/sql/SqlPg.js"
import * as StoreDeadline from "../../face/layers/StoreDeadline.js"
import type * as Server from "../http/HttpServer.js"
import * as ServerDefaults from "../http/ServerDefaults.js"
import * as Capacity from "./Capacity.js"
import * as CliIo from "./CliIo.js"
import * as Manners from "./Manners.js"

/**
 * The port `serve` listens on when `--port` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPort = 8787

/**
 * The host `serve` binds to when `--host` is not given: this machine only.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultHost = "127.0.0.1"

const port = CliIo.portOption(defaultPort)

const host = Flag.String("host").pipe(
  Flag.withMetavar("HOST"),
  Flag.withDescription(
    `The address to bind to (default ${defaultHost}: this machine only; 0.0.0.0 for every interface, with --token).`
  ),
  Flag.withDefault(defaultHost)
)

/**
 * `--dir`: the folder of the production layers, shared by `serve` and `proxy`.
 *
 * @since 0.1.0
 * @category options
 */
export const directoryOption = Flag.String("dir").pipe(
  Flag.withMetavar("DIR"),
  Flag.withDescription(
    `The folder of cache.db, state.db, config.toml and transcripts/ (default ${Production.defaultDirectory}); with --database-url, of config.toml only.`
  ),
  Flag.withDefault(Production.defaultDirectory)
)

const token = Flag.Redacted("token").pipe(
  Flag.withMetavar("TOKEN"),
  Flag.withDescription(
    `Require Authorization: Bearer TOKEN on every API route (else ${ServerDefaults.tokenEnv}; none: no token). The page at / asks for it.`
  ),
  Flag.withFallbackConfig(Compat.configRedacted(ServerDefaults.tokenEnv)),
  Flag.optional
)

const model = Flag.String("model").pipe(
  Flag.withMetavar("ID"),
  Flag.withDescription(
    "The sessions' model when a request names none; it summarises unless the settings pin another (required with --summarizer openai)."
  ),
  Flag.optional
)

const maxBodyMb = Flag.Int("max-body-mb").pipe(
  Flag.withMetavar("MIB"),
  Flag.withDescription(
    `The largest request body accepted, in MiB (default ${
      ServerDefaults.defaultMaxBodyBytes / 1_048_576
    }); larger ones get 413.`
  ),
  Flag.withDefault(ServerDefaults.defaultMaxBodyBytes / 1_048_576)
)

const maxEventStreams = Flag.Int("max-event-streams").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    `How many event streams may be open at once (default ${ServerDefaults.defaultLimits.maxEventStreams}); past it GET /v1/events answers 503.`
  ),
  Flag.withDefault(ServerDefaults.defaultLimits.maxEventStreams)
)

const fail = (message: string) => new CliIo.CliFailure({ message })

const inUse = (cause: unknown): boolean =>
  typeof cause === "object" && cause !== null && (cause as { code?: unknown }).code === "EADDRINUSE"

/**
 * `--allowed-host NAME` (repeatable), shared by `serve` and `proxy`: a name
 * the token-less server answers to besides its address and localhost.
 *
 * @since 0.1.0
 * @category options
 */
export const allowedHostsOption = Flag.String("allowed-host").pipe(
  Flag.withMetavar("NAME"),
  Flag.withDescription(
    "A host name the server answers to besides its address, localhost and the loopback addresses, when it has no token " +
      "(repeatable). Without a token a request naming another Host gets 421, and a change from another site's page (its Origin) 403."
  ),
  Flag.repeated
)

/**
 * `--database-url URL`, shared by `serve` and `proxy`: the PostgreSQL database
 * a fleet of workers shares (else `CONTEXT_COMPRESSOR_DATABASE_URL`, else
 * `database_url` in config.toml's `[serve]` or `[proxy]`).
 *
 * @since 0.1.0
 * @category options
 */
export const databaseUrlOption = CliIo.databaseUrl.pipe(
  Flag.withDescription(
    `A PostgreSQL database (postgres://user:password@host:port/database) for the sessions' states and memory, the summary cache, ` +
      `the settings overrides and the transcript archive, shared by every worker that names it (any worker then answers any session; ` +
      `the folder keeps only config.toml). Else ${SqlPg.urlEnv}, else database_url in config.toml's [serve] or [proxy].`
  )
)

/**
 * `--store-timeout DURATION`, shared by `serve` and `proxy`: how long a call of
 * the state database (SQLite's files or PostgreSQL) may go unanswered before
 * it counts as the store's failure (`Production.Options.storeTimeout`).
 *
 * @since 0.1.0
 * @category options
 */
export const storeTimeoutOption = Flag.String("store-timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    `How long a call of the database (the sessions' states and memory, the summary cache, the archive) may go unanswered ` +
      `(default ${
        Duration.format(StoreDeadline.defaultTimeout)
      }; 500ms, 3s, 10s); past it the call fails as a stopped database's would: ` +
      `a compaction answers 500, a proxied request goes on uncompacted, and the store is not waited for again for as long.`
  ),
  Flag.optional
)

/**
 * The store's deadline of `--store-timeout`, none when not given; a value
 * that is not a duration of at most a minute is refused.
 *
 * @since 0.1.0
 * @category config
 */
export const storeTimeoutOf = (
  given: Option.Option<string>
): Effect.Effect<Duration.Duration | undefined, CliIo.CliFailure> =>
  Option.match(given, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) =>
      Option.match(Option.filter(Capacity.parseDuration(text), (duration) => Duration.toMillis(duration) <= 60_000), {
        onNone: () =>
          Effect.fail(
            new CliIo.CliFailure({
              message: `--store-timeout must be a duration such as 3s or 500ms, at most 1 minute (got ${
                JSON.stringify(text.slice(0, 100))
              })`
            })
          ),
        onSome: Effect.succeed
      })
  })

/**
 * The database of a worker: the flag (or the environment), else
 * `database_url` of the verb's table in config.toml; none: the folder's SQLite
 * files. A value that is not text is refused, naming the key.
 *
 * @since 0.1.0
 * @category config
 */
export const databaseUrlOf = (
  given: Option.Option<string>,
  configPath: string,
  table: "serve" | "proxy"
): Effect.Effect<string | undefined, CliIo.CliFailure> =>
  Option.match(given, {
    onSome: (url) => Effect.succeed(url),
    onNone: () =>
      Effect.gen(function*() {
        if (!Fs.existsSync(configPath)) return undefined
        const text = yield* Effect.try({
          try: () => Fs.readFileSync(configPath, "utf8"),
          catch: (error) => fail(`cannot read ${configPath}: ${CliIo.describeFailure(error)}`)
        })
        const parsed = yield* Effect.try({
          try: () => Toml.parse(text),
          catch: (error) =>
            fail(`${configPath}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
        })
        const value = (parsed[table] as Record<string, unknown> | undefined)?.["database_url"]
        if (value === undefined) return undefined
        if (typeof value !== "string" || value.trim() === "") {
          return yield* fail(
            `${configPath}: ${table}.database_url must be a postgres:// URL (got ${String(value).slice(0, 100)})`
          )
        }
        return value.trim()
      })
  })

const loopback = (address: string): boolean =>
  address === "localhost" || address === "::1" || address.startsWith("127.")

/**
 * The one line a server that could not start says: the port, the folder's
 * databases, the settings. `proxy` says the same.
 *
 * @since 0.1.0
 * @category errors
 */
export const startFailure = (
  error: Server.StartError | CompatHttp.ServeError,
  host: string,
  port: number
): CliIo.CliFailure => {
  switch (error._tag) {
    case "ServeError":
      return fail(
        `cannot listen on ${host}:${port}: ${
          inUse(error.cause)
            ? "the port is in use (give another --port, or 0 for any free one)"
            : CliIo.describeFailure(error.cause)
        }`
      )
    case "SettingsError":
      return fail(error.message)
    case "OpenError":
      return fail(`cannot open ${error.path}: ${error.reason}`)
    case "SqlError":
    case "MigrationError":
      return fail(`the state database: ${error.message}`)
    case "ConnectError":
    case "MissingPackageError":
      return CliIo.connectFailure(error)
    default:
      return fail(`the configuration: ${String(error)}`)
  }
}

/**
 * The `serve` verb: serves until interrupted (Ctrl-C), after printing
 * `listening on http://HOST:PORT` on stderr.
 *
 * @since 0.1.0
 * @category commands
 */
export const serveCommand = Command.make(
  "serve",
  {
    port,
    host,
    directory: directoryOption,
    token,
    allowedHosts: allowedHostsOption,
    summarizer: CliIo.summarizerOption,
    baseUrl: CliIo.baseUrlOption,
    model,
    maxBodyMb,
    maxEventStreams,
    databaseUrl: databaseUrlOption,
    storeTimeout: storeTimeoutOption,
    ...Capacity.options
  },
  (flags) =>
    Effect.gen(function*() {
      if (!Number.isInteger(flags.port) || flags.port < 0 || flags.port > 65_535) {
        return yield* fail(`--port must be an integer from 0 to 65535 (got ${flags.port})`)
      }
      if (flags.maxBodyMb < 1 || flags.maxBodyMb > 1_024) {
        return yield* fail(`--max-body-mb must be from 1 to 1024 (got ${flags.maxBodyMb})`)
      }
      const capacity = yield* Capacity.resolve(flags)
      if (flags.maxEventStreams < 1 || flags.maxEventStreams > 65_536) {
        return yield* fail(`--max-event-streams must be from 1 to 65536 (got ${flags.maxEventStreams})`)
      }
      if (flags.summarizer === "openai" && Option.isNone(flags.model)) {
        return yield* fail("--summarizer openai needs --model ID (the model the server summarises with)")
      }
      const secret = Option.getOrUndefined(Option.filter(flags.token, (value) => Redacted.value(value).trim() !== ""))
      // The server (and @effect/platform-node's HTTP server) is loaded only by this verb.
      const { layerNode } = yield* Effect.promise((): Promise<typeof Server> => import("../http/HttpServer.js"))
      const databaseUrl = yield* databaseUrlOf(
        flags.databaseUrl,
        NodePath.join(flags.directory, "config.toml"),
        "serve"
      )
      const storeTimeout = yield* storeTimeoutOf(flags.storeTimeout)
      const server = layerNode({
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        ...(storeTimeout === undefined ? {} : { storeTimeout }),
        port: flags.port,
        host: flags.host,
        directory: flags.directory,
        model: Option.getOrElse(flags.model, () => (flags.summarizer === "offline" ? "offline" : "unknown-model")),
        maxBodyBytes: flags.maxBodyMb * 1_048_576,
        ...capacity,
        maxEventStreams: flags.maxEventStreams,
        allowedHosts: flags.allowedHosts,
        onMemory: Manners.announceMemory(flags.directory),
        ...(secret === undefined ? {} : { token: secret }),
        ...(flags.summarizer === "openai" ? { summarizer: CliIo.openAiSummarizer(flags.baseUrl) } : {})
      })
      const announced = server.pipe(
        Layer.tap((context) =>
          Effect.gen(function*() {
            if (!loopback(flags.host) && secret === undefined) {
              yield* Console.error(
                `warning: serving on ${flags.host} without a token: anyone who can reach it can change the settings (give --token or ${ServerDefaults.tokenEnv})`
              )
            }
            yield* Console.error(
              `listening on ${
                CompatHttp.HttpServer.formatAddress(Context.get(context, CompatHttp.HttpServer.HttpServer).address)
              }`
            )
          })
        )
      )
      return yield* Layer.launch(announced).pipe(
        Effect.mapError((error) => startFailure(error, flags.host, flags.port))
      )
    })
).pipe(
  Command.withDescription(
    "Serve the HTTP API (GET/POST /v1/settings/compaction, POST /v1/compact, POST /v1/reduce, GET /v1/events) and the inspector page at /, " +
      "on 127.0.0.1 unless --host says otherwise, until interrupted."
  )
)
