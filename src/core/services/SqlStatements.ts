/**
 * The SQL of the SQL layers in the shared core (docs/effect4.md): the one
 * migration set and the statements of the compaction-state store, the
 * sessions' memory and the summary cache, written once as data. Each face
 * runs a statement on its own `SqlClient` (`@effect/sql` on Effect 3,
 * `effect/sql` on Effect 4) with {@link compile}, which hands the same
 * template parts to the client's tag, so both faces send the same SQL with
 * the same parameters. The SQL is kept to what SQLite and PostgreSQL both read.
 *
 * @since 0.1.0
 */

/**
 * A value bound into a statement: a parameter, a row to insert (the
 * client's `insert`), or a fragment of SQL (another statement).
 *
 * @since 0.1.0
 * @category models
 */
export type Value = string | number | null | Insert | Statement

/**
 * A row for the client's `insert` helper: its columns and values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Insert {
  readonly _tag: "Insert"
  readonly row: { readonly [column: string]: string | number | null }
}

/**
 * A statement as template parts: the text around the values, and the values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Statement {
  readonly _tag: "Statement"
  readonly strings: TemplateStringsArray
  readonly values: ReadonlyArray<Value>
}

const sql = (strings: TemplateStringsArray, ...values: Array<Value>): Statement => ({
  _tag: "Statement",
  strings,
  values
})

const insert = (row: Insert["row"]): Insert => ({ _tag: "Insert", row })

/**
 * What a face gives {@link compile}: its client's template tag over its
 * statement type `S`, and its `insert` helper.
 *
 * @since 0.1.0
 * @category models
 */
export interface Client<S> {
  readonly tag: (strings: TemplateStringsArray, values: ReadonlyArray<unknown>) => S
  readonly insert: (row: Insert["row"]) => unknown
}

/**
 * A statement as the face's client's statement: each fragment compiled
 * first, each row given to the client's `insert`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = <S>(client: Client<S>, statement: Statement): S =>
  client.tag(
    statement.strings,
    statement.values.map((value) =>
      value === null || typeof value !== "object"
        ? value
        : value._tag === "Insert"
        ? client.insert(value.row)
        : compile(client, value)
    )
  )

/**
 * A migration: its id, its name and its statements, run in order.
 *
 * @since 0.1.0
 * @category models
 */
export interface Migration {
  readonly id: number
  readonly name: string
  readonly statements: ReadonlyArray<Statement>
}

/**
 * The migrations, oldest first. A migration is never edited once released; a change is a new entry.
 *
 * @since 0.1.0
 * @category constants
 */
export const migrations: ReadonlyArray<Migration> = [
  {
    id: 1,
    name: "summary_cache",
    statements: [
      sql`CREATE TABLE IF NOT EXISTS summary_cache (
        digest TEXT PRIMARY KEY,
        namespace TEXT NOT NULL,
        schema_version INTEGER NOT NULL,
        model TEXT NOT NULL,
        summary TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        used_at BIGINT NOT NULL
      )`,
      sql`CREATE INDEX IF NOT EXISTS summary_cache_used_at ON summary_cache (used_at)`
    ]
  },
  {
    id: 2,
    name: "compaction_state",
    statements: [sql`CREATE TABLE IF NOT EXISTS compaction_state (
      session_id TEXT PRIMARY KEY,
      compactions INTEGER NOT NULL,
      state TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`]
  },
  {
    id: 3,
    name: "settings_overrides",
    statements: [sql`CREATE TABLE IF NOT EXISTS settings_overrides (
      key TEXT PRIMARY KEY,
      value TEXT NOT NULL,
      updated_at BIGINT NOT NULL
    )`]
  },
  {
    id: 4,
    name: "transcript_archive",
    statements: [
      sql`CREATE TABLE IF NOT EXISTS transcript_archive (
        session_id TEXT NOT NULL,
        entry TEXT NOT NULL,
        position INTEGER NOT NULL,
        handle TEXT,
        message TEXT NOT NULL,
        bytes BIGINT NOT NULL,
        created_at BIGINT NOT NULL,
        PRIMARY KEY (session_id, entry, position)
      )`,
      sql`CREATE INDEX IF NOT EXISTS transcript_archive_handle ON transcript_archive (session_id, handle)`,
      sql`CREATE INDEX IF NOT EXISTS transcript_archive_created_at ON transcript_archive (created_at)`
    ]
  },
  {
    id: 5,
    name: "session_memory",
    statements: [sql`CREATE TABLE IF NOT EXISTS session_memory (
      session_id TEXT PRIMARY KEY,
      version TEXT NOT NULL,
      memory TEXT NOT NULL,
      reported_tokens BIGINT,
      reported_basis TEXT,
      updated_at BIGINT NOT NULL
    )`]
  }
]

/**
 * The table the migrator records the migrations it ran in.
 *
 * @since 0.1.0
 * @category constants
 */
export const migrationsTable = "context_compressor_migrations"

/**
 * A compaction state's row.
 *
 * @since 0.1.0
 * @category models
 */
export interface StateRow {
  readonly session_id: string
  readonly compactions: number
  readonly state: string
  readonly updated_at: number
}

/**
 * The stored state of a session (`state`, its JSON text).
 *
 * @since 0.1.0
 * @category statements
 */
export const loadState = (sessionId: string): Statement =>
  sql`SELECT state FROM compaction_state WHERE session_id = ${sessionId}`

/**
 * Replaces the session's state, whatever it was.
 *
 * @since 0.1.0
 * @category statements
 */
export const saveState = (row: StateRow): Statement =>
  sql`INSERT INTO compaction_state ${insert({ ...row })}
            ON CONFLICT (session_id) DO UPDATE SET compactions = excluded.compactions, state = excluded.state, updated_at = excluded.updated_at`

