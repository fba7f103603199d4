/**
 * The transcript archive on SQL (SPEC R2.8), on SQLite or PostgreSQL: one row
 * per archived message in the `transcript_archive` table, keyed by session,
 * entry (`compaction-<n>-<digest>` or, for what the ladder cut in a view,
 * `cut-<digest>`) and position, with the message's recall handle beside it.
 * Workers sharing one database share the archive: a handle written by one
 * resolves through any other, for its own session only. An entry is written
 * in one transaction, so it is whole or absent; two workers writing the same
 * entry (a race on one compaction) write it once.
 *
 * The archive is bounded by a retention: entries older than `maxAgeMs`, then
 * the oldest entries past `maxBytes` of message text, are removed by `prune`
 * (the `archive prune` verb), and by a write when the last prune of this
 * process is older than `pruneEveryMs`. A recall of a pruned handle answers
 * that the handle is not known.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import type * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Hash from "node:crypto"
import * as Handles from "../../core/block/Handles.js"
import * as Cooperative from "../engine/internal/Cooperative.js"
import * as Transcript from "../models/Transcript.js"
import * as TranscriptArchive from "../services/TranscriptArchive.js"
import * as SqlMigrations from "./sql/SqlMigrations.js"

/**
 * How long an archived entry is kept: 30 days.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxAgeMs = 30 * 24 * 60 * 60 * 1000

/**
 * How many bytes of archived messages (their JSON, UTF-8) are kept: 1 GiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBytes = 1024 * 1024 * 1024

/**
 * How often a process's writes apply the retention: every 10 minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultPruneEveryMs = 10 * 60 * 1000

/**
 * Options of the SQL archive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Entries written longer ago are removed (default {@link defaultMaxAgeMs}). */
  readonly maxAgeMs?: number | undefined
  /** Bytes of messages kept; the oldest entries go first (default {@link defaultMaxBytes}). */
  readonly maxBytes?: number | undefined
  /** How often writes apply the retention (default {@link defaultPruneEveryMs}; `Infinity`: only `prune`). */
  readonly pruneEveryMs?: number | undefined
  /** The time in milliseconds, for tests; the `Clock` by default. */
  readonly now?: (() => number) | undefined
}

/**
 * What the archive holds.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly sessions: number
  readonly entries: number
  readonly messages: number
  /** Bytes of the messages' JSON. */
  readonly bytes: number
}

/**
 * What a caller can read back from, and do to, the SQL archive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly stats: Effect.Effect<Stats, TranscriptArchive.ArchiveError>
  /** Applies the age and size retention now; how many entries and messages it removed. */
  readonly prune: Effect.Effect<{ readonly entries: number; readonly messages: number }, TranscriptArchive.ArchiveError>
}

/**
 * The inspection side of the SQL archive.
 *
 * @since 0.1.0
 * @category tags
 */
export class SqlArchive
  extends Compat.Service<SqlArchive, Service>()("context-compressor/layers/TranscriptArchiveSql/SqlArchive")
{}

const encodeMessage = Schema.encodeSync(Transcript.Message)
const decodeMessage = Compat.decodeUnknownResult(Transcript.Message)

const digestOf = (messages: Transcript.Transcript): string =>
  Hash.createHash("sha256").update(messages.map((message) => message.id).join("\n")).digest("hex").slice(0, 12)

/**
 * The entry's key within its session: `compaction-<n>-<digest>`, or
 * `cut-<digest>` for messages the ladder cut in a view.
 *
 * @since 0.1.0
 * @category paths
 */
export const entryOf = (entry: TranscriptArchive.Entry): string =>
  entry.cut === true ? `cut-${digestOf(entry.messages)}` : `compaction-${entry.compaction}-${digestOf(entry.messages)}`

/**
 * The name an entry is given in the block and the reports: the table, the
 * session and the entry, nothing of the machine.
 *
 * @since 0.1.0
 * @category paths
 */
export const locate = (entry: TranscriptArchive.Entry): string =>
  `archive database: ${entry.sessionId} ${entryOf(entry)}`

