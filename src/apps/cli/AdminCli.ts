/**
 * The `settings`, `cache` and `archive` verbs of the command line: read and
 * change the compaction settings (persisted overrides in the state database),
 * look at or prune the summary cache, in SQLite files or in the PostgreSQL
 * database of `--database-url`, and look at or prune the transcript archive of
 * that database.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import { Argument, Command, Flag } from "#compat-cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Production from "../../face/layers/Production.js"
import * as SettingsConfig from "../../face/layers/SettingsConfig.js"
import * as SqlPg from "../../face/layers/sql/SqlPg.js"
import * as SummaryCacheSql from "../../face/layers/SummaryCacheSql.js"
import * as TranscriptArchiveSql from "../../face/layers/TranscriptArchiveSql.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"
import * as Settings from "../../face/services/Settings.js"
import type * as TranscriptArchive from "../../face/services/TranscriptArchive.js"
import * as CliIo from "./CliIo.js"
import * as Manners from "./Manners.js"

const statePath = Flag.String("state").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The SQLite file of persisted settings overrides (default ${Production.pathsOf().state}). Not used with --database-url.`
  ),
  Flag.withDefault(Production.pathsOf().state)
)

const configPath = Flag.String("config").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The config.toml to read (default ${Production.pathsOf().config}, or CONTEXT_COMPRESSOR_CONFIG).`
  ),
  Flag.optional
)

const fail = (message: string) => new CliIo.CliFailure({ message })

interface DatabaseFlags {
  readonly state: string
  readonly databaseUrl: Option.Option<string>
}

/** Where the overrides are persisted, as messages name it: the SQLite file, or the database URL without its password. */
const overridesPlace = (flags: DatabaseFlags): string =>
  Option.match(flags.databaseUrl, { onNone: () => flags.state, onSome: SqlPg.redact })

/**
 * The settings and their overrides over the state database, errors as one line. A verb that only reads
 * (`get`) reads a state file it may not write. Without SQLite installed (and no --database-url),
 * `settings get` reads config.toml and the environment, saying so in one line on stderr; `set` and
 * `unset`, which could keep nothing, fail naming what to install.
 */
const withSettings = <A>(
  flags: DatabaseFlags & { readonly config: Option.Option<string> },
  self: Effect.Effect<
    A,
    CliIo.CliFailure | CliIo.StdoutClosed | Settings.SettingsError,
    Settings.Settings | Settings.SettingsOverrides
  >,
  access: "read" | "write" = "write"
): Effect.Effect<A, CliIo.CliFailure | CliIo.StdoutClosed> =>
  Effect.flatMap(Option.isSome(flags.databaseUrl) ? Effect.succeed(undefined) : Compat.sqliteUnavailable, (missing) => {
    if (missing === undefined) return withStoredSettings(flags, self, access)
    if (access === "write") {
      return Effect.fail(
        fail(
          `cannot persist an override in ${flags.state}: ${missing} (or set it in config.toml or its CONTEXT_COMPRESSOR_ variable)`
        )
      )
    }
    return Console.error(
      `warning: ${missing}; the settings are read from config.toml and the environment, with no persisted overrides`
    ).pipe(
      Effect.andThen(self),
      Effect.provide(
        SettingsConfig.layerMemory(Option.match(flags.config, { onNone: () => ({}), onSome: (path) => ({ path }) }))
          .pipe(Layer.provide(Compat.nodeFileSystem))
      ),
      Effect.mapError((error) => (error._tag === "SettingsError" ? fail(error.message) : error))
    )
  })

const withStoredSettings = <A>(
  flags: DatabaseFlags & { readonly config: Option.Option<string> },
  self: Effect.Effect<
    A,
    CliIo.CliFailure | CliIo.StdoutClosed | Settings.SettingsError,
    Settings.Settings | Settings.SettingsOverrides
  >,
  access: "read" | "write"
): Effect.Effect<A, CliIo.CliFailure | CliIo.StdoutClosed> => {
  const open = access === "read" ? Compat.openSqliteReading : Compat.openSqlite
  const client = Option.match(flags.databaseUrl, {
    onNone: (): Layer.Layer<
      Compat.SqlClient,
      Compat.SqliteOpenError | SqlPg.ConnectError | OptionalPackage.MissingPackageError
    > => Compat.layerScoped(Compat.SqlClient, open({ filename: flags.state })),
    onSome: (url) => SqlPg.layer({ url })
  })
  return self.pipe(
    Effect.provide(
      SettingsConfig.layerSql(Option.match(flags.config, { onNone: () => ({}), onSome: (path) => ({ path }) })).pipe(
        Layer.provide(Layer.merge(client, Compat.nodeFileSystem))
      )
    ),
    Effect.mapError((error) => {
      switch (error._tag) {
        case "CliFailure":
        case "StdoutClosed":
          return error
        case "SettingsError":
          return fail(error.message)
        case "OpenError":
          return fail(`cannot open ${error.path}: ${error.reason}`)
        case "ConnectError":
        case "MissingPackageError":
          return CliIo.connectFailure(error)
        default:
          return fail(`${overridesPlace(flags)}: ${error.message}`)
      }
    })
  )
}

