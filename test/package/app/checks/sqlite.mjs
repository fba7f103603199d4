// State persisted to SQLite through /effect4/layers' Production.layerSqlite (node:sqlite, nothing
// native installed) and read back the same by a new process (sqlite-read.mjs) opening the same
// folder (issue 32's must-hold). Effect 4 only: on Effect 3 the SQLite layers need better-sqlite3,
// which an install with --ignore-scripts leaves without its binary.
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

export const faces = ["effect4"]

export const run = async (load) => {
  const { Effect, Schema } = await import("effect")
  const { Transcript } = await load("")
  const { CompactionStore } = await load("services")
  const { Production } = await load("layers")
  const directory = mkdtempSync(join(tmpdir(), "effect4-app-sqlite-"))
  try {
    const state = new CompactionStore.CompactionState({
      sessionId: "s1",
      compactions: 2,
      block: new Transcript.CompactedBlock({ id: "b", content: "summary 2", firstReplacedId: "m1", lastReplacedId: "m9" }),
      boundaryId: "m10",
      pinnedIds: ["m2"],
      cutMessages: [new Transcript.UserMessage({ id: "m3", content: "Fix the parser." })],
      updatedAt: 1_700_000_000_000
    })
    const saved = await Effect.runPromise(
      Effect.gen(function*() {
        const store = yield* CompactionStore.CompactionStore
        const first = yield* store.saveIfCurrent(state, 0)
        return first._tag
      }).pipe(Effect.provide(Production.layerSqlite({ directory })))
    )
    const reader = fileURLToPath(new URL("../sqlite-read.mjs", import.meta.url))
    const read = JSON.parse(execFileSync(process.execPath, [reader, directory], { encoding: "utf8" }))
    return { saved, sameInNewProcess: JSON.stringify(read) === JSON.stringify(Schema.encodeSync(CompactionStore.CompactionState)(state)), read }
  } finally {
    rmSync(directory, { recursive: true, force: true })
  }
}

export const expected = {
  saved: "Saved",
  sameInNewProcess: true,
  read: {
    sessionId: "s1",
    compactions: 2,
    block: { _tag: "Compacted", id: "b", content: "summary 2", firstReplacedId: "m1", lastReplacedId: "m9" },
    boundaryId: "m10",
    pinnedIds: ["m2"],
    cutMessages: [{ _tag: "User", id: "m3", content: "Fix the parser." }],
    updatedAt: 1_700_000_000_000
  }
}
