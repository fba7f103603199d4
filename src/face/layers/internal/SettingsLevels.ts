/**
 * The levels of the production settings over their sources, as `SettingsConfig` builds them: the
 * config file (re-read when its stat changed), the environment, the code's values and the
 * overrides of a table, each read live, keeping its last good values while a source is invalid.
 * `SettingsConfig` is its face (its layers, and the overrides kept in SQL); this module needs no
 * SQL, so that it compiles for both Effects on its own.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as NodePath from "node:path"
import * as Settings from "../../services/Settings.js"
import * as Sources from "./SettingsSources.js"

/**
 * Where config.toml is read from when neither `options.path` nor
 * `CONTEXT_COMPRESSOR_CONFIG` names a file: relative to the working directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPath = ".context-compressor/config.toml"

/**
 * The environment variable naming the config file (below `options.path`, above `defaultPath`).
 *
 * @since 0.1.0
 * @category constants
 */
export const pathEnv = "CONTEXT_COMPRESSOR_CONFIG"

/**
 * Options of the layers.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The config file; default: `$CONTEXT_COMPRESSOR_CONFIG`, else `defaultPath`. */
  readonly path?: string
  /** The environment, read at every `current`; default: `process.env`. */
  readonly env?: () => Record<string, string | undefined>
  /**
   * Values given in code (`createCompactor`'s `settings`, checked there): over
   * the config file and the environment, under the persisted overrides.
   */
  readonly values?: Settings.Values
}

const keyList = Sources.keyList

const refuse = Sources.refuse

/**
 * `f` answering its last answer again for an input of the same content (its JSON text): a level read live at every
 * `current` is decoded once per content (the environment's settings, the override rows), not at every call.
 */
const lastAnswer = <I, A>(f: (input: I) => A): (input: I) => A => {
  let last: { readonly text: string; readonly answer: A } | undefined
  return (input) => {
    const text = JSON.stringify(input)
    if (last === undefined || last.text !== text) last = { text, answer: f(input) }
    return last.answer
  }
}

/**
 * `Settings.layered` over levels read live: the same settings value again while every level is the very value it
 * was (a level decodes again only when its content changed), else the levels merged anew.
 */
const layeredLive = (): (levels: ReadonlyArray<Settings.Values>) => Settings.CompactionSettings => {
  let last:
    | { readonly levels: ReadonlyArray<Settings.Values>; readonly settings: Settings.CompactionSettings }
    | undefined
  return (levels) => {
    if (
      last === undefined || last.levels.length !== levels.length || last.levels.some((level, i) => level !== levels[i])
    ) {
      last = { levels, settings: Settings.layered(levels) }
    }
    return last.settings
  }
}

/**
 * Reads one level live: `read` at every call; when it fails, the last good
 * values and one warning per distinct problem. The first read, made here,
 * must succeed.
 */
const liveLevel = Effect.fnUntraced(function*(
  read: Effect.Effect<Settings.Values, Settings.SettingsError>
) {
  const initial = yield* read
  const state = yield* Ref.make<{ readonly values: Settings.Values; readonly problem: string | undefined }>({
    values: initial,
    problem: undefined
  })
  return read.pipe(
    Effect.tap((values) => Ref.set(state, { values, problem: undefined })),
    Compat.catch((error) =>
      Effect.flatMap(
        Ref.modify(
          state,
          (last) => [[last.values, last.problem !== error.message] as const, { ...last, problem: error.message }]
        ),
        ([values, isNew]) =>
          isNew
            ? Effect.as(
              Effect.logWarning(`settings: ${error.message}; keeping the last good values until it is fixed`),
              values
            )
            : Effect.succeed(values)
      )
    )
  )
})

const configPath = (options: Options | undefined, env: () => Record<string, string | undefined>): string => {
  if (options?.path !== undefined) return options.path
  const named = env()[pathEnv]
  return named === undefined || named.trim() === "" ? defaultPath : named
}

/** A file's stat as the stamp that says it changed: its type, size, mtime and inode. */
const stampOf = (info: Compat.FileInfo): string =>
  [
    info.type,
    info.size,
    Option.getOrUndefined(Option.map(info.mtime, (date) => date.getTime())),
    Option.getOrUndefined(info.ino)
  ].join(":")

/**
 * How long after its last change a folder's mtime is trusted to say that no
 * file was made in it since: past the coarsest clock of a file system (FAT's
 * 2 seconds), a file made or moved there changes it.
 */
const folderSettledMs = 3_000