const valueText = (value: unknown): string => (typeof value === "string" ? JSON.stringify(value) : String(value))

/** Where a value comes from when it is not the default: a persisted override, else the environment variable that sets it. */
const sourceNote = (name: Settings.Name, overrides: Settings.Overrides): string => {
  if ((overrides as Record<string, unknown>)[name.key] !== undefined) return "  # persisted override"
  const fromEnv = process.env[name.env]
  return fromEnv !== undefined && fromEnv.trim() !== "" ? `  # from ${name.env}` : ""
}

/** One setting as a TOML line, or a comment when it is not set. */
const settingLine = (name: Settings.Name, value: unknown, note: string): string =>
  value === undefined
    ? `# ${name.key} is not set: the session's own model${note === "" ? "" : ` (${note.replace(/^\s*#\s*/, "")})`}`
    : `${name.key} = ${valueText(value)}${note}`

/** The effective settings as TOML lines, those from an override or the environment marked. */
const settingsLines = (settings: Settings.CompactionSettings, overrides: Settings.Overrides): ReadonlyArray<string> =>
  Settings.names.map((name) => settingLine(name, settings[name.field], sourceNote(name, overrides)))

const key = Argument.String("KEY").pipe(
  Argument.withDescription(`A setting: ${Settings.names.map((name) => name.key).join(", ")}.`)
)

const getCommand = Command.make("get", {
  key: Argument.optional(key),
  state: statePath,
  databaseUrl: CliIo.databaseUrl,
  config: configPath
}, (flags) =>
  withSettings(
    flags,
    Effect.gen(function*() {
      const settings = yield* (yield* Settings.Settings).current
      const overrides = yield* (yield* Settings.SettingsOverrides).get
      const lines = settingsLines(settings, overrides)
      if (Option.isNone(flags.key)) return yield* CliIo.printOut(["[compaction]", ...lines].join("\n"))
      const name = Option.getOrUndefined(Settings.nameOf(flags.key.value))
      if (name === undefined) {
        return yield* fail(
          `unknown setting ${flags.key.value}: one of ${Settings.names.map((each) => each.key).join(", ")}`
        )
      }
      yield* CliIo.printOut(lines[Settings.names.indexOf(name)]!)
    }),
    "read"
  )).pipe(
    Command.withDescription(
      "Print the effective compaction settings (defaults < config.toml < environment < persisted overrides), or one of them."
    )
  )

const setCommand = Command.make(
  "set",
  { key, value: Argument.String("VALUE"), state: statePath, databaseUrl: CliIo.databaseUrl, config: configPath },
  (flags) =>
    withSettings(
      flags,
      Effect.gen(function*() {
        const settings = yield* (yield* Settings.SettingsOverrides).set(flags.key, flags.value)
        const name = Option.getOrThrow(Settings.nameOf(flags.key))
        const stored = settings[name.field]
        const clamped = Settings.isNumeric(name.field) && Number(flags.value.replace(/_/g, "")) !== stored
          ? ` (clamped from ${flags.value} into ${Settings.allowed(name.field)})`
          : ""
        yield* CliIo.printOut(`${name.key} = ${valueText(stored)}  # persisted in ${overridesPlace(flags)}${clamped}`)
          .pipe(
            Effect.catchTag("CliFailure", (failure) =>
              fail(
                `${name.key} = ${valueText(stored)} is persisted in ${overridesPlace(flags)}, but ${failure.message}`
              ))
          )
      })
    )
).pipe(
  Command.withDescription(
    "Persist an override of one setting (numbers are clamped into their range); running sessions see it at their next checkpoint."
  )
)

const unsetCommand = Command.make("unset", {
  key,
  state: statePath,
  databaseUrl: CliIo.databaseUrl,
  config: configPath
}, (flags) =>
  withSettings(
    flags,
    Effect.gen(function*() {
      const settings = yield* (yield* Settings.SettingsOverrides).unset(flags.key)
      const name = Option.getOrThrow(Settings.nameOf(flags.key))
      const fromEnv = process.env[name.env]
      yield* CliIo.printOut(
        settingLine(
          name,
          settings[name.field],
          `  # no override${fromEnv !== undefined && fromEnv.trim() !== "" ? `; from ${name.env}` : ""}`
        )
      ).pipe(
        Effect.catchTag("CliFailure", (failure) =>
          fail(`the override of ${name.key} is removed from ${overridesPlace(flags)}, but ${failure.message}`))
      )
    })
  )).pipe(Command.withDescription("Remove the persisted override of one setting."))

/**
 * The `settings` verb: `get [KEY]`, `set KEY VALUE`, `unset KEY`.
 *
 * @since 0.1.0
 * @category commands
 */
export const settingsCommand = Command.make("settings").pipe(
  Command.withDescription("Read and change the compaction settings."),
  Command.withSubcommands([getCommand, setCommand, unsetCommand])
)

const cachePath = Flag.String("cache").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The SQLite summary cache (default ${Production.pathsOf().cache}). Not used with --database-url.`
  ),
  Flag.withDefault(Production.pathsOf().cache)
)

interface CacheFlags {
  readonly cache: string
  readonly databaseUrl: Option.Option<string>
}

/** The cache, as messages name it: the SQLite file, or the database URL without its password. */
const cachePlace = (flags: CacheFlags): string =>
  Option.match(flags.databaseUrl, { onNone: () => flags.cache, onSome: SqlPg.redact })

/** The cache of the flags: the SQLite file, or the PostgreSQL database (a connection failure ends the verb). */
const withCache = <A, E>(
  flags: CacheFlags,
  options: SummaryCacheSql.Options,
  self: Effect.Effect<A, E, SummaryCacheSql.SqlCache>
): Effect.Effect<A, E | CliIo.CliFailure> =>
  Option.match(flags.databaseUrl, {
    onNone: () => Effect.provide(self, SummaryCacheSql.layerSqlite({ filename: flags.cache, ...options })),
    onSome: (url) =>
      Effect.provide(
        self,
        SummaryCacheSql.layer(options).pipe(
          Layer.provide(SqlPg.layer({ url }).pipe(Compat.layerMapError(CliIo.connectFailure)))
        )
      )
  })

const summaries = (count: number): string => `${count.toLocaleString("en-US")} ${count === 1 ? "summary" : "summaries"}`

const degradedOrFail = (place: string, stats: SummaryCacheSql.Stats) =>
  Option.match(stats.degraded, {
    onNone: () => Effect.void,
    onSome: (reason) => Effect.fail(fail(`the cache ${place} cannot be used: ${reason}`))
  })

const statsCommand = Command.make("stats", { cache: cachePath, databaseUrl: CliIo.databaseUrl }, (flags) =>
  withCache(
    flags,
    {},
    Effect.gen(function*() {
      const stats = yield* (yield* SummaryCacheSql.SqlCache).stats
      yield* degradedOrFail(cachePlace(flags), stats)
      yield* CliIo.printOut(
        `${cachePlace(flags)}: ${summaries(stats.entries)}, ${stats.bytes.toLocaleString("en-US")} bytes`
      )
    })
  )).pipe(Command.withDescription("Print how many summaries the cache holds and their size."))

const maxAgeDays = Manners.integer("max-age-days").pipe(
  Flag.withDescription(
    `Remove summaries unused for more than N days (default ${SummaryCacheSql.defaultMaxAgeMs / 86_400_000}).`
  ),
  Flag.optional
)

const maxMb = Manners.integer("max-mb").pipe(
  Flag.withDescription(
    `Then remove the least recently used until the cache holds at most N MiB (default ${
      SummaryCacheSql.defaultMaxBytes / 1_048_576
    }).`
  ),
  Flag.optional
)

const pruneCommand = Command.make(
  "prune",
  { cache: cachePath, databaseUrl: CliIo.databaseUrl, maxAgeDays, maxMb },
  (flags) =>
    Effect.gen(function*() {
      const days = Option.getOrUndefined(flags.maxAgeDays)
      const mb = Option.getOrUndefined(flags.maxMb)
      if ((days !== undefined && days < 0) || (mb !== undefined && mb < 0)) {
        return yield* fail("--max-age-days and --max-mb must not be negative")
      }
      yield* withCache(
        flags,
        {
          ...(days === undefined ? {} : { maxAgeMs: days * 86_400_000 }),
          ...(mb === undefined ? {} : { maxBytes: mb * 1_048_576 })
        },
        Effect.gen(function*() {
          const cache = yield* SummaryCacheSql.SqlCache
          yield* degradedOrFail(cachePlace(flags), yield* cache.stats)
          const { removed } = yield* cache.prune
          const stats = yield* cache.stats
          yield* CliIo.printOut(
            `${cachePlace(flags)}: removed ${summaries(removed)}; ${stats.entries} left, ${
              stats.bytes.toLocaleString("en-US")
            } bytes`
          )
        })
      )
    })
).pipe(Command.withDescription("Remove summaries past their age, then the least recently used past the size limit."))

/**
 * The `cache` verb: `stats`, `prune`.
 *
 * @since 0.1.0
 * @category commands
 */
export const cacheCommand = Command.make("cache").pipe(
  Command.withDescription("Look at or prune the summary cache."),
  Command.withSubcommands([statsCommand, pruneCommand])
)

/** The archive of `--database-url` (a missing URL, a connection failure or a failed statement ends the verb in one line). */
const withArchive = <A>(
  flags: { readonly databaseUrl: Option.Option<string> },
  options: TranscriptArchiveSql.Options,
  self: Effect.Effect<
    A,
    CliIo.CliFailure | CliIo.StdoutClosed | TranscriptArchive.ArchiveError,
    TranscriptArchiveSql.SqlArchive
  >
): Effect.Effect<A, CliIo.CliFailure | CliIo.StdoutClosed> =>
  Option.match(flags.databaseUrl, {
    onNone: () =>
      Effect.fail(
        fail(
          `the archive verbs need --database-url (or ${SqlPg.urlEnv}): a folder's archive is its transcripts/ files, pruned by removing them`
        )
      ),
    onSome: (url) =>
      self.pipe(
        Effect.catchTag(
          "ArchiveError",
          (error) => Effect.fail(fail(`the archive of ${SqlPg.redact(url)}: ${error.reason}`))
        ),
        Effect.provide(
          TranscriptArchiveSql.layer({ ...options, pruneEveryMs: Infinity }).pipe(
            Layer.provide(SqlPg.layer({ url }).pipe(Compat.layerMapError(CliIo.connectFailure)))
          )
        )
      )
  })

