/**
 * The `compact` and `replay` verbs of the command line: compact transcript
 * files in the format they come in, on embedded defaults (the SQLite cache at
 * `.context-compressor/cache.db`, or the PostgreSQL database of
 * `--database-url`; the offline summariser, the o200k_base tokenizer), and replay recorded summariser requests against a summariser,
 * scored by the quality gate.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import { Argument, Command, Flag } from "#compat-cli"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as NodeFs from "node:fs"
import * as NodePath from "node:path"
import * as Adapter from "../../face/adapters/Adapter.js"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Installed from "../../face/adapters/Installed.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Overflow from "../../face/engine/Overflow.js"
import * as QualityGate from "../../face/engine/QualityGate.js"
import * as SummaryPrompt from "../../face/engine/SummaryPrompt.js"
import * as AttentionTerminal from "../../face/layers/AttentionTerminal.js"
import * as AttentionUnattended from "../../face/layers/AttentionUnattended.js"
import * as CompactionStoreMemory from "../../face/layers/CompactionStoreMemory.js"
import * as Production from "../../face/layers/Production.js"
import * as SettingsConfig from "../../face/layers/SettingsConfig.js"
import * as SqlPg from "../../face/layers/sql/SqlPg.js"
import * as SummarizerOffline from "../../face/layers/SummarizerOffline.js"
import * as SummaryCacheSql from "../../face/layers/SummaryCacheSql.js"
import * as TokenizerBpe from "../../face/layers/TokenizerBpe.js"
import * as TranscriptArchiveFile from "../../face/layers/TranscriptArchiveFile.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as Settings from "../../face/services/Settings.js"
import * as Summarizer from "../../face/services/Summarizer.js"
import * as SummaryCache from "../../face/services/SummaryCache.js"
import * as CliIo from "./CliIo.js"
import * as CompactReport from "./CompactReport.js"
import * as Manners from "./Manners.js"

/**
 * The context window assumed when `--window` is not given, in tokens.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultWindow = 128_000

// --- options shared by compact and replay ----------------------------------------

const model = Flag.String("model").pipe(
  Flag.withMetavar("ID"),
  Flag.withDescription(
    "The session's model, which summarises unless the settings pin another (required with --summarizer openai)."
  ),
  Flag.optional
)

const cachePath = Flag.String("cache").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The SQLite summary cache (default ${Production.pathsOf().cache}); an unusable file only turns the cache off, with a warning. Not used with --database-url.`
  ),
  Flag.withDefault(Production.pathsOf().cache)
)

const statePath = Flag.String("state").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The SQLite file of persisted settings overrides (default ${Production.pathsOf().state}); its folder also keeps the archive of the compacted messages (transcripts/), which recall reads. The file is not used with --database-url; the folder is.`
  ),
  Flag.withDefault(Production.pathsOf().state)
)

const configPath = Flag.String("config").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    `The config.toml to read settings from (default ${Production.pathsOf().config}, or CONTEXT_COMPRESSOR_CONFIG).`
  ),
  Flag.optional
)

const record = Flag.String("record").pipe(
  Flag.withMetavar("DIR"),
  Flag.withDescription("Write every summariser request to DIR as JSON, for `replay`."),
  Flag.optional
)

interface SummarizerChoice {
  readonly summarizer: "offline" | "openai"
  readonly baseUrl: Option.Option<string>
  readonly model: Option.Option<string>
}

/** The summariser of the flags. */
const summarizerLayer = (choice: SummarizerChoice): Layer.Layer<Summarizer.Summarizer> =>
  choice.summarizer === "offline" ? SummarizerOffline.layer : CliIo.openAiSummarizer(choice.baseUrl)

/** The encoded form of a recorded request, as `replay` reads it back. */
const RecordedRequest = Compat.fromJsonString(Summarizer.SummaryRequest)

