/**
 * The compaction-state store on SQL: what `CompactionStoreSql` does with its
 * database. A state is
 * one row of the JSON its codec encodes (refused at save when it would not
 * decode from it); a load checks the row's text and session; a versioned save
 * is one conditional upsert, and when nothing was written the stored state is
 * the conflict, or the save is tried again when the row in the way went
 * meanwhile; the sessions' memory and reported tokens are rows of their own.
 * The layer gives it a {@link Database} (its statements, failing with its
 * `StoreError`) and a `StoreRules.Codec`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as SqlStatements from "../../../core/services/SqlStatements.js"
import * as StoreRules from "./StoreRules.js"

/**
 * What the layer gives the store of its database, its statements failing with `E`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Database<E> {
  /**
   * Runs a statement for `sessionId`; its rows. Opening the database or the
   * statement failing fails with the layer's `StoreError`, its reason `doing`
   * (`reading from`, `writing to`) the store's place and the cause.
   */
  readonly run: <Row extends object>(
    sessionId: string,
    doing: string,
    statement: SqlStatements.Statement,
    options?: { readonly transaction?: boolean }
  ) => Effect.Effect<ReadonlyArray<Row>, E>
  /** How the failures name the store's place: the file's path, or `the SQL database`. */
  readonly where: string
}

/**
 * A session's memory between checkpoints, as stored.
 *
 * @since 0.1.0
 * @category models
 */
export interface StoredMemory {
  readonly version: string
  readonly memory: string
  readonly reportedTokens: number | undefined
}

/**
 * The prompt tokens a provider reported for a session's last request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reported {
  readonly tokens: number
  readonly basis: string | undefined
}

/**
 * The store's programs.
 *
 * @since 0.1.0
 * @category models
 */
export interface States<State, Outcome, E> {
  readonly load: (sessionId: string) => Effect.Effect<State | undefined, E>
  readonly save: (state: State) => Effect.Effect<void, E>
  readonly saveIfCurrent: (state: State, expected: number) => Effect.Effect<Outcome, E>
  readonly memory: {
    readonly load: (sessionId: string) => Effect.Effect<StoredMemory | undefined, E>
    readonly save: (sessionId: string, version: string, memory: string) => Effect.Effect<void, E>
    readonly report: (
      sessionId: string,
      report: { readonly tokens: number; readonly basis?: string | undefined }
    ) => Effect.Effect<void, E>
    readonly reported: (sessionId: string) => Effect.Effect<Reported | undefined, E>
  }
}

const absent = (value: unknown): value is null | undefined => value === null || value === undefined

/**
 * Why a database cannot keep a session id as it is, none when it can: a lone surrogate (UTF-8 has no encoding of
 * it) or a NUL character.
 *
 * @since 0.1.0
 * @category validation
 */
export const unkeepableReason = (sessionId: string): string | undefined =>
  sessionId.includes("\u0000")
    ? "a NUL character"
    : /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(sessionId)
    ? "a lone surrogate"
    : undefined