const count = (n: number, one: string, many: string): string => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`

const describeArchive = (stats: TranscriptArchiveSql.Stats): string =>
  `${count(stats.messages, "message", "messages")} in ${count(stats.entries, "entry", "entries")} of ${
    count(stats.sessions, "session", "sessions")
  }, ${stats.bytes.toLocaleString("en-US")} bytes`

const archiveStatsCommand = Command.make(
  "stats",
  { databaseUrl: CliIo.databaseUrl },
  (flags) =>
    withArchive(
      flags,
      {},
      Effect.gen(function*() {
        const stats = yield* (yield* TranscriptArchiveSql.SqlArchive).stats
        yield* CliIo.printOut(`${SqlPg.redact(Option.getOrThrow(flags.databaseUrl))}: ${describeArchive(stats)}`)
      })
    )
).pipe(
  Command.withDescription(
    "Print how many archived messages, entries and sessions the database's transcript archive holds, and their size."
  )
)

const archiveMaxAgeDays = Flag.Int("max-age-days").pipe(
  Flag.withDescription(
    `Remove entries archived more than N days ago (default ${TranscriptArchiveSql.defaultMaxAgeMs / 86_400_000}).`
  ),
  Flag.optional
)

const archiveMaxMb = Flag.Int("max-mb").pipe(
  Flag.withDescription(
    `Then remove the oldest entries until the archive holds at most N MiB (default ${
      TranscriptArchiveSql.defaultMaxBytes / 1_048_576
    }).`
  ),
  Flag.optional
)

const archivePruneCommand = Command.make("prune", {
  databaseUrl: CliIo.databaseUrl,
  maxAgeDays: archiveMaxAgeDays,
  maxMb: archiveMaxMb
}, (flags) =>
  Effect.gen(function*() {
    const days = Option.getOrUndefined(flags.maxAgeDays)
    const mb = Option.getOrUndefined(flags.maxMb)
    if ((days !== undefined && days < 0) || (mb !== undefined && mb < 0)) {
      return yield* fail("--max-age-days and --max-mb must not be negative")
    }
    yield* withArchive(
      flags,
      {
        ...(days === undefined ? {} : { maxAgeMs: days * 86_400_000 }),
        ...(mb === undefined ? {} : { maxBytes: mb * 1_048_576 })
      },
      Effect.gen(function*() {
        const archive = yield* TranscriptArchiveSql.SqlArchive
        const removed = yield* archive.prune
        yield* CliIo.printOut(
          `${SqlPg.redact(Option.getOrThrow(flags.databaseUrl))}: removed ${
            count(removed.entries, "entry", "entries")
          } (${count(removed.messages, "message", "messages")}); ${describeArchive(yield* archive.stats)} left`
        )
      })
    )
  })).pipe(
    Command.withDescription(
      "Remove archived entries past their age, then the oldest past the size limit; their recall handles stop resolving."
    )
  )

/**
 * The `archive` verb: `stats`, `prune`, on the transcript archive of a
 * `--database-url` database (the archive of `proxy` and `serve` on a fleet).
 *
 * @since 0.1.0
 * @category commands
 */
export const archiveCommand = Command.make("archive").pipe(
  Command.withDescription(
    "Look at or prune the transcript archive in the database of --database-url (what recall handles resolve from)."
  ),
  Command.withSubcommands([archiveStatsCommand, archivePruneCommand])
)
