/**
 * The `proxy` verb of the command line: an OpenAI-compatible and Anthropic
 * endpoint in front of a model server that compacts every chat request on its
 * way (see `src/apps/http/Proxy.ts` and `docs/proxy.md`).
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
import * as ServerDefaults from "../http/ServerDefaults.js"
import * as Capacity from "./Capacity.js"
import * as CliIo from "./CliIo.js"
import * as Manners from "./Manners.js"
import * as ServeCli from "./ServeCli.js"

/**
 * The port `proxy` listens on when `--port` is not given (`serve`'s is 8787).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPort = 8788

/**
 * The environment variable of the proxy's token, when `--token` is not given.
 *
 * @since 0.1.0
 * @category constants
 */
export const tokenEnv = "CONTEXT_COMPRESSOR_PROXY_TOKEN"

const upstream = Flag.String("upstream").pipe(
  Flag.withMetavar("URL"),
  Flag.withDescription(
    "The model server to forward to: its origin and any path prefix (https://api.openai.com, https://api.anthropic.com, http://127.0.0.1:8000 for vLLM, http://127.0.0.1:11434 for Ollama)."
  )
)

const port = CliIo.portOption(defaultPort)

const host = Flag.String("host").pipe(
  Flag.withMetavar("HOST"),
  Flag.withDescription("The address to bind to (default 127.0.0.1: this machine only)."),
  Flag.withDefault("127.0.0.1")
)

const window = Flag.Int("window").pipe(
  Flag.withMetavar("TOKENS"),
  Flag.withDescription(
    `The context window of models not in config.toml's [proxy.windows] table, unless a request sends ${ServerDefaults.windowHeader} (default ${ServerDefaults.defaultWindow}).`
  ),
  Flag.optional
)

const token = Flag.Redacted("token").pipe(
  Flag.withMetavar("TOKEN"),
  Flag.withDescription(
    `Require the header ${ServerDefaults.tokenHeader}: TOKEN on every request (else ${tokenEnv}; none: no token). Authorization and x-api-key are the upstream's.`
  ),
  Flag.withFallbackConfig(Compat.configRedacted(tokenEnv)),
  Flag.optional
)

const adminPort = Flag.Int("admin-port").pipe(
  Flag.withMetavar("PORT"),
  Flag.withDescription(
    "Also serve serve's API and inspector page on this port, over the proxy's engine: its events and page show the proxy's sessions."
  ),
  Flag.optional
)

const upstreamTimeout = Flag.String("upstream-timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "The longest the upstream may stay silent, before its response head and between two chunks of its body " +
      "(300s, 5m, 90 seconds; default 300 s, or upstream_timeout in config.toml's [proxy]). Past it before the head the client gets 504; " +
      "mid-stream the client's connection is aborted."
  ),
  Flag.optional
)

const connectTimeout = Flag.String("connect-timeout").pipe(
  Flag.withMetavar("DURATION"),
  Flag.withDescription(
    "The longest a connection to the upstream may take to open (default 10 s, or connect_timeout in config.toml's [proxy]); past it the client gets 502."
  ),
  Flag.optional
)

const model = Flag.String("model").pipe(
  Flag.withMetavar("ID"),
  Flag.withDescription(
    "The model that summarises with --summarizer openai (else each request's own model, unless the settings pin one)."
  ),
  Flag.optional
)

const recall = Flag.Boolean("recall").pipe(
  Flag.withDescription(
    "Serve context_recall: a compacted request gets the tool, and the proxy answers its calls from the archive itself (up to 3 rounds a request; or recall = true in config.toml's [proxy])."
  )
)

const nativeCompaction = Flag.Literals("native-compaction", ["auto", "emulate", "pass"]).pipe(
  Flag.withDescription(
    "What a request asking the provider to compact gets: on /v1/messages, context_management (compact_20260112, " +
      "clear_tool_uses_20250919); on /v1/responses, context_management compaction, a final compaction_trigger item, and " +
      "POST /v1/responses/compact. pass forwards it; emulate applies it with the engine and answers with compaction blocks " +
      "or items; auto (the default, or native_compaction in config.toml's [proxy]) passes it to api.anthropic.com and " +
      "api.openai.com and emulates it for every other upstream."
  ),
  Flag.optional
)

const fail = (message: string) => new CliIo.CliFailure({ message })

/**
 * The `[proxy.windows]` table of a config.toml (`"gpt-4.1" = 1047576`): context
 * windows by model id. A missing file or table is none; a value that is not a
 * positive integer is refused, naming the key.
 *
 * @since 0.1.0
 * @category config
 */