/** A summariser that writes each request to `directory` before passing it on. */
const recording = (directory: string) =>
  Layer.effect(
    Summarizer.Summarizer,
    Effect.gen(function*() {
      const inner = yield* Summarizer.Summarizer
      const fs = yield* Compat.FileSystem
      yield* fs.makeDirectory(directory, { recursive: true }).pipe(
        Effect.mapError((error) =>
          new CliIo.CliFailure({ message: `cannot create --record ${directory}: ${CliIo.describeFailure(error)}` })
        )
      )
      return {
        // The summariser recorded is still the one that makes the summaries: its cache key is the same.
        identity: inner.identity,
        summarize: (request: Summarizer.SummaryRequest) =>
          Effect.gen(function*() {
            const name = `${SummaryCache.digest(SummaryCache.keyOf(request, inner.identity)).slice(0, 16)}.json`
            const text = yield* Effect.orDie(Compat.encodeEffect(RecordedRequest)(request))
            yield* Effect.ignore(
              Effect.provideService(CliIo.writeText(NodePath.join(directory, name), text), Compat.FileSystem, fs)
            )
            return yield* inner.summarize(request)
          })
      }
    })
  )

// --- compact -------------------------------------------------------------------

const input = Argument.String("FILE|DIR|-").pipe(
  Argument.withDescription(
    "A transcript file (JSON or JSON Lines), a directory of them (*.json, *.jsonl), or - for standard input."
  )
)

const format = Flag.Literals("format", ["auto", ...Adapter.Format.literals]).pipe(
  Flag.withDescription("The transcript's format; auto (default) detects it."),
  Flag.withDefault("auto" as const)
)

const positiveInteger = (flag: string, low: number, high: number) => (value: number) =>
  Number.isInteger(value) && value >= low && value <= high
    ? Effect.succeed(value)
    : Effect.fail(
      new CliIo.CliFailure({
        message: `${flag} must be an integer from ${low.toLocaleString("en-US")} to ${
          high.toLocaleString("en-US")
        } (got ${value})`
      })
    )

const window = Manners.integer("window").pipe(
  Flag.withMetavar("TOKENS"),
  Flag.withDescription(`The model's context window in tokens (default ${defaultWindow.toLocaleString("en-US")}).`),
  Flag.withDefault(defaultWindow)
)

const triggerPct = Manners.integer("trigger-pct").pipe(
  Flag.withMetavar("P"),
  Flag.withDescription(
    `Compact when the transcript passes P % of the window (${
      Settings.ranges.triggerPct.join("–")
    }; default from the settings, 80).`
  ),
  Flag.optional
)

const summaryRequest = Flag.Literals("summary-request", Settings.choices.summaryRequest).pipe(
  Flag.withDescription(
    "How the summariser is asked: delimited (the span as a delimited transcript) or shared-prefix (the view as last sent, then the instruction, " +
      "so the provider's prompt cache serves it; default from the settings, delimited)."
  ),
  Flag.optional
)

const capTokens = Manners.integer("cap").pipe(
  Flag.withMetavar("TOKENS"),
  Flag.withDescription(
    `The absolute trigger cap in tokens (${
      Settings.ranges.capTokens.map((n) => n.toLocaleString("en-US")).join("–")
    }; default from the settings, 250,000).`
  ),
  Flag.optional
)

const out = Flag.String("out").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "Write the compacted transcript to PATH instead of standard output (a directory for a directory input): a file is replaced whole, " +
      "a device or FIFO written in place, a symbolic link refused."
  ),
  Flag.optional
)

const instructions = Flag.String("instructions").pipe(
  Flag.withMetavar("TEXT"),
  Flag.withDescription(
    "Compact now, even under the trigger, with the summary asked to focus on TEXT (as /compact <focus>); the offline summariser shows TEXT in the block."
  ),
  Flag.optional
)

const report = Flag.String("report").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "Write the structured report (tokens before and after, boundary, cache hit, gate, fallback, what the rules kept and dropped, the view's ladder steps and repairs) to PATH as JSON."
  ),
  Flag.optional
)

