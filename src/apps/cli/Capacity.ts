/**
 * What `serve` and `proxy` share of their capacity: how many compactions run
 * at once and how many wait for a place, and for how long (the wait queue of
 * `src/apps/http/WaitQueue.ts`), how many connections may be open and how long a
 * connection may go without a request head (`src/apps/http/Connections.ts`). The
 * flags of both verbs, the same keys in config.toml's `[proxy]` table, and
 * the durations both read.
 *
 * @since 0.1.0
 */
import { Flag } from "#compat-cli"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ServerDefaults from "../http/ServerDefaults.js"
import * as CliIo from "./CliIo.js"

const durationUnits: Record<string, number> = {
  ms: 1,
  millis: 1,
  millisecond: 1,
  milliseconds: 1,
  s: 1_000,
  sec: 1_000,
  secs: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  mins: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000
}

/**
 * A duration of the command line or of config.toml: a number of seconds, or a
 * number and a unit (`500ms`, `300s`, `5m`, `90 seconds`, `1 hour`); positive.
 *
 * @since 0.1.0
 * @category config
 */
export const parseDuration = (text: string | number): Option.Option<Duration.Duration> => {
  const match = typeof text === "number"
    ? [String(text), String(text), "s"]
    : /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text)
  if (match === null) return Option.none()
  const unit = durationUnits[(match[2] || "s").toLowerCase()]
  const amount = Number(match[1])
  return unit === undefined || !(amount > 0) || !Number.isFinite(amount)
    ? Option.none()
    : Option.some(Duration.millis(amount * unit))
}

const { headersTimeoutMs, maxCompactions, maxConnections, maxQueue, queueTimeoutMs } = ServerDefaults.defaultLimits

/**
 * The flags of a server's capacity, each optional so that config.toml can give
 * what the command line does not.
 *
 * @since 0.1.0
 * @category options
 */
export const options = {
  maxCompactions: Flag.Int("max-compactions").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription(
      `How many compactions may run at once, 1-1024 (default ${maxCompactions}); the others wait in order for a place.`
    ),
    Flag.optional
  ),
  maxQueue: Flag.Int("max-queue").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription(
      `How many compactions may wait for a place, 0-100000 (default ${maxQueue}); past it a compaction is answered 503 with Retry-After.`
    ),
    Flag.optional
  ),
  queueTimeout: Flag.String("queue-timeout").pipe(
    Flag.withMetavar("DURATION"),
    Flag.withDescription(
      `How long a compaction may wait for a place (default ${
        queueTimeoutMs / 1_000
      } s; 500ms, 30s, 2m); past it 503 with Retry-After.`
    ),
    Flag.optional
  ),
  maxConnections: Flag.Int("max-connections").pipe(
    Flag.withMetavar("N"),
    Flag.withDescription(
      `How many connections may be open at once, 1-1000000 (default ${maxConnections}); past it a new one closes the connection idle the longest.`
    ),
    Flag.optional
  ),
  headTimeout: Flag.String("head-timeout").pipe(
    Flag.withMetavar("DURATION"),
    Flag.withDescription(
      `How long a connection may go without sending a complete request head, from its opening or its last answer (default ${
        headersTimeoutMs / 1_000
      } s); past it it is closed.`
    ),
    Flag.optional
  )
} as const

/**
 * The capacity of a server as its options take it (`HttpServer.Options`, `Proxy.Options`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Capacity {
  readonly maxCompactions?: number
  readonly maxQueue?: number
  readonly queueTimeoutMs?: number
  readonly maxConnections?: number
  readonly headersTimeoutMs?: number
}

type Given = { readonly [K in keyof typeof options]: (typeof options)[K] extends Flag<infer A> ? A : never }

/** The config.toml key of each setting. */
const keys: { readonly [K in keyof typeof options]: string } = {
  maxCompactions: "max_compactions",
  maxQueue: "max_queue",
  queueTimeout: "queue_timeout",
  maxConnections: "max_connections",
  headTimeout: "head_timeout"
}

const flagOf = (key: keyof typeof options): string => `--${keys[key].replaceAll("_", "-")}`

const ranges = {
  maxCompactions: [1, 1_024],
  maxQueue: [0, 100_000],
  maxConnections: [1, 1_000_000]
} as const

/** The longest a duration of the capacity may be: an hour. */
const maxDurationMs = 3_600_000

/**
 * The capacity of the flags given, over what `table` (config.toml's `[proxy]`,
 * when given) says, over the defaults; a value out of its range or not a
 * duration is refused in one line naming the flag or the key.
 *
 * @since 0.1.0
 * @category config
 */
export const resolve = (
  given: Given,
  table?: { readonly path: string; readonly values: Readonly<Record<string, unknown>> | undefined }
): Effect.Effect<Capacity, CliIo.CliFailure> =>
  Effect.gen(function*() {
    const fail = (message: string) => new CliIo.CliFailure({ message })
    const configured = (key: keyof typeof options): unknown => {
      const value = table?.values?.[keys[key]]
      return typeof value === "bigint" ? Number(value) : value
    }
    const integer = (key: keyof typeof ranges) =>
      Effect.gen(function*() {
        const [low, high] = ranges[key]
        const flag = Option.getOrUndefined(given[key])
        const value = flag ?? configured(key)
        if (value === undefined) return undefined
        if (typeof value !== "number" || !Number.isInteger(value) || value < low || value > high) {
          return yield* fail(
            flag !== undefined
              ? `${flagOf(key)} must be from ${low} to ${high} (got ${String(value)})`
              : `${table!.path}: proxy.${keys[key]} must be a whole number from ${low} to ${high} (got ${
                String(value)
              })`
          )
        }
        return value
      })
    const duration = (key: "queueTimeout" | "headTimeout") =>
      Effect.gen(function*() {
        const flag = Option.getOrUndefined(given[key])
        const value = flag ?? configured(key)
        if (value === undefined) return undefined
        const decoded = typeof value === "string" || typeof value === "number" ? parseDuration(value) : Option.none()
        if (Option.isNone(decoded) || Duration.toMillis(decoded.value) > maxDurationMs) {
          return yield* fail(
            flag !== undefined
              ? `${flagOf(key)} must be a duration such as 30s or 2m, at most 1 hour (got ${
                JSON.stringify(String(value).slice(0, 100))
              })`
              : `${table!.path}: proxy.${keys[key]} must be a duration such as "30s" or "2m", at most 1 hour (got ${
                String(value)
              })`
          )
        }
        return Math.max(1, Math.round(Duration.toMillis(decoded.value)))
      })
    const capacity = {
      maxCompactions: yield* integer("maxCompactions"),
      maxQueue: yield* integer("maxQueue"),
      queueTimeoutMs: yield* duration("queueTimeout"),
      maxConnections: yield* integer("maxConnections"),
      headersTimeoutMs: yield* duration("headTimeout")
    }
    return Object.fromEntries(Object.entries(capacity).filter(([, value]) => value !== undefined)) as Capacity
  })