const count = (value: unknown): number => Number(value ?? 0)

/** Rows per INSERT: far under SQLite's and PostgreSQL's limits on bound parameters. */
const rowsPerInsert = 200

/**
 * Makes the archive on the current `SqlClient`, with its inspection side. The
 * schema must be there (`SqlMigrations.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeWith = (options: Options = {}) =>
  Effect.gen(function*() {
    const sql = yield* Compat.SqlClient
    const maxAgeMs = options.maxAgeMs ?? defaultMaxAgeMs
    const maxBytes = options.maxBytes ?? defaultMaxBytes
    const pruneEveryMs = options.pruneEveryMs ?? defaultPruneEveryMs
    const now = options.now === undefined ? Clock.currentTimeMillis : Effect.sync(options.now)
    let lastPrune = Number.NEGATIVE_INFINITY
    const failed = (sessionId: string, path: string, doing: string) => (cause: Cause.Cause<unknown>) =>
      Compat.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.fail(
          new TranscriptArchive.ArchiveError({
            sessionId,
            path,
            reason: `${doing} the archive table: ${SqlMigrations.describeCause(cause)}`
          })
        )

    // Whole entries go: past the age, then the oldest while the newer ones' running total is past the size.
    const pruneAt = (time: number) =>
      sql.withTransaction(Effect.gen(function*() {
        const before = yield* sql<
          { readonly entries: unknown; readonly messages: unknown }
        >`SELECT COUNT(DISTINCT session_id || ' ' || entry) AS entries, COUNT(*) AS messages FROM transcript_archive`
        yield* sql`DELETE FROM transcript_archive WHERE created_at < ${time - maxAgeMs}`
        yield* sql`DELETE FROM transcript_archive WHERE (session_id || ' ' || entry) IN (
          SELECT entry_key FROM (
            SELECT entry_key, SUM(entry_bytes) OVER (ORDER BY created DESC, entry_key DESC ROWS UNBOUNDED PRECEDING) AS newer_bytes
            FROM (SELECT session_id || ' ' || entry AS entry_key, SUM(bytes) AS entry_bytes, MAX(created_at) AS created FROM transcript_archive GROUP BY session_id, entry) entries
          ) ranked WHERE newer_bytes > ${maxBytes}
        )`
        const after = yield* sql<
          { readonly entries: unknown; readonly messages: unknown }
        >`SELECT COUNT(DISTINCT session_id || ' ' || entry) AS entries, COUNT(*) AS messages FROM transcript_archive`
        return {
          entries: count(before[0]?.entries) - count(after[0]?.entries),
          messages: count(before[0]?.messages) - count(after[0]?.messages)
        }
      }))

    const prune = Effect.flatMap(now, (time) => {
      lastPrune = time
      return pruneAt(time)
    }).pipe(Compat.catchCause(failed("", "transcript_archive", "pruning")))

    const archive = TranscriptArchive.TranscriptArchive.of({
      locate,
      write: (entry) => {
        const { messages, sessionId } = entry
        const key = entryOf(entry)
        const name = locate(entry)
        return Effect.gen(function*() {
          const time = yield* now
          // Encoded pausing every 10 ms: the archive of a long span does not hold up the rest of the process.
          const rows = yield* Cooperative.map(messages, (message) => {
            const text = JSON.stringify(encodeMessage(message))
            return {
              session_id: sessionId,
              entry: key,
              handle: Handles.handleOfMessage(sessionId, message) ?? null,
              message: text,
              bytes: Buffer.byteLength(text),
              created_at: time
            }
          }, Cooperative.slice(10))
          // The same entry written by two workers at once is one entry: the rows already there stand.
          yield* sql.withTransaction(Effect.forEach(
            Array.from({ length: Math.ceil(rows.length / rowsPerInsert) }, (_, chunk) =>
              rows.slice(chunk * rowsPerInsert, (chunk + 1) * rowsPerInsert).map((row, index) => ({
                ...row,
                position: chunk * rowsPerInsert + index
              }))),
            // Every chunk holds a row at least (Effect 4's insert asks for a non-empty array).
            (chunk) =>
              sql`INSERT INTO transcript_archive ${
                sql.insert(chunk as unknown as readonly [(typeof chunk)[number], ...typeof chunk])
              } ON CONFLICT (session_id, entry, position) DO NOTHING`,
            { discard: true }
          )).pipe(Compat.catchCause(failed(sessionId, name, "writing to")))
          if (time - lastPrune >= pruneEveryMs) {
            lastPrune = time
            yield* pruneAt(time).pipe(
              Compat.catchCause((cause) =>
                Compat.hasInterruptsOnly(cause)
                  ? Effect.interrupt
                  : Effect.logWarning(
                    `transcript archive: pruning failed: ${
                      SqlMigrations.describeCause(cause)
                    }; retried at a later write`
                  )
              )
            )
          }
          return name
        })
      },
      // The session's own rows only; of a handle archived more than once (the same text), the newest.
      lookup: (sessionId, handle) =>
        sql<
          { readonly message: string }
        >`SELECT message FROM transcript_archive WHERE session_id = ${sessionId} AND handle = ${handle}
          ORDER BY created_at DESC, entry DESC LIMIT 1`.pipe(
          Compat.catchCause(failed(sessionId, "transcript_archive", "reading from")),
          Effect.flatMap((rows) => {
            const row = rows[0]
            if (row === undefined) {
              return Effect.succeed(Option.none<Transcript.Message>())
            }
            return Effect.try({
              try: () => JSON.parse(row.message) as unknown,
              catch: (error) => String(error)
            }).pipe(
              Effect.flatMap((json) =>
                Effect.mapError(Compat.fromResult(decodeMessage(json)), (error) => error.message)
              ),
              Effect.map(Option.some),
              Effect.mapError((reason) =>
                new TranscriptArchive.ArchiveError({
                  sessionId,
                  path: "transcript_archive",
                  reason: `an archived message does not decode: ${reason}`
                })
              )
            )
          })
        )
    })

    const stats = sql<
      { readonly sessions: unknown; readonly entries: unknown; readonly messages: unknown; readonly bytes: unknown }
    >`SELECT
      COUNT(DISTINCT session_id) AS sessions, COUNT(DISTINCT session_id || ' ' || entry) AS entries, COUNT(*) AS messages, COALESCE(SUM(bytes), 0) AS bytes
      FROM transcript_archive`.pipe(
      Effect.map((rows) => ({
        sessions: count(rows[0]?.sessions),
        entries: count(rows[0]?.entries),
        messages: count(rows[0]?.messages),
        bytes: count(rows[0]?.bytes)
      })),
      Compat.catchCause(failed("", "transcript_archive", "reading from"))
    )
    return { archive, sql: SqlArchive.of({ stats, prune }) }
  })

/**
 * Makes the archive on the current `SqlClient`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<TranscriptArchive.Service, never, Compat.SqlClient> =>
  Effect.map(makeWith(options), ({ archive }) => archive)

/**
 * Provides the archive, and its inspection side, on the current `SqlClient`.
 * The schema must be there (`SqlMigrations.run`).
 *
 * @example
 * ```ts
 * import { SqlPg, TranscriptArchiveSql } from "context-compressor/layers"
 * import { Layer, Redacted } from "effect"
 *
 * // The archive in the fleet's database: a recall handle written by one worker resolves through any other.
 * const sql = SqlPg.layer({ url: Redacted.make("postgres://agents@db.internal/agents") })
 * export const archive = TranscriptArchiveSql.layer({ maxAgeMs: 30 * 24 * 3_600_000 }).pipe(Layer.provide(sql))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<TranscriptArchive.TranscriptArchive | SqlArchive, never, Compat.SqlClient> =>
  Layer.effectContext(
    Effect.map(makeWith(options), ({ archive, sql }) =>
      Context.make(TranscriptArchive.TranscriptArchive, archive).pipe(Context.add(SqlArchive, sql)))
  )