/**
 * Replaces the session's state only if the stored one has `expected`
 * compactions, or there is none; gives back `session_id` when it wrote. One
 * statement, atomic on both dialects: PostgreSQL locks the conflicting row
 * and checks the condition on its latest version; SQLite has one writer at a time.
 *
 * @since 0.1.0
 * @category statements
 */
export const saveStateIfCurrent = (row: StateRow, expected: number): Statement =>
  sql`INSERT INTO compaction_state ${insert({ ...row })}
        ON CONFLICT (session_id) DO UPDATE SET compactions = excluded.compactions, state = excluded.state, updated_at = excluded.updated_at
        WHERE compaction_state.compactions = ${expected}
        RETURNING session_id`

/**
 * The session's memory between checkpoints (`version`, `memory`, `reported_tokens`).
 *
 * @since 0.1.0
 * @category statements
 */
export const loadMemory = (sessionId: string): Statement =>
  sql`SELECT version, memory, reported_tokens FROM session_memory WHERE session_id = ${sessionId}`

/**
 * Replaces the session's memory; its reported tokens stay.
 *
 * @since 0.1.0
 * @category statements
 */
export const saveMemory = (sessionId: string, version: string, memory: string, now: number): Statement =>
  sql`INSERT INTO session_memory ${insert({ session_id: sessionId, version, memory, updated_at: now })}
          ON CONFLICT (session_id) DO UPDATE SET version = excluded.version, memory = excluded.memory, updated_at = excluded.updated_at`

/**
 * Records the prompt tokens reported for the session's last request.
 *
 * @since 0.1.0
 * @category statements
 */
export const saveReport = (sessionId: string, tokens: number, basis: string | null, now: number): Statement =>
  sql`INSERT INTO session_memory ${
    insert({
      session_id: sessionId,
      version: "",
      memory: "",
      reported_tokens: tokens,
      reported_basis: basis,
      updated_at: now
    })
  }
          ON CONFLICT (session_id) DO UPDATE SET reported_tokens = excluded.reported_tokens, reported_basis = excluded.reported_basis`

/**
 * What was last reported for the session (`reported_tokens`, `reported_basis`).
 *
 * @since 0.1.0
 * @category statements
 */
export const loadReport = (sessionId: string): Statement =>
  sql`SELECT reported_tokens, reported_basis FROM session_memory WHERE session_id = ${sessionId}`

/**
 * The summary cache's entries and their total bytes (`entries`, `bytes`).
 *
 * @since 0.1.0
 * @category statements
 */
export const cacheTotals: Statement =
  sql`SELECT COUNT(*) AS entries, COALESCE(SUM(bytes), 0) AS bytes FROM summary_cache`

/**
 * Evicts the entries unused since `oldest`.
 *
 * @since 0.1.0
 * @category statements
 */
export const evictOlderThan = (oldest: number): Statement => sql`DELETE FROM summary_cache WHERE used_at < ${oldest}`

/**
 * Evicts every entry older than the newest ones whose running total fits `maxBytes`.
 *
 * @since 0.1.0
 * @category statements
 */
export const evictOverBytes = (maxBytes: number): Statement =>
  sql`DELETE FROM summary_cache WHERE digest IN (
          SELECT digest FROM (
            SELECT digest, SUM(bytes) OVER (ORDER BY used_at DESC, created_at DESC, digest DESC ROWS UNBOUNDED PRECEDING) AS newer_bytes
            FROM summary_cache
          ) ranked WHERE newer_bytes > ${maxBytes}
        )`

/**
 * A key's summary (`summary`), when its entry was used since `oldest`.
 *
 * @since 0.1.0
 * @category statements
 */
export const lookupSummary = (
  digest: string,
  key: { readonly namespace: string; readonly schemaVersion: number; readonly model: string },
  oldest: number
): Statement =>
  sql`SELECT summary FROM summary_cache
              WHERE digest = ${digest} AND namespace = ${key.namespace} AND schema_version = ${key.schemaVersion}
              AND model = ${key.model} AND used_at >= ${oldest}`

/**
 * Records the last use of an entry.
 *
 * @since 0.1.0
 * @category statements
 */
export const touchSummary = (digest: string, time: number): Statement =>
  sql`UPDATE summary_cache SET used_at = ${time} WHERE digest = ${digest}`

/**
 * A summary cache entry's row.
 *
 * @since 0.1.0
 * @category models
 */
export interface SummaryRow {
  readonly digest: string
  readonly namespace: string
  readonly schema_version: number
  readonly model: string
  readonly summary: string
  readonly bytes: number
  readonly created_at: number
  readonly used_at: number
}

/**
 * Stores a summary; gives back `digest` when it wrote. The summary stored
 * first stays: a second store of the key (another worker that asked
 * meanwhile) only replaces an entry unused since `oldest`, which no lookup
 * returns any more, or the entry the gate refused (`replacing`), unless
 * another worker replaced it already.
 *
 * @since 0.1.0
 * @category statements
 */
export const storeSummary = (row: SummaryRow, oldest: number, replacing: string | undefined): Statement =>
  sql`INSERT INTO summary_cache ${insert({ ...row })}
                ON CONFLICT (digest) DO UPDATE SET namespace = excluded.namespace, schema_version = excluded.schema_version,
                  model = excluded.model, summary = excluded.summary, bytes = excluded.bytes,
                  created_at = excluded.created_at, used_at = excluded.used_at
                WHERE summary_cache.used_at < ${oldest}${
    replacing === undefined ? sql`` : sql` OR summary_cache.summary = ${replacing}`
  }
                RETURNING digest`