/**
 * The same for a folder whose mtime has digits below the second, the mark of a
 * file system that keeps them: its clock ticks every 10 ms at most (Linux's
 * coarse clock at 100 Hz; NTFS, APFS and ext4 keep far finer times).
 */
const fineFolderSettledMs = 100

/** Whether a folder last changed at `mtime` (ms) is settled at `now`. A whole second may be a coarse clock's. */
const settledAt = (now: number, mtime: number): boolean =>
  now - mtime > (mtime % 1000 === 0 ? folderSettledMs : fineFolderSettledMs)

/**
 * The config file as a level: re-read and re-parsed only when its stat
 * (size, mtime, inode) changed. A missing file gives no values; while its
 * folder is unchanged since the file was found missing (and settled then: see
 * {@link settledAt}), it is still missing, and only the folder is read
 * (a stat that finds nothing costs an error each time).
 */
const fileLevel = Effect.fnUntraced(function*(path: string) {
  const fs = yield* Compat.FileSystem
  const cache = yield* Ref.make<
    {
      readonly stamp: string
      readonly result: Compat.Result<Settings.Values, Settings.SettingsError>
      /** When the file was missing: its folder's stamp then, if the folder was settled. */
      readonly folder?: string | undefined
    } | undefined
  >(undefined)
  const unreadable = (error: { readonly message: string }) =>
    refuse({ reason: "unreadable", source: path, problem: `could not be read: ${error.message}` })
  const folderStamp = Effect.map(Effect.option(fs.stat(NodePath.dirname(path))), Option.getOrUndefined)
  const read = Effect.gen(function*() {
    const last = yield* Ref.get(cache)
    // The folder of a file found missing is read before the file: a file made after it changes the folder's stamp.
    let folderBefore: string | undefined
    if (last?.stamp === "missing") {
      const now = yield* Clock.currentTimeMillis
      const info = yield* folderStamp
      const settled = info !== undefined &&
        Option.getOrElse(Option.map(info.mtime, (date) => settledAt(now, date.getTime())), () => false)
      // Only a stamp taken settled is kept: a file made in the clock tick of a folder's last change leaves its mtime.
      folderBefore = settled ? stampOf(info) : undefined
      if (folderBefore !== undefined && folderBefore === last.folder) return last.result
    }
    const info = yield* fs.stat(path).pipe(
      Effect.map(Option.some),
      Effect.catchIf(Compat.isNotFound, () => Effect.succeed(Option.none<Compat.FileInfo>())),
      Effect.mapError(unreadable)
    )
    const stamp = Option.match(info, { onNone: () => "missing", onSome: stampOf })
    const folder = stamp === "missing" ? folderBefore : undefined
    const cached = yield* Ref.get(cache)
    if (cached !== undefined && cached.stamp === stamp) {
      yield* Ref.set(cache, { ...cached, folder })
      return cached.result
    }
    const result = Option.isNone(info)
      ? Compat.Result.succeed<Settings.Values>({})
      : yield* fs.readFileString(path).pipe(
        Effect.map((text): Compat.Result<Settings.Values, Settings.SettingsError> => Sources.fromToml(text, path)),
        Effect.catchIf(Compat.isNotFound, () => Effect.succeed(Compat.Result.succeed<Settings.Values>({}))),
        Compat.catch((error) => Effect.succeed(Compat.Result.fail(unreadable(error))))
      )
    yield* Ref.set(cache, { stamp, result, folder })
    return result
  }).pipe(Effect.flatMap(Compat.fromResult))
  return yield* liveLevel(read)
})

const envLevel = (env: () => Record<string, string | undefined>) => {
  // The environment's settings are its variables of the prefix: decoded again only when one of them changed.
  const decoded = lastAnswer((ours: ReadonlyArray<readonly [string, string | undefined]>) =>
    Sources.fromEnv(Object.fromEntries(ours))
  )
  return liveLevel(Effect.suspend(() => {
    const ours: Array<readonly [string, string | undefined]> = []
    const all = env()
    // The names first, the values of ours only: each value of process.env is a call into the environment.
    for (const variable of Object.keys(all)) {
      if (variable.startsWith(Settings.envPrefix)) ours.push([variable, all[variable]])
    }
    return Compat.fromResult(decoded(ours))
  }))
}