/**
 * The store over `database`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <
  State extends { readonly sessionId: string; readonly compactions: number; readonly updatedAt: number },
  Outcome,
  E
>(database: Database<E>, codec: StoreRules.Codec<State, Outcome, E>): States<State, Outcome, E> => {
  const { where } = database
  // A session id the database could not keep apart from another (a lone surrogate is stored as U+FFFD, so two ids
  // would share one row) or keep at all (PostgreSQL's text holds no NUL) is refused, never stored as another.
  const run: Database<E>["run"] = (sessionId, doing, statement, options) => {
    const unkeepable = unkeepableReason(sessionId)
    return unkeepable === undefined
      ? database.run(sessionId, doing, statement, options)
      : Effect.fail(codec.error(sessionId, `the session id cannot be kept in ${where}: it holds ${unkeepable}`))
  }

  const load = (sessionId: string): Effect.Effect<State | undefined, E> =>
    Effect.gen(function*() {
      const rows = yield* run<{ readonly state: unknown }>(
        sessionId,
        "reading from",
        SqlStatements.loadState(sessionId)
      )
      const row = rows[0]
      if (row === undefined) return undefined
      if (typeof row.state !== "string") {
        return yield* Effect.fail(
          codec.error(sessionId, StoreRules.notDecodable(`the state column holds no text (${typeof row.state})`, where))
        )
      }
      const state = yield* StoreRules.decodeState(codec, sessionId, row.state, where)
      if (state.sessionId !== sessionId) {
        return yield* Effect.fail(
          codec.error(sessionId, `stored state in ${where} belongs to session ${JSON.stringify(state.sessionId)}`)
        )
      }
      return state
    })

  /** The row of a state, refused when the state would not decode from its own JSON (it would be lost at load). */
  const rowOf = (state: State) =>
    Effect.gen(function*() {
      const text = yield* StoreRules.encodeState(codec, state)
      return {
        session_id: state.sessionId,
        compactions: state.compactions,
        state: text,
        updated_at: StoreRules.bigintColumn(state.updatedAt)
      }
    })

  const saveIfCurrent = (state: State, expected: number, attempts = 3): Effect.Effect<Outcome, E> =>
    Effect.gen(function*() {
      const { sessionId } = state
      const row = yield* rowOf(state)
      // One statement, atomic on both dialects: PostgreSQL locks the conflicting row and checks the
      // condition on its latest version; SQLite has one writer at a time.
      const written = yield* run<{ readonly session_id: string }>(
        sessionId,
        "writing to",
        SqlStatements.saveStateIfCurrent(row, expected)
      )
      if (written.length > 0) return codec.saved()
      const current = yield* load(sessionId)
      if (current !== undefined) return codec.conflict(current)
      // The row that stood in the way was removed meanwhile: nothing is overwritten by trying again.
      if (attempts > 1) return yield* saveIfCurrent(state, expected, attempts - 1)
      return yield* Effect.fail(codec.error(sessionId, `the state in ${where} kept changing during a versioned save`))
    })

  return {
    load,
    save: (state) =>
      Effect.gen(function*() {
        const row = yield* rowOf(state)
        yield* run(state.sessionId, "writing to", SqlStatements.saveState(row), { transaction: true })
      }),
    saveIfCurrent: (state, expected) => saveIfCurrent(state, expected),
    memory: {
      load: (sessionId) =>
        Effect.gen(function*() {
          const rows = yield* run<
            { readonly version: unknown; readonly memory: unknown; readonly reported_tokens: unknown }
          >(
            sessionId,
            "reading from",
            SqlStatements.loadMemory(sessionId)
          )
          const row = rows[0]
          return row === undefined ? undefined : {
            version: String(row.version),
            memory: String(row.memory),
            reportedTokens: absent(row.reported_tokens) ? undefined : Number(row.reported_tokens)
          }
        }),
      save: (sessionId, version, memory) =>
        Effect.gen(function*() {
          yield* run(sessionId, "writing to", SqlStatements.saveMemory(sessionId, version, memory, Date.now()))
        }),
      report: (sessionId, report) =>
        Effect.gen(function*() {
          yield* run(
            sessionId,
            "writing to",
            SqlStatements.saveReport(
              sessionId,
              StoreRules.bigintColumn(report.tokens),
              report.basis ?? null,
              Date.now()
            )
          )
        }),
      reported: (sessionId) =>
        Effect.gen(function*() {
          const rows = yield* run<{ readonly reported_tokens: unknown; readonly reported_basis: unknown }>(
            sessionId,
            "reading from",
            SqlStatements.loadReport(sessionId)
          )
          const row = rows[0]
          if (row === undefined || absent(row.reported_tokens)) return undefined
          return {
            tokens: Number(row.reported_tokens),
            basis: typeof row.reported_basis === "string" ? row.reported_basis : undefined
          }
        })
    }
  }
}
