import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code })

describe("SqlMigrations.retryTransient", () => {
  it("a race of processes opening one new file is transient; a missing table or a constraint is not", () => {
    assert.isTrue(
      SqlMigrations.isTransient(
        TestCompat.sqlError("Failed to prepare statement", sqliteError("SQLITE_ERROR", "no such table: x"))
      )
    )
    assert.isTrue(
      SqlMigrations.isTransient(
        TestCompat.sqlError("Failed to execute statement", sqliteError("SQLITE_BUSY_SNAPSHOT", "database is locked"))
      )
    )
    assert.isFalse(
      SqlMigrations.isTransient(
        TestCompat.sqlError(
          "Failed to execute statement",
          sqliteError("SQLITE_CONSTRAINT_PRIMARYKEY", "UNIQUE constraint failed")
        )
      )
    )
    // a statement that ran has had the busy timeout to wait for a file another process holds: no more waiting
    assert.isFalse(
      SqlMigrations.isTransient(
        TestCompat.sqlError("Failed to execute statement", sqliteError("SQLITE_BUSY", "database is locked"))
      )
    )
    // one that could not be prepared met another process's schema change, busy at once
    assert.isTrue(
      SqlMigrations.isTransient(
        TestCompat.sqlError("Failed to prepare statement", sqliteError("SQLITE_BUSY", "database is locked"))
      )
    )
  })

  it.live("retries a transient failure until it passes, and gives up on another at once", () =>
    Effect.gen(function*() {
      let tries = 0
      const flaky = Effect.suspend(() =>
        ++tries < 3
          ? Effect.fail(
            TestCompat.sqlError(
              "Failed to prepare statement",
              sqliteError("SQLITE_SCHEMA", "database schema has changed")
            )
          )
          : Effect.succeed("read")
      )
      assert.strictEqual(yield* SqlMigrations.retryTransient(flaky).pipe(Effect.orDie), "read")
      assert.strictEqual(tries, 3)
      let once = 0
      const broken = Effect.suspend(
        () => (once++,
          Effect.fail(
            TestCompat.sqlError("Failed to execute statement", sqliteError("SQLITE_CONSTRAINT", "constraint failed"))
          ))
      )
      yield* Compat.result(SqlMigrations.retryTransient(broken))
      assert.strictEqual(once, 1)
      // A race that never ends: the first attempt and 6 retries, then its failure.
      let always = 0
      const locked = Effect.suspend(
        () => (always++,
          Effect.fail(TestCompat.sqlError("Failed to prepare statement", sqliteError("SQLITE_LOCKED", "locked"))))
      )
      const ended = yield* Compat.result(SqlMigrations.retryTransient(locked))
      assert.isTrue(TestCompat.isFailure(ended))
      assert.strictEqual(always, 7)
    }))
})