const attended = Flag.Boolean("attended").pipe(
  Flag.withDescription(
    "When the summariser fails twice, ask on the terminal: Retry, or Trim the oldest turns (Trim after 5 minutes without an answer). " +
      "Needs standard input to be a terminal (not the transcript)."
  )
)

const overflow = Flag.Boolean("overflow").pipe(
  Flag.withDescription(
    "The main model refused this transcript as too long: compact it whatever the count says, and fail instead of giving back a view that is not smaller."
  )
)

const overflowError = Flag.String("overflow-error").pipe(
  Flag.withMetavar("PATH"),
  Flag.withDescription(
    "The main model's error body (OpenAI, Anthropic, Gemini, vLLM, llama.cpp, Ollama): implies --overflow, and the window and prompt tokens it names are believed over the count."
  ),
  Flag.optional
)

const reportedTokens = Manners.integer("reported-tokens").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "The context tokens the provider reported for the session's last call: compared with the trigger instead of the tokenizer's count (one file only)."
  ),
  Flag.optional
)

/**
 * Why `--attended` cannot ask here, or `undefined` when it can: standard
 * input must be a terminal and must not carry the transcript.
 *
 * @since 0.1.0
 * @category validation
 */
export const attendedRefusal = (input: string, stdinIsTerminal: boolean): string | undefined =>
  input === CliIo.stdinPath
    ? "--attended asks on the terminal, but standard input carries the transcript: give the transcript as a file"
    : stdinIsTerminal
    ? undefined
    : "--attended asks on the terminal, but standard input is not one: run it in a terminal, or drop --attended to trim unattended"

interface CompactFlags extends SummarizerChoice {
  readonly input: string
  readonly format: Adapter.Format | "auto"
  readonly window: number
  readonly triggerPct: Option.Option<number>
  readonly capTokens: Option.Option<number>
  readonly summaryRequest: Option.Option<Settings.CompactionSettings["summaryRequest"]>
  readonly cache: string
  readonly state: string
  readonly databaseUrl: Option.Option<string>
  readonly config: Option.Option<string>
  readonly out: Option.Option<string>
  readonly report: Option.Option<string>
  readonly record: Option.Option<string>
  readonly instructions: Option.Option<string>
  readonly attended: boolean
  readonly overflow: boolean
  readonly overflowError: Option.Option<string>
  readonly reportedTokens: Option.Option<number>
}

/** The main model's overflow of the flags: none, or an overflow with what its error names. */
type OverflowFlag = { readonly _tag: "None" } | {
  readonly _tag: "Overflow"
  readonly overflow: Overflow.ContextOverflow | undefined
}

/** The PostgreSQL database of `--database-url`, if given: one pool for the cache and the settings. */
const databaseOf = (flags: CompactFlags) => Option.map(flags.databaseUrl, (url) => SqlPg.layer({ url }))

/** The settings of the files and the environment, with the flags over them. */
const settingsLayer = (
  flags: CompactFlags,
  database: Option.Option<Layer.Layer<Compat.SqlClient, SqlPg.ConnectError | OptionalPackage.MissingPackageError>>
) => {
  const client = Option.getOrElse(
    database,
    (): Layer.Layer<
      Compat.SqlClient,
      Compat.SqliteOpenError | SqlPg.ConnectError | OptionalPackage.MissingPackageError
    > => Compat.layerScoped(Compat.SqlClient, Compat.openSqliteReading({ filename: flags.state }))
  )
  const configOptions = Option.match(flags.config, { onNone: () => ({}), onSome: (path) => ({ path }) })
  // compact only reads overrides: a state file that does not exist is not created (no overrides).
  const base = Option.isNone(database) && !NodeFs.existsSync(flags.state)
    ? SettingsConfig.layerConfig(configOptions).pipe(Layer.provide(Compat.nodeFileSystem))
    : SettingsConfig.layerSql(configOptions).pipe(Layer.provide(Layer.merge(client, Compat.nodeFileSystem)))
  const fromFlags = {
    ...Option.match(flags.triggerPct, { onNone: () => ({}), onSome: (triggerPct) => ({ triggerPct }) }),
    ...Option.match(flags.capTokens, { onNone: () => ({}), onSome: (capTokens) => ({ capTokens }) }),
    ...Option.match(flags.summaryRequest, { onNone: () => ({}), onSome: (summaryRequest) => ({ summaryRequest }) })
  }
  return Layer.effect(
    Settings.Settings,
    Effect.map(Settings.Settings, (settings) => ({
      current: Effect.map(settings.current, (current) => new Settings.CompactionSettings({ ...current, ...fromFlags }))
    }))
  ).pipe(Layer.provide(base))
}

