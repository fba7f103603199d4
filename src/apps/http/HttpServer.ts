/**
 * The server of `context-compressor serve`: the handlers of the HTTP API
 * (`HttpApi.ts`) over one long-lived compaction engine on the production
 * layers of a folder (`Production.layerEngine`), the inspector page at `/`,
 * and what every request goes through first: the body size limit, JSON errors
 * for bad JSON and unknown routes, and the bearer token. The parts are modules
 * of their own, re-exported here: the handler groups (`SettingsHandlers`,
 * `CompactionHandlers`, `ReductionHandlers`, with `ExactJson`), the guard
 * (`Guard`) and the page (`Page`). See `docs/http.md`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import { HttpServer } from "#compat-http"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import * as AttentionFiber from "../../face/layers/AttentionFiber.js"
import * as Production from "../../face/layers/Production.js"
import type * as SqlPg from "../../face/layers/sql/SqlPg.js"
import type * as OptionalPackage from "../../face/models/OptionalPackage.js"
import { builtInPolicies } from "../../face/rules/index.js"
import * as Settings from "../../face/services/Settings.js"
import type * as Summarizer from "../../face/services/Summarizer.js"
import { layerCompaction } from "./CompactionHandlers.js"
import * as Connections from "./Connections.js"
import { guard, layerAuthorization } from "./Guard.js"
import * as Api from "./HttpApi.js"
import { layerPage, openApiPath } from "./Page.js"
import { layerReduction } from "./ReductionHandlers.js"
import { defaultLimits, defaultMaxBodyBytes } from "./ServerDefaults.js"
import { layerSettings } from "./SettingsHandlers.js"

/**
 * Options of the server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The folder of the databases, config file and archive (default `.context-compressor`). */
  readonly directory?: string
  /**
   * The summariser: `offline` (default), `chat-completions` (configured from the
   * environment, as `Production.layerSqlite` does), or a layer of one.
   */
  readonly summarizer?: "offline" | "chat-completions" | Layer.Layer<Summarizer.Summarizer>
  /** The session's model when a compact request names none (default `offline`). */
  readonly model?: string
  /** When set, every API route answers 401 without `Authorization: Bearer <token>`. */
  readonly token?: Redacted.Redacted<string> | undefined
  /** The largest request body accepted, in bytes (default {@link defaultMaxBodyBytes}). */
  readonly maxBodyBytes?: number
  /** How often the event stream sends a keep-alive comment (default {@link defaultKeepAliveMs}). */
  readonly keepAliveMs?: number
  /** The environment the settings are read from (default `process.env`). */
  readonly env?: () => Record<string, string | undefined>
  /** The folder of the page (default: `web/` of the package). */
  readonly webDirectory?: string
  /** How many compactions may run at once (default {@link defaultLimits}); past it a compaction waits for a place in the queue. */
  readonly maxCompactions?: number
  /** How many compactions may wait for a place, in order of arrival (default {@link defaultLimits}); past it `POST /v1/compact` answers 503 with `Retry-After`. */
  readonly maxQueue?: number
  /** How long a compaction waits for a place, in milliseconds (default {@link defaultLimits}); past it 503 with `Retry-After`. */
  readonly queueTimeoutMs?: number
  /**
   * The most bytes of request bodies the compaction queue lets in at once,
   * being read, waiting or running: a body reserves its `Content-Length`, a
   * chunked one `maxBodyBytes` (default `(maxCompactions + maxQueue) ×
   * maxBodyBytes`, `WaitQueue.defaultQueueBytes`); past it 503 with
   * `Retry-After`, before the body is read.
   */
  readonly maxQueueBytes?: number
  /** How many connections may be open at once (default {@link defaultLimits}); see `Connections.guard`. */
  readonly maxConnections?: number
  /** How many event streams may be open at once (default {@link defaultLimits}); past it `GET /v1/events` answers 503. */
  readonly maxEventStreams?: number
  /**
   * How long a connection may go without sending a complete request head,
   * from its opening or its last answer, in milliseconds, before it is closed
   * (default {@link defaultLimits}).
   */
  readonly headersTimeoutMs?: number
  /** How long a client may take to send the whole request, in milliseconds (default {@link defaultLimits}). */
  readonly requestTimeoutMs?: number
  /** How long a question of an attended compaction waits for its answer before it is Trim (default 10 minutes). */
  readonly questionTimeout?: Compat.DurationInput
  /**
   * How long a compaction works, in the handler (decoding the transcript,
   * counting, writing the answer) and in the engine, before it gives the event
   * loop a turn, in milliseconds (default `Compactor.defaultSliceMs`, 10):
   * other requests are answered meanwhile. `Infinity` never pauses.
   */
  readonly sliceMs?: number
  /**
   * The names a token-less server answers to besides its bound address,
   * `localhost` and the loopback addresses (`serve --allowed-host`): a request
   * whose `Host` names anything else is refused (see {@link sameSiteRule}).
   */
  readonly allowedHosts?: ReadonlyArray<string> | undefined
  /**
   * When SQLite is not installed (better-sqlite3 missing or not built), keep
   * the settings overrides, the compaction states and the summary cache in
   * memory for the process's life (`Production.layerFolderInMemory`) after
   * telling this function why; without it, the server does not start then.
   */
  readonly onMemory?: ((reason: string) => Effect.Effect<void>) | undefined
  /**
   * A PostgreSQL database (`postgres://…`) for the states, the summary cache,
   * the settings overrides, the sessions' memory and the transcript archive
   * (`Production.layerPg`), shared by every worker that names it: any worker
   * answers any session. The folder then keeps only `config.toml`.
   */
  readonly databaseUrl?: string | Redacted.Redacted<string> | undefined
  /**
   * How long a call of the database (the states, the sessions' memory, the
   * summary cache, the archive) may go unanswered before it counts as the
   * store's failure (default 3 s, `Production.Options.storeTimeout`): a
   * compaction then answers 500, a proxied request goes on uncompacted.
   */
  readonly storeTimeout?: Compat.DurationInput | undefined
}