export const readWindows = (path: string): Effect.Effect<Record<string, number>, CliIo.CliFailure> =>
  Effect.gen(function*() {
    if (!Fs.existsSync(path)) return {}
    const text = yield* Effect.try({
      try: () => Fs.readFileSync(path, "utf8"),
      catch: (error) => fail(`cannot read ${path}: ${CliIo.describeFailure(error)}`)
    })
    const parsed = yield* Effect.try({
      try: () => Toml.parse(text),
      catch: (error) => fail(`${path}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
    })
    const table = (parsed["proxy"] as Record<string, unknown> | undefined)?.["windows"]
    if (table === undefined) return {}
    if (typeof table !== "object" || table === null || Array.isArray(table)) {
      return yield* fail(`${path}: [proxy.windows] must be a table of model = tokens`)
    }
    const windows: Record<string, number> = {}
    for (const [id, value] of Object.entries(table)) {
      const tokens = typeof value === "bigint" ? Number(value) : value
      if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 1_000) {
        return yield* fail(
          `${path}: proxy.windows."${id}" must be a whole number of tokens of at least 1000 (got ${String(value)})`
        )
      }
      windows[id] = tokens
    }
    return windows
  })

/**
 * A duration of the command line or of config.toml (`Capacity.parseDuration`,
 * which `serve` reads too): a number of seconds, or a number and a unit.
 *
 * @since 0.1.0
 * @category config
 */
export const parseDuration: (text: string | number) => Option.Option<Duration.Duration> = Capacity.parseDuration

/**
 * The `[proxy]` table of a config.toml: `upstream_timeout` and
 * `connect_timeout` (durations, see {@link parseDuration}), `recall` (a
 * boolean: serve `context_recall`, as `--recall`), `native_compaction`
 * (`auto`, `emulate` or `pass`, as `--native-compaction`), the capacity
 * (`max_compactions`, `max_queue`, `queue_timeout`, `max_connections`,
 * `head_timeout`, as the flags of `Capacity`) and the
 * `[proxy.windows]` table (see {@link readWindows}). A missing file or table
 * gives none of them; a value that is not a duration is refused, naming the key.
 *
 * @since 0.1.0
 * @category config
 */
export const readProxyConfig = (path: string): Effect.Effect<{
  readonly windows: Record<string, number>
  readonly upstreamTimeout?: Duration.Duration
  readonly connectTimeout?: Duration.Duration
  readonly recall?: boolean
  readonly nativeCompaction?: "auto" | "emulate" | "pass"
  readonly capacity?: Capacity.Capacity
}, CliIo.CliFailure> =>
  Effect.gen(function*() {
    const windows = yield* readWindows(path)
    if (!Fs.existsSync(path)) return { windows }
    const text = yield* Effect.try({
      try: () => Fs.readFileSync(path, "utf8"),
      catch: (error) => fail(`cannot read ${path}: ${CliIo.describeFailure(error)}`)
    })
    const parsed = yield* Effect.try({
      try: () => Toml.parse(text),
      catch: (error) => fail(`${path}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`)
    })
    const table = parsed["proxy"] as Record<string, unknown> | undefined
    const duration = (key: string) => {
      const value = table?.[key]
      if (value === undefined) return Effect.succeed(undefined)
      const given = typeof value === "bigint" ? Number(value) : value
      const decoded = typeof given === "string" || typeof given === "number" ? parseDuration(given) : Option.none()
      return Option.match(decoded, {
        onNone: () => fail(`${path}: proxy.${key} must be a duration such as "300s" or "5m" (got ${String(value)})`),
        onSome: Effect.succeed
      })
    }
    const upstreamTimeout = yield* duration("upstream_timeout")
    const connectTimeout = yield* duration("connect_timeout")
    const recall = table?.["recall"]
    if (recall !== undefined && typeof recall !== "boolean") {
      return yield* fail(`${path}: proxy.recall must be true or false (got ${String(recall)})`)
    }
    const native = table?.["native_compaction"]
    if (native !== undefined && native !== "auto" && native !== "emulate" && native !== "pass") {
      return yield* fail(`${path}: proxy.native_compaction must be "auto", "emulate" or "pass" (got ${String(native)})`)
    }
    const none = {
      maxCompactions: Option.none(),
      maxQueue: Option.none(),
      queueTimeout: Option.none(),
      maxConnections: Option.none(),
      headTimeout: Option.none()
    }
    const capacity = yield* Capacity.resolve(none, { path, values: table })
    return {
      windows,
      capacity,
      ...(recall === undefined ? {} : { recall }),
      ...(native === undefined ? {} : { nativeCompaction: native }),
      ...(upstreamTimeout === undefined ? {} : { upstreamTimeout }),
      ...(connectTimeout === undefined ? {} : { connectTimeout })
    }
  })

const validPort = (value: number) => Number.isInteger(value) && value >= 0 && value <= 65_535

/**
 * The `proxy` verb: proxies until interrupted (Ctrl-C), after printing
 * `proxying http://HOST:PORT -> UPSTREAM` on stderr.
 *
 * @since 0.1.0
 * @category commands
 */
export const proxyCommand = Command.make(
  "proxy",
  {
    upstream,
    port,
    host,
    window,
    directory: ServeCli.directoryOption,
    token,
    adminPort,
    allowedHosts: ServeCli.allowedHostsOption,
    upstreamTimeout,
    connectTimeout,
    summarizer: CliIo.summarizerOption,
    baseUrl: CliIo.baseUrlOption,
    model,
    recall,
    nativeCompaction,
    databaseUrl: ServeCli.databaseUrlOption,
    storeTimeout: ServeCli.storeTimeoutOption,
    ...Capacity.options
  },
  (flags) =>
    Effect.gen(function*() {
      if (!/^https?:\/\/[^/]/i.test(flags.upstream)) {
        return yield* fail(
          `--upstream must be an http:// or https:// URL (got ${JSON.stringify(flags.upstream.slice(0, 200))})`
        )
      }
      if (!validPort(flags.port)) return yield* fail(`--port must be an integer from 0 to 65535 (got ${flags.port})`)
      const admin = Option.getOrUndefined(flags.adminPort)
      if (admin !== undefined && !validPort(admin)) {
        return yield* fail(`--admin-port must be an integer from 0 to 65535 (got ${admin})`)
      }
      const contextWindow = Option.getOrUndefined(flags.window)
      if (contextWindow !== undefined && contextWindow < 1_000) {
        return yield* fail(`--window must be at least 1000 tokens (got ${contextWindow})`)
      }
      const config = yield* readProxyConfig(NodePath.join(flags.directory, "config.toml"))
      const durationFlag = (name: string, given: Option.Option<string>) =>
        Option.match(given, {
          onNone: () => Effect.succeed(undefined),
          onSome: (text) =>
            Option.match(parseDuration(text), {
              onNone: () =>
                fail(`--${name} must be a duration such as 300s or 5m (got ${JSON.stringify(text.slice(0, 100))})`),
              onSome: Effect.succeed
            })
        })
      const upstreamTimeout = (yield* durationFlag("upstream-timeout", flags.upstreamTimeout)) ?? config.upstreamTimeout
      const connectTimeout = (yield* durationFlag("connect-timeout", flags.connectTimeout)) ?? config.connectTimeout
      const secret = Option.getOrUndefined(Option.filter(flags.token, (value) => Redacted.value(value).trim() !== ""))
      const capacity = { ...config.capacity, ...(yield* Capacity.resolve(flags)) }
      // The server is loaded when the verb runs, not when the program starts.
      const Proxy = yield* Effect.promise((): Promise<typeof import("../http/Proxy.js")> => import("../http/Proxy.js"))
      const databaseUrl = yield* ServeCli.databaseUrlOf(
        flags.databaseUrl,
        NodePath.join(flags.directory, "config.toml"),
        "proxy"
      )
      const storeTimeout = yield* ServeCli.storeTimeoutOf(flags.storeTimeout)
      const server = Proxy.layerNode({
        ...(databaseUrl === undefined ? {} : { databaseUrl }),
        ...(storeTimeout === undefined ? {} : { storeTimeout }),
        upstream: flags.upstream,
        port: flags.port,
        host: flags.host,
        directory: flags.directory,
        windows: config.windows,
        allowedHosts: flags.allowedHosts,
        ...capacity,
        onMemory: Manners.announceMemory(flags.directory),
        ...(flags.recall || config.recall === true ? { recall: true } : {}),
        nativeCompaction: Option.getOrElse(flags.nativeCompaction, () => config.nativeCompaction ?? "auto"),
        ...(upstreamTimeout === undefined ? {} : { upstreamTimeout }),
        ...(connectTimeout === undefined ? {} : { connectTimeout }),
        ...(contextWindow === undefined ? {} : { window: contextWindow }),
        ...(admin === undefined ? {} : { adminPort: admin }),
        ...(secret === undefined ? {} : { token: secret }),
        model: Option.getOrElse(flags.model, () => "offline"),
        ...(flags.summarizer === "openai" ? { summarizer: CliIo.openAiSummarizer(flags.baseUrl) } : {})
      })
      const announced = server.pipe(
        Layer.tap((context) =>
          Effect.gen(function*() {
            const address = CompatHttp.HttpServer.formatAddress(
              Context.get(context, CompatHttp.HttpServer.HttpServer).address
            )
            yield* Console.error(`proxying ${address} -> ${flags.upstream}`)
            const adminAddress = Context.getOption(context as Context.Context<never>, Proxy.AdminAddress)
            if (Option.isSome(adminAddress)) {
              yield* Console.error(`API and inspector on ${CompatHttp.HttpServer.formatAddress(adminAddress.value)}`)
            }
          })
        )
      )
      return yield* Layer.launch(announced).pipe(
        Effect.mapError((error) => ServeCli.startFailure(error, flags.host, flags.port))
      )
    })
).pipe(
  Command.withDescription(
    "Proxy an OpenAI-compatible or Anthropic model server: POST /v1/chat/completions and /v1/messages are compacted on their way, " +
      "streams relayed as they come, a context-overflow answer compacted harder and retried once; every other request passes through."
  )
)