/**
 * The engine of `compact` on `Production.layerEngine`, over the parts its flags choose: the summary cache of
 * `--cache` (or the database), the settings of the files with the flags over them, the compaction states in
 * memory (`compact` keeps no state between runs), the archive of the compacted messages in the state folder
 * (`archiveFolder`: the block lists their recall handles, which `recall` reads back), the summariser of the
 * flags (recorded with `--record`), and a terminal's attention with `--attended`.
 */
const engineLayer = (flags: CompactFlags) => {
  const summarizer = Option.match(flags.record, {
    onNone: () => summarizerLayer(flags),
    onSome: (directory) =>
      recording(directory).pipe(Layer.provide(Layer.merge(summarizerLayer(flags), Compat.nodeFileSystem)))
  })
  const database = databaseOf(flags)
  const cache = Option.match(database, {
    onNone: () => SummaryCacheSql.layerSqlite({ filename: flags.cache }),
    onSome: (client) => SummaryCacheSql.layer().pipe(Layer.provide(client))
  })
  return Production.layerEngine({
    engine: { policies: builtInPolicies },
    services: Layer.mergeAll(
      summarizer,
      cache,
      CompactionStoreMemory.layer,
      settingsLayer(flags, database),
      TokenizerBpe.layer,
      flags.attended ? AttentionTerminal.layerProcess() : AttentionUnattended.layer,
      archiveLayer(NodePath.dirname(flags.state))
    )
  })
}

/**
 * The transcript archive of a state folder: `<folder>/transcripts/`, files named relative to the folder, as
 * `serve` and `proxy` keep theirs. `compact` writes it and `recall` reads it.
 *
 * @since 0.1.0
 * @category layers
 */
export const archiveLayer = (folder: string) =>
  TranscriptArchiveFile.layer({ directory: NodePath.join(folder, "transcripts"), relativeTo: folder }).pipe(
    Layer.provide(Compat.nodeFileSystem)
  )

const fail = (message: string) => new CliIo.CliFailure({ message })

/** Compacts one transcript text; fails with a line naming `label` and the problem. */
const compactText = (label: string, text: string, flags: CompactFlags, overflowFlag: OverflowFlag = { _tag: "None" }) =>
  Effect.gen(function*() {
    const compaction = yield* CompactDocument.compactDocument({
      document: { _tag: "Source", document: text, format: flags.format, adapters: yield* Installed.adapters },
      session: {
        sessionId: label,
        model: Option.getOrElse(flags.model, () => (flags.summarizer === "offline" ? "offline" : "unknown-model")),
        contextWindow: flags.window,
        reportedContextTokens: Option.getOrUndefined(flags.reportedTokens)
      },
      cause: overflowFlag._tag === "Overflow" ? overflowFlag : Option.match(flags.instructions, {
        onNone: () => CompactDocument.trigger,
        onSome: (instructions) => ({ _tag: "Manual", instructions })
      })
    }).pipe(Effect.mapError((error) => fail(`${label}: ${error.message}`)))
    const { checkpoint, read } = compaction
    const fileReport = new CompactReport.FileReport({
      file: label,
      format: read.decoded.format,
      messages: read.decoded.transcript.length,
      ...Compactor.reportFields(checkpoint)
    })
    return { fileReport, output: CompactDocument.text(compaction) }
  })