export {
  /**
   * The server's default limits: 4 compactions at once and 256 waiting, each
   * up to 120 s; 64 open event streams; 1,024 open connections; 10 s to send a
   * request head, 120 s to send a whole request.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultLimits,
  /**
   * The default body size limit: 16 MiB, room for a long transcript pasted whole.
   *
   * @since 0.1.0
   * @category constants
   */
  defaultMaxBodyBytes,
  /**
   * The environment variable the token is read from when `serve --token` is not given.
   *
   * @since 0.1.0
   * @category constants
   */
  tokenEnv
} from "./ServerDefaults.js"

/**
 * The default interval of the event stream's keep-alive comments: under the
 * idle timeouts of common proxies (30–60 s).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultKeepAliveMs = 15_000

/**
 * The settings group's handlers (`SettingsHandlers.ts`).
 *
 * @since 0.1.0
 */
export * from "./SettingsHandlers.js"

/**
 * The compaction group's handlers (`CompactionHandlers.ts`).
 *
 * @since 0.1.0
 */
export * from "./CompactionHandlers.js"

/**
 * The reduction group's handler (`ReductionHandlers.ts`).
 *
 * @since 0.1.0
 */
export * from "./ReductionHandlers.js"

/**
 * Exact numbers in and out (`ExactJson.ts`).
 *
 * @since 0.1.0
 */
export * from "./ExactJson.js"

/**
 * What every request goes through: the token, the same-site rule, the body limit, capped echoes (`Guard.ts`).
 *
 * @since 0.1.0
 */
export * from "./Guard.js"

/**
 * The inspector page (`Page.ts`).
 *
 * @since 0.1.0
 */
export * from "./Page.js"

// --- the engine --------------------------------------------------------------------

/**
 * Errors building the server's services: the state database, the settings of
 * config.toml or the environment, the migrations, the summariser's config.
 *
 * @since 0.1.0
 * @category models
 */
export type StartError =
  | Compat.SqliteOpenError
  | SqlPg.ConnectError
  | OptionalPackage.MissingPackageError
  | Settings.SettingsError
  | Compat.SqlError
  | Compat.MigrationError
  | Compat.ConfigError

/** The production services: the folder's SQLite files, or the database of `databaseUrl`. */
const servicesOf = (options: Options): Layer.Layer<
  Http.LayerSuccess<ReturnType<typeof Production.layerSqliteOrMemory>>,
  StartError
