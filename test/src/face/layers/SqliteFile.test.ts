/**
 * The SQLite file layer of Effect 3 (better-sqlite3): what it says when the addon cannot be loaded.
 * On Effect 3 only: Effect 4's SQLite is Node's own `node:sqlite` (src/effect4/layers/sql/SqliteNode.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as SqliteFile from "../../../../src/face/layers/sql/SqliteFile.js"

describe("SQLite as installed", () => {
  it("an addon that is not built is one line naming the rebuild; other failures are left as they are", () => {
    const unbuilt = SqliteFile.installProblemOf(
      "Could not locate the bindings file. Tried:\n → /app/node_modules/better-sqlite3/build/better_sqlite3.node"
    )
    assert.strictEqual(
      unbuilt,
      "better-sqlite3 is installed but its native module is not built (installed with --ignore-scripts?): npm rebuild better-sqlite3"
    )
    assert.include(
      SqliteFile.installProblemOf(
        "The module '/app/better_sqlite3.node' was compiled against a different Node.js version"
      ) ?? "",
      "npm rebuild better-sqlite3"
    )
    assert.isUndefined(SqliteFile.installProblemOf("SQLITE_BUSY: database is locked"))
  })
})