const transcriptFile = (name: string): boolean => name.endsWith(".json") || name.endsWith(".jsonl")

const compactDirectory = (directory: string, flags: CompactFlags, overflowFlag: OverflowFlag) =>
  Effect.gen(function*() {
    const fs = yield* Compat.FileSystem
    const outDir = yield* Option.match(flags.out, {
      onNone: () => Effect.fail(fail(`${directory} is a directory: give --out DIR for the compacted files`)),
      onSome: Effect.succeed
    })
    const names = (yield* fs.readDirectory(directory).pipe(Effect.mapError((error) =>
      fail(`cannot list ${directory}: ${CliIo.describeFailure(error)}`)
    )))
      .filter(transcriptFile)
      .sort()
    if (names.length === 0) {
      return yield* fail(`${directory} holds no transcript files (*.json, *.jsonl)`)
    }
    yield* fs.makeDirectory(outDir, { recursive: true }).pipe(
      Effect.mapError((error) =>
        fail(`cannot create ${outDir}: ${CliIo.describeFailure(error)}`)
      )
    )
    const interactive = process.stderr.isTTY === true
    const reports: Array<CompactReport.FileReport> = []
    const failures: Array<string> = []
    for (const [index, name] of names.entries()) {
      const path = NodePath.join(directory, name)
      if (interactive) process.stderr.write(`\r${CompactReport.progress(index, names.length, name)}\u001b[K`)
      const written = yield* Effect.matchEffect(
        Effect.flatMap(
          CliIo.readInput(path).pipe(Effect.mapError((error) => fail(`cannot read ${error.path}: ${error.reason}`))),
          (text) => compactText(path, text, flags, overflowFlag)
        ),
        {
          onFailure: (error) =>
            Effect.gen(function*() {
              failures.push(error.message)
              if (!interactive) {
                yield* Console.error(`${CompactReport.progress(index + 1, names.length, name)}: ${error.message}`)
              }
              return false
            }),
          onSuccess: (compacted) =>
            Effect.map(CliIo.writeText(NodePath.join(outDir, name), compacted.output), () => {
              reports.push(compacted.fileReport)
              return true
            })
        }
      )
      if (!written) continue
      if (!interactive) yield* Console.error(CompactReport.progress(index + 1, names.length, name))
    }
    if (interactive) process.stderr.write(`\r${CompactReport.progress(names.length, names.length, "done")}\u001b[K\n`)
    yield* Console.error(CompactReport.directoryTable(reports))
    for (const failure of failures) yield* Console.error(`${CliIo.programName}: ${failure}`)
    if (Option.isSome(flags.report)) {
      yield* CliIo.writeText(flags.report.value, JSON.stringify(CompactReport.encodeReports(reports), null, 2) + "\n")
    }
    yield* Console.error(
      `compacted ${reports.length} of ${names.length} files into ${outDir}${
        failures.length === 0 ? "" : `; ${failures.length} failed`
      }`
    )
    if (failures.length > 0) {
      return yield* fail(`${failures.length} of ${names.length} files could not be compacted`)
    }
  })

/**
 * The `compact` verb.
 *
 * @since 0.1.0
 * @category commands
 */