> => {
  const common = {
    ...(options.directory === undefined ? {} : { directory: options.directory }),
    ...(options.summarizer === "chat-completions" ? { summarizer: "chat-completions" as const } : {}),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.storeTimeout === undefined ? {} : { storeTimeout: options.storeTimeout })
  }
  if (options.databaseUrl === undefined) {
    return options.onMemory === undefined
      ? Production.layerSqlite(common)
      : Production.layerSqliteOrMemory({ ...common, onMemory: options.onMemory })
  }
  return Production.layerPg({
    ...common,
    url: typeof options.databaseUrl === "string" ? Redacted.make(options.databaseUrl) : options.databaseUrl
  })
}

/**
 * The compaction engine and the services the handlers read (settings and their
 * overrides, the tokenizer), on the production layers of `options.directory`,
 * or of the database of `options.databaseUrl`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEngine = (options: Options = {}) =>
  Production.layerEngine({
    engine: { policies: builtInPolicies, ...(options.sliceMs === undefined ? {} : { sliceMs: options.sliceMs }) },
    services: servicesOf(options),
    summarizer: typeof options.summarizer === "object" ? options.summarizer : undefined,
    // Each request says whether it is attended: the engine asks the compacting fiber's attention.
    attention: AttentionFiber.layer
  })

// --- the server --------------------------------------------------------------------

/**
 * The whole server on the current `HttpServer` over an engine given to it (the
 * services of {@link layerEngine}): the API, its OpenAPI description, the page,
 * the guard. `proxy --admin-port` serves it over the proxy's own engine, so its
 * events and page show the proxy's sessions. Open event streams end when the
 * layer is released, before the server closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOver = (options: Options = {}) =>
  Http.unwrapLayerScoped(
    Effect.gen(function*() {
      const shutdown = yield* Deferred.make<void>()
      const scope = yield* Effect.scope
      const bound = (yield* HttpServer.HttpServer).address
      const handlers = Layer.mergeAll(
        layerSettings,
        layerCompaction({
          model: options.model ?? "offline",
          keepAliveMs: options.keepAliveMs ?? defaultKeepAliveMs,
          shutdown,
          scope,
          questionTimeout: options.questionTimeout,
          sliceMs: options.sliceMs,
          ...(options.maxCompactions === undefined ? {} : { maxCompactions: options.maxCompactions }),
          ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
          ...(options.queueTimeoutMs === undefined ? {} : { queueTimeoutMs: options.queueTimeoutMs }),
          ...(options.maxQueueBytes === undefined ? {} : { maxQueueBytes: options.maxQueueBytes }),
          maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
          ...(options.maxEventStreams === undefined ? {} : { maxEventStreams: options.maxEventStreams })
        }),
        layerReduction
      ).pipe(Layer.provide(layerAuthorization(options.token)))
      const served = Http.serveApi({
        api: Api.Api,
        handlers,
        routes: layerPage(options.webDirectory),
        openApiPath,
        middleware: guard({
          maxBodyBytes: options.maxBodyBytes ?? defaultMaxBodyBytes,
          token: options.token,
          bound,
          allowedHosts: options.allowedHosts
        })
      })
      // Released before the serving is: the streams end first, so that a server that waits for its open
      // responses as it stops (Effect 4's graceful shutdown) is not kept waiting by them.
      return Http.layerScopedDiscard(Effect.addFinalizer(() => Deferred.succeed(shutdown, undefined))).pipe(
        Layer.provide(served)
      )
    })
  )

/**
 * The whole server on the current `HttpServer`: the API, its OpenAPI
 * description, the page, the guard, over the engine of `options.directory`.
 * Open event streams end when the layer is released, before the server closes.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<never, StartError, HttpServer.HttpServer | Http.ServerServices> =>
  layerOver(options).pipe(Layer.provide(layerEngine(options)))

/**
 * The server on a Node HTTP server listening on `host` (default `127.0.0.1`)
 * and `port` (0: any free port; read it from `HttpServer.HttpServer`'s address).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (
  options: Options & { readonly port: number; readonly host?: string }
): Layer.Layer<HttpServer.HttpServer, StartError | Http.ServeError> =>
  layer(options).pipe(
    Layer.provideMerge(
      Http.layerNodeServer(() => Connections.createServer(options), {
        port: options.port,
        host: options.host ?? "127.0.0.1"
      })
    )
  )
