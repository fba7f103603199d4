/**
 * A program run as a process of its own by `test-effect4/test/sqlite.test.ts`: it opens the
 * folder named by its first argument through the Effect 4 face's `Production.layerSqlite`, and
 * prints as JSON the stored state of session `s1` (encoded, or null) and the cached summary of
 * the key given as JSON by its second argument (or null).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Production from "../../../src/face/layers/Production.js"
import * as CompactionStore from "../../../src/face/services/CompactionStore.js"
import * as SummaryCache from "../../../src/face/services/SummaryCache.js"

const [directory, keyJson] = process.argv.slice(2)

const program = Effect.gen(function*() {
  const store = yield* CompactionStore.CompactionStore
  const cache = yield* SummaryCache.SummaryCache
  const state = yield* store.load("s1")
  const summary = yield* cache.lookup(JSON.parse(keyJson!))
  return {
    state: Option.getOrNull(Option.map(state, Schema.encodeSync(CompactionStore.CompactionState))),
    summary: Option.getOrNull(summary)
  }
}).pipe(Effect.provide(Production.layerSqlite({ directory: directory! })))

process.stdout.write(JSON.stringify(await Effect.runPromise(program)))