export const compactCommand = Command.make(
  "compact",
  {
    input,
    format,
    window,
    triggerPct,
    capTokens,
    summaryRequest,
    summarizer: CliIo.summarizerOption,
    baseUrl: CliIo.baseUrlOption,
    model,
    cache: cachePath,
    state: statePath,
    databaseUrl: CliIo.databaseUrl,
    config: configPath,
    out,
    report,
    record,
    instructions,
    attended,
    overflow,
    overflowError,
    reportedTokens
  },
  (flags) =>
    Effect.gen(function*() {
      yield* positiveInteger("--window", 1_000, 100_000_000)(flags.window)
      if (Option.isSome(flags.triggerPct)) {
        yield* positiveInteger("--trigger-pct", ...Settings.ranges.triggerPct)(flags.triggerPct.value)
      }
      if (Option.isSome(flags.capTokens)) {
        yield* positiveInteger("--cap", ...Settings.ranges.capTokens)(flags.capTokens.value)
      }
      if (flags.summarizer === "openai" && Option.isNone(flags.model)) {
        return yield* fail("--summarizer openai needs --model ID (the model the server summarises with)")
      }
      if (Option.isSome(flags.reportedTokens)) {
        yield* positiveInteger("--reported-tokens", 0, 100_000_000)(flags.reportedTokens.value)
      }
      if (flags.attended) {
        const refusal = attendedRefusal(flags.input, process.stdin.isTTY === true)
        if (refusal !== undefined) return yield* fail(refusal)
      }
      const overflowFlag: OverflowFlag = yield* Option.match(flags.overflowError, {
        onNone: () =>
          Effect.succeed<OverflowFlag>(flags.overflow ? { _tag: "Overflow", overflow: undefined } : { _tag: "None" }),
        onSome: (path) =>
          Effect.gen(function*() {
            const body = yield* CliIo.readInput(path).pipe(
              Effect.mapError((error) => fail(`cannot read --overflow-error ${error.path}: ${error.reason}`))
            )
            const classified = Option.getOrUndefined(Overflow.classify(body))
            if (classified === undefined) {
              yield* Console.error(
                `${CliIo.programName}: --overflow-error ${path} is not a context-overflow error the classifier knows; compacting as after an overflow that names no limit`
              )
            }
            return { _tag: "Overflow", overflow: classified } as const
          })
      })
      const fs = yield* Compat.FileSystem
      const isDirectory = flags.input !== CliIo.stdinPath &&
        (yield* Effect.orElseSucceed(
          Effect.map(fs.stat(flags.input), (info) => info.type === "Directory"),
          () => false
        ))
      if (isDirectory && Option.isSome(flags.reportedTokens)) {
        return yield* fail("--reported-tokens is the count of one session: give one transcript file, not a directory")
      }
      const run = Effect.gen(function*() {
        if (isDirectory) return yield* compactDirectory(flags.input, flags, overflowFlag)
        const label = flags.input === CliIo.stdinPath ? "standard input" : flags.input
        const text = yield* CliIo.readInput(flags.input).pipe(
          Effect.mapError((error) => fail(`cannot read ${error.path}: ${error.reason}`))
        )
        const { fileReport, output } = yield* compactText(label, text, flags, overflowFlag)
        // The output first, the report only once it is written: a failure leaves no report behind.
        yield* Option.match(flags.out, {
          onNone: () => CliIo.printOut(output.replace(/\n$/, "")),
          onSome: (path) => CliIo.writeText(path, output)
        })
        if (Option.isSome(flags.report)) {
          yield* CliIo.writeText(
            flags.report.value,
            JSON.stringify(Schema.encodeSync(CompactReport.FileReport)(fileReport), null, 2) + "\n"
          ).pipe(
            // A report that cannot be written takes the output with it: a failure leaves nothing behind.
            Effect.tapError(() =>
              Option.match(flags.out, { onNone: () => Effect.void, onSome: (path) => Effect.ignore(fs.remove(path)) })
            )
          )
        }
        yield* Console.error(CompactReport.summaryLine(fileReport))
      })
      yield* run.pipe(
        Effect.provide(engineLayer(flags)),
        Effect.catchTags({
          SettingsError: (error) => Effect.fail(fail(error.message)),
          OpenError: (error) => Effect.fail(fail(`cannot open ${error.path}: ${error.reason}`)),
          ConnectError: (error) => Effect.fail(CliIo.connectFailure(error)),
          MissingPackageError: (error) => Effect.fail(CliIo.connectFailure(error)),
          SqlError: (error) => Effect.fail(fail(`the settings database: ${error.message}`)),
          MigrationError: (error) => Effect.fail(fail(`the settings database: ${error.message}`))
        })
      )
    })
).pipe(
  Command.withDescription(
    "Compact a transcript (OpenAI chat, Anthropic messages, @effect/ai Prompt or AI SDK messages; JSON or JSON Lines) when it passes the trigger, " +
      "printing it in its own format with the older span replaced by one compacted block, and a summary line on stderr."
  )
)

