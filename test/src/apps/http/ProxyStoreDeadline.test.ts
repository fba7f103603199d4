/**
 * A database that is locked or stalled holds no request past the store's
 * deadline (issue 43): with the state tables locked by another connection
 * (PostgreSQL's ACCESS EXCLUSIVE lock, SQLite's exclusive transaction), a
 * proxied request goes on uncompacted within the deadline and a margin, the
 * reason in its report header and a warning logged; `serve`'s compaction
 * answers 500 as soon. Once the lock is gone the next request compacts again.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import * as TestCompat from "#test-compat"
import { assert } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Server from "../../../../src/apps/http/HttpServer.js"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const repository = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const session: ReadonlyArray<any> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The deadline the tests give the store, and what an answer may take beyond it. */
const deadlineMs = 1_000
const marginMs = 1_500

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

const folder = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-deadline-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The proxy as `proxy --store-timeout 1s` builds it, on the database of `url` or the folder's SQLite; its warnings recorded. */
const worker = (
  fake: FakeUpstream.FakeUpstream,
  where: { readonly databaseUrl: string } | { readonly directory: string }
) =>
  Effect.gen(function*() {
    const warnings: Array<string> = []
    const recorder = Logger.make(({ message }) => {
      warnings.push((Array.isArray(message) ? message : [message]).map(String).join(" "))
    })
    const directory = "directory" in where ? where.directory : yield* folder
    const options = {
      upstream: fake.url,
      window: 16_000,
      directory,
      env: () => ({}),
      storeTimeout: `${deadlineMs} millis` as const,
      ...("databaseUrl" in where ? { databaseUrl: where.databaseUrl } : {})
    }
    const server = Proxy.layer(options).pipe(
      Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(Server.layerEngine(options)),
      Layer.provide(Compat.nodeHttpClient),
      Layer.provide(TestCompat.replaceLogger(recorder))
    )
    const address = HttpCompat.tcpAddress(
      Context.get(yield* Layer.build(Layer.orDie(server)), HttpCompat.HttpServer.HttpServer).address
    )
    if (address === undefined) throw new Error("not a TCP address")
    return { base: `http://127.0.0.1:${address.port}`, warnings }
  })

/** A chat request of the session's first `count` messages, how long its answer took, and the report header. */
const post = (base: string, sessionId: string, count: number) =>
  Effect.promise(async () => {
    const started = performance.now()
    const body = JSON.stringify({ model: "gpt-test", messages: session.slice(0, count) })
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", [Proxy.sessionHeader]: sessionId },
      body
    })
    const text = await response.text()
    return {
      status: response.status,
      report: response.headers.get(Proxy.reportHeader) ?? "",
      text,
      body,
      elapsedMs: performance.now() - started
    }
  })

const pg = <A extends object>(url: string, statement: string) =>
  Effect.flatMap(Compat.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(
    Effect.provide(TestCompat.pgClient(url)),
    Effect.orDie
  )

/**
 * The lock, from a connection of its own: the state tables held in
 * ACCESS EXCLUSIVE mode until the scope closes (its statement then cancelled).
 */
const lockPg = (url: string) =>
  Effect.gen(function*() {
    // One statement at a time in the transaction: Effect 4's PostgreSQL client prepares every statement, and a
    // prepared statement holds one command.
    const holder = yield* TestCompat.forkChild(
      Effect.flatMap(Compat.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.andThen(
            sql.unsafe("LOCK TABLE compaction_state, session_memory IN ACCESS EXCLUSIVE MODE"),
            sql.unsafe("SELECT pg_sleep(120)")
          )
        )).pipe(Effect.provide(TestCompat.pgClient(url)), Effect.ignore)
    )
    yield* Effect.addFinalizer(() =>
      pg(
        url,
        "SELECT pg_cancel_backend(pid) FROM pg_stat_activity " +
          "WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE '%pg_sleep(120)%'"
      ).pipe(Effect.andThen(Fiber.await(holder)))
    )
    // Held once PostgreSQL says it is granted.
    for (let tries = 0; tries < 100; tries++) {
      const held = yield* pg<{ readonly held: number }>(
        url,
        "SELECT COUNT(*)::int AS held FROM pg_locks WHERE granted AND mode = 'AccessExclusiveLock' " +
          "AND relation IN ('compaction_state'::regclass, 'session_memory'::regclass)"
      )
      if (Number(held[0]!.held) === 2) return
      yield* Effect.sleep("50 millis")
    }
    throw new Error("the lock was not granted")
  })

/** What {@link post} answers. */
type PostAnswer = ReturnType<typeof post> extends Effect.Effect<infer A, infer _E, infer _R> ? A : never

/** A pass-through for the store's failure (`reason`), told in time. */
const assertPassedThrough = (
  answer: PostAnswer,
  fake: FakeUpstream.FakeUpstream,
  reason: RegExp
) => {
  assert.strictEqual(answer.status, 200, answer.text)
  assert.match(answer.report, /^passed-through; reason=compaction failed \(store\): /, answer.report)
  assert.match(answer.report, reason)
  assert.strictEqual(fake.received.at(-1)!.text, answer.body, "the upstream got the body as it came")
  assert.isBelow(answer.elapsedMs, deadlineMs + marginMs, `the answer took ${Math.round(answer.elapsedMs)} ms`)
}

SqlDatabases.describeOn(SqlDatabases.postgres, "the proxy with its state tables locked", () => {
  it.scopedLive("a request goes on uncompacted within the store's deadline, the reason in its header, a warning logged; then compacts again", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const { url } = yield* SqlDatabases.postgres.database
      const proxy = yield* worker(fake, { databaseUrl: url })
      const before = yield* post(proxy.base, "locked", 200)
      assert.match(before.report, /^compacted;/, before.report)
      const locked = yield* Effect.scoped(Effect.andThen(lockPg(url), post(proxy.base, "locked", 201)))
      assertPassedThrough(locked, fake, /the store did not answer within 1s/)
      assert.isTrue(
        proxy.warnings.some((line) => line.includes("sent uncompacted") && line.includes("did not answer within 1s")),
        proxy.warnings.join("\n")
      )
      // A store that missed its deadline is tried again once one more deadline has passed.
      yield* Effect.sleep(deadlineMs)
      const after = yield* post(proxy.base, "locked", 202)
      assert.match(after.report, /^restored; from=saved-compaction;/, after.report)
    }))
})

SqlDatabases.describeOn(SqlDatabases.sqlite, "the proxy with its state database locked", () => {
  it.scopedLive("a request goes on uncompacted within the store's deadline while another connection holds an exclusive transaction", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const directory = yield* folder
      const proxy = yield* worker(fake, { directory })
      const before = yield* post(proxy.base, "locked", 200)
      assert.match(before.report, /^compacted;/, before.report)
      // Another connection's exclusive transaction: SQLite's one writer, until the scope closes.
      const holder = Context.get(
        yield* Layer.build(TestCompat.sqliteClient(NodePath.join(directory, "state.db"))),
        Compat.SqlClient
      )
      yield* holder.unsafe("BEGIN EXCLUSIVE")
      // A compaction of a longer history must save its state: the write waits for the lock.
      const locked = yield* post(proxy.base, "locked", 320).pipe(
        Effect.ensuring(Effect.orDie(holder.unsafe("ROLLBACK")))
      )
      // better-sqlite3 waits on the event loop, where no deadline can end it: the busy timeout, set to the deadline, does.
      assertPassedThrough(locked, fake, /database is locked/)
    }))
})
