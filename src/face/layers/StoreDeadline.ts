/**
 * A deadline on every call of the stores a layer gives: the compaction-state
 * store and the sessions' memory, the summary cache and the transcript
 * archive. A database that is locked or stalled (a table held by another
 * connection, a server that stopped answering) otherwise holds each request
 * as long as it stalls; past the deadline a call is a failure of its store,
 * as a stopped database's would be: the compaction store's a `StoreError`
 * (the engine's `CompactionError` with reason `"store"`, which the proxy
 * passes through uncompacted), the cache's a miss or a skipped store, the
 * archive's an `ArchiveError` (the engine goes on without it). Each one
 * logs a warning. A store that missed a deadline is not waited for again
 * until one more deadline has passed (its calls fail at once meanwhile), so
 * a request that makes several calls of a stalled store waits one deadline,
 * not one for each. The deadline interrupts the call (a PostgreSQL query is
 * cancelled); a SQLite call runs on the event loop and is bounded by the
 * file's busy timeout instead, which `Production.layerSqlite` sets to the
 * same deadline.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { dual } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as CompactionStore from "../services/CompactionStore.js"
import * as SummaryCache from "../services/SummaryCache.js"
import * as TranscriptArchive from "../services/TranscriptArchive.js"

/**
 * The deadline of a store call when none is given: 3 seconds, far above a
 * healthy database's milliseconds and far below a client's patience.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.seconds(3)

/**
 * The deadline of the stores of one database, as their calls share it: a
 * call, or once the deadline has passed without its answer (the call
 * interrupted), a warning that says what was not done and what the call
 * gives instead, made of the reason.
 *
 * @since 0.1.0
 * @category models
 */
export interface Deadline {
  readonly timeout: Duration.Duration
  readonly answering: <B, E>(
    what: string,
    instead: (reason: string) => Effect.Effect<B, E>
  ) => <A, E1>(call: Effect.Effect<A, E1>) => Effect.Effect<A | B, E | E1>
}

/**
 * A deadline of `timeout` for the calls of one store, or of the stores of one
 * database: past it, the stores count as stalled for one more `timeout`, and
 * a call made meanwhile is not waited for.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (timeout: Compat.DurationInput): Deadline => {
  const deadline = Compat.durationFromInput(timeout)
  const missed = `the store did not answer within ${Duration.format(deadline)}`
  // Until when the store counts as stalled (epoch milliseconds): the last deadline missed, and one more.
  let stalledUntil = 0
  const answering =
    <B, E>(what: string, instead: (reason: string) => Effect.Effect<B, E>) =>
    <A, E1>(call: Effect.Effect<A, E1>): Effect.Effect<A | B, E | E1> =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<A | B, E | E1> => {
        const insteadOf = (reason: string) =>
          Effect.andThen(Effect.logWarning(`context-compressor: ${what}: ${reason}`), instead(reason))
        if (now < stalledUntil) return insteadOf(`${missed} a moment ago`)
        // Interruptible even where its caller is not (the HTTP server runs its handlers uninterruptibly): else the
        // deadline would wait for the call it ends.
        return Effect.flatMap(
          Effect.timeoutOption(Effect.interruptible(call), deadline),
          (answer): Effect.Effect<A | B, E | E1> =>
            Option.isSome(answer)
              ? Effect.succeed(answer.value)
              : Effect.flatMap(Clock.currentTimeMillis, (missedAt) => {
                stalledUntil = Math.max(stalledUntil, missedAt + Duration.toMillis(deadline))
                return insteadOf(missed)
              })
        )
      })
  return { timeout: deadline, answering }
}

/**
 * A compaction-state store whose every call (the states' and the sessions'
 * memory's) fails with a `StoreError` once the deadline has passed without an answer.
 *
 * @since 0.1.0
 * @category combinators
 */