// --- replay ----------------------------------------------------------------------

const minUsable = Flag.Int("min-usable").pipe(
  Flag.withMetavar("N"),
  Flag.withDescription(
    "Exit 2 when fewer than N replies are usable (default 1: exit 2 when none is; 0 never fails on the score)."
  ),
  Flag.withDefault(1)
)

const recorded = Argument.Directory("DIR").pipe(
  Argument.withDescription("A directory of requests recorded by `compact --record DIR`.")
)

/**
 * The `replay` verb: every recorded request sent to a summariser, each reply
 * scored by the quality gate; prints `usable N/M` and each refusal's reason.
 *
 * @since 0.1.0
 * @category commands
 */
export const replayCommand = Command.make(
  "replay",
  { directory: recorded, summarizer: CliIo.summarizerOption, baseUrl: CliIo.baseUrlOption, model, minUsable },
  (flags) =>
    Effect.gen(function*() {
      const fs = yield* Compat.FileSystem
      const names = (yield* fs.readDirectory(flags.directory).pipe(Effect.mapError((error) =>
        fail(`cannot list ${flags.directory}: ${CliIo.describeFailure(error)}`)
      )))
        .filter((name) =>
          name.endsWith(".json")
        )
        .sort()
      if (names.length === 0) return yield* fail(`${flags.directory} holds no recorded requests (*.json)`)
      const summarizer = yield* Effect.provide(Summarizer.Summarizer, summarizerLayer(flags))
      let usable = 0
      for (const name of names) {
        const path = NodePath.join(flags.directory, name)
        const text = yield* CliIo.readInput(path).pipe(
          Effect.mapError((error) => fail(`cannot read ${error.path}: ${error.reason}`))
        )
        const request = yield* Compat.decodeEffect(RecordedRequest)(text).pipe(
          Effect.mapError(() => fail(`${path} is not a recorded summariser request`))
        )
        const asked = Option.match(flags.model, {
          onNone: () => request,
          onSome: (model) => new Summarizer.SummaryRequest({ ...request, model })
        })
        // Why the reply is not usable: the summariser's failure or the quality gate's refusal; none when it is.
        const refusal = yield* Effect.match(summarizer.summarize(asked), {
          onFailure: (error): string | undefined => `summariser ${error.reason}: ${error.message}`,
          onSuccess: (summary) =>
            Compat.matchResult(QualityGate.check(SummaryPrompt.restoreOpening(summary), { agentic: request.agentic }), {
              onSuccess: (): string | undefined => undefined,
              onFailure: (refused) => `${refused.reason}: ${refused.detail}`
            })
        })
        if (refusal === undefined) usable++
        else yield* CliIo.printOut(`refused ${name}: ${refusal}`)
      }
      yield* CliIo.printOut(`usable ${usable}/${names.length}`)
      if (usable < Math.min(flags.minUsable, names.length)) {
        return yield* fail(`usable ${usable}/${names.length} is under --min-usable ${flags.minUsable}`)
      }
    })
).pipe(
  Command.withDescription(
    "Send recorded summariser requests to a summariser and score each reply with the quality gate: prints usable N/M and each refusal's reason."
  )
)
