// Run by checks/sqlite.mjs as a new process: opens the folder named by its argument through
// /effect4/layers' Production.layerSqlite and prints session s1's stored state, encoded, as JSON.
import { Effect, Option, Schema } from "effect"
import { Production } from "context-compressor/effect4/layers"
import { CompactionStore } from "context-compressor/effect4/services"

const program = Effect.gen(function*() {
  const store = yield* CompactionStore.CompactionStore
  const state = yield* store.load("s1")
  return Option.getOrNull(Option.map(state, Schema.encodeSync(CompactionStore.CompactionState)))
}).pipe(Effect.provide(Production.layerSqlite({ directory: process.argv[2] })))

process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