export const compactionStore = (store: CompactionStore.Service, deadline: Deadline): CompactionStore.Service => {
  const within = (sessionId: string, doing: string) =>
    deadline.answering(
      `session ${sessionId}: ${doing}`,
      (reason) => Effect.fail(new CompactionStore.StoreError({ sessionId, reason }))
    )
  const memory = store.memory
  return CompactionStore.CompactionStore.of({
    load: (sessionId) => within(sessionId, "its state was not loaded")(store.load(sessionId)),
    save: (state) => within(state.sessionId, "its state was not saved")(store.save(state)),
    saveIfCurrent: (state, expected) =>
      within(state.sessionId, "its state was not saved")(store.saveIfCurrent(state, expected)),
    ...(memory === undefined ? {} : {
      memory: {
        load: (sessionId) => within(sessionId, "its memory was not loaded")(memory.load(sessionId)),
        save: (sessionId, version, text) =>
          within(sessionId, "its memory was not saved")(memory.save(sessionId, version, text)),
        report: (sessionId, report) =>
          within(sessionId, "its reported tokens were not saved")(memory.report(sessionId, report)),
        reported: (sessionId) => within(sessionId, "its reported tokens were not read")(memory.reported(sessionId))
      }
    })
  })
}

/**
 * A summary cache whose lookups miss, and whose stores are skipped, once the
 * deadline has passed without an answer: a cache never fails a compaction.
 *
 * @since 0.1.0
 * @category combinators
 */
export const summaryCache = (cache: SummaryCache.Service, deadline: Deadline): SummaryCache.Service =>
  SummaryCache.SummaryCache.of({
    lookup: (key) =>
      deadline.answering("the summary cache's lookup missed", () => Effect.succeed(Option.none<string>()))(
        cache.lookup(key)
      ),
    store: (key, summary, options) =>
      deadline.answering("a summary was not cached", () => Effect.void)(cache.store(key, summary, options))
  })

/**
 * A transcript archive whose writes and lookups fail with an `ArchiveError`
 * once the deadline has passed without an answer.
 *
 * @since 0.1.0
 * @category combinators
 */
export const transcriptArchive = (
  archive: TranscriptArchive.Service,
  deadline: Deadline
): TranscriptArchive.Service => {
  const within = (sessionId: string, path: string, doing: string) =>
    deadline.answering(
      `session ${sessionId}: ${doing}`,
      (reason) => Effect.fail(new TranscriptArchive.ArchiveError({ sessionId, path, reason }))
    )
  const lookup = archive.lookup
  return TranscriptArchive.TranscriptArchive.of({
    locate: archive.locate,
    write: (entry) =>
      within(entry.sessionId, archive.locate(entry), "its archive was not written")(archive.write(entry)),
    ...(lookup === undefined ? {} : {
      lookup: (sessionId, handle) => within(sessionId, handle, "its archive was not read")(lookup(sessionId, handle))
    })
  })
}

/**
 * Every store `services` gives (a `CompactionStore`, a `SummaryCache`, a
 * `TranscriptArchive`), with one deadline of `timeout` on all their calls
 * (see {@link make}); the other services as they are. `Production.layerSqlite`
 * and `layerPg` give their stores through it.
 *
 * @example
 * ```ts
 * import { Production, StoreDeadline, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 *
 * // The test services, each store call given 500 ms before it counts as the store's failure.
 * const services = Testing.layer().pipe(StoreDeadline.within("500 millis"))
 * export const engine = Production.layerEngine({ engine: { policies: builtInPolicies }, services })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const within: {
  (timeout: Compat.DurationInput): <A, E, R>(services: Layer.Layer<A, E, R>) => Layer.Layer<A, E, R>
  <A, E, R>(services: Layer.Layer<A, E, R>, timeout: Compat.DurationInput): Layer.Layer<A, E, R>
} = dual(
  2,
  <A, E, R>(services: Layer.Layer<A, E, R>, timeout: Compat.DurationInput): Layer.Layer<A, E, R> =>
    Compat.mapLayerContext(services, (context) => {
      const deadline = make(timeout)
      // The context holds only the services of `A`; a tag of it replaced keeps it so.
      let bounded = context as Context.Context<unknown>
      const store = Context.getOption(bounded, CompactionStore.CompactionStore)
      if (Option.isSome(store)) {
        bounded = Context.add(bounded, CompactionStore.CompactionStore, compactionStore(store.value, deadline))
      }
      const cache = Context.getOption(bounded, SummaryCache.SummaryCache)
      if (Option.isSome(cache)) {
        bounded = Context.add(bounded, SummaryCache.SummaryCache, summaryCache(cache.value, deadline))
      }
      const archive = Context.getOption(bounded, TranscriptArchive.TranscriptArchive)
      if (Option.isSome(archive)) {
        bounded = Context.add(bounded, TranscriptArchive.TranscriptArchive, transcriptArchive(archive.value, deadline))
      }
      return bounded as Context.Context<A>
    })
)