/**
 * Builds `Settings` from config.toml and the environment, over the defaults.
 * Fails when the file or the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fnUntraced(function*(options?: Options) {
  const env = options?.env ?? (() => process.env)
  const file = yield* fileLevel(configPath(options, env))
  const environment = yield* envLevel(env)
  const code = Effect.succeed(options?.values ?? {})
  const service = Settings.Settings.of({
    current: Effect.map(Effect.all([file, environment, code]), layeredLive())
  })
  return service
})

/**
 * Builds `Settings` from the environment and the values given in code, over
 * the defaults, reading no file: the settings of a compactor that keeps its
 * state in memory. Fails when the environment is invalid now.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeEnv = Effect.fnUntraced(function*(options?: Omit<Options, "path">) {
  const environment = yield* envLevel(options?.env ?? (() => process.env))
  const code = Effect.succeed(options?.values ?? {})
  return Settings.Settings.of({ current: Effect.map(Effect.all([environment, code]), layeredLive()) })
})

/**
 * Where the overrides are kept: their rows (key, value as text), and the writes of one.
 *
 * @since 0.1.0
 * @category models
 */
export interface OverridesTable<E> {
  readonly rows: Effect.Effect<ReadonlyArray<{ readonly key: string; readonly value: string }>, E>
  readonly upsert: (key: string, value: string, now: number) => Effect.Effect<void, E>
  readonly remove: (key: string) => Effect.Effect<void, E>
}

/**
 * `Settings` over config.toml, the environment, the code's values and the overrides of `table`,
 * with the `SettingsOverrides` that change them; `place` names the table in errors.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeOver = Effect.fnUntraced(
  function*<E extends { readonly message: string }>(table: OverridesTable<E>, place: string, options?: Options) {
    const env = options?.env ?? (() => process.env)
    const file = yield* fileLevel(configPath(options, env))
    const environment = yield* envLevel(env)
    const rows = table.rows.pipe(
      Effect.mapError((error) =>
        refuse({ reason: "unreadable", source: place, problem: `could not be read: ${error.message}` })
      )
    )
    const overrides = yield* liveLevel(Effect.map(rows, lastAnswer(Sources.overridesFromRows)))
    const code = Effect.succeed(options?.values ?? {})
    const current = Effect.map(Effect.all([file, environment, code, overrides]), layeredLive())
    const unwritable = (error: E) =>
      refuse({ reason: "unwritable", source: place, problem: `could not be written: ${error.message}` })
    const control = Settings.SettingsOverrides.of({
      get: Effect.map(rows, (rows) => {
        const values = Sources.overridesFromRows(rows)
        const byKey: Record<string, unknown> = {}
        for (const name of Settings.names) {
          if (values[name.field] !== undefined) byKey[name.key] = values[name.field]
        }
        return byKey as Settings.Overrides
      }),
      set: (key, value) =>
        Effect.gen(function*() {
          const [name, text] = yield* Compat.fromResult(Sources.overrideText(key, value))
          const now = yield* Clock.currentTimeMillis
          yield* Effect.mapError(table.upsert(name.key, text, now), unwritable)
          return yield* current
        }),
      unset: (key) =>
        Effect.gen(function*() {
          const name = Option.getOrUndefined(Settings.nameOf(key))
          if (name === undefined) {
            return yield* refuse({
              reason: "unknown-key",
              source: Sources.overrideSource,
              key,
              problem: "is not a setting",
              allowed: keyList
            })
          }
          yield* Effect.mapError(table.remove(name.key), unwritable)
          return yield* current
        })
    })
    return Context.make(Settings.Settings, { current }).pipe(Context.add(Settings.SettingsOverrides, control))
  }
)

/**
 * The source the overrides of {@link makeMemory} are named by in errors.
 *
 * @since 0.1.0
 * @category constants
 */
export const memorySource = "overrides in memory"

/**
 * Builds `Settings` from config.toml, the environment and overrides kept in
 * this process's memory (gone with it), with the `SettingsOverrides` that
 * change them: the settings of a folder whose SQLite file cannot be opened
 * because SQLite is not installed (`Production.layerFolderInMemory`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = Effect.fnUntraced(function*(options?: Options) {
  const table = yield* Ref.make(new Map<string, string>())
  return yield* makeOver<never>(
    {
      rows: Effect.map(Ref.get(table), (rows) => Array.from(rows, ([key, value]) => ({ key, value }))),
      upsert: (key, value) => Ref.update(table, (rows) => new Map(rows).set(key, value)),
      remove: (key) =>
        Ref.update(table, (rows) => {
          const next = new Map(rows)
          next.delete(key)
          return next
        })
    },
    memorySource,
    options
  )
})
