/**
 * A history edited to the same length, after the engine saw (and compacted)
 * it, gives a view with the new text and never the old, through the Promise
 * API: memory, SQLite and PostgreSQL stores, one worker and two alternating
 * ones, and an edit inside the compacted span (the Promise API bundles Effect
 * 3 by design: Effect 3 only; the other ways are EditedHistory.test.ts).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import { afterAll, beforeAll } from "vitest"
import * as CompactorPromise from "../../../../src/apps/promise/index.js"
import * as EditedHistories from "../../../support/EditedHistories.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

describe("an edited history, through the Promise API", () => {
  const compactors: Array<CompactorPromise.Compactor> = []
  const directory = EditedHistories.folder()
  const open = async (options: Parameters<typeof CompactorPromise.createCompactor>[0]) => {
    const compactor = await CompactorPromise.createCompactor(options)
    compactors.push(compactor)
    return (messages: ReadonlyArray<any>, sessionId: string, window: number) =>
      compactor.compact(messages as Array<any>, { sessionId, contextWindow: window }).then((result) =>
        result.messages as ReadonlyArray<any>
      )
  }
  const ways: Record<string, Array<Awaited<ReturnType<typeof open>>>> = {}
  beforeAll(async () => {
    ways["memory"] = [await open({})]
    ways["SQLite, one worker"] = [await open({ directory })]
    ways["SQLite, two workers alternating"] = [ways["SQLite, one worker"][0]!, await open({ directory })]
  })
  afterAll(async () => {
    await Promise.all(compactors.map((compactor) => compactor.close()))
    Fs.rmSync(directory, { recursive: true, force: true })
  })

  for (const way of ["memory", "SQLite, one worker", "SQLite, two workers alternating"]) {
    it.effect.prop(
      `${way}: the view of a history edited to the same length carries the new text, never the old`,
      [EditedHistories.edited()],
      ([edit]) =>
        Effect.promise(() => EditedHistories.callsOf(ways[way]!, edit)).pipe(
          Effect.map((view) => EditedHistories.holds(view, edit))
        ),
      { fastCheck: { numRuns: 25 } }
    )
  }
})

describe.skipIf(SqlDatabases.postgres.skip !== undefined)(
  `an edited history on PostgreSQL${
    SqlDatabases.postgres.skip === undefined ? "" : ` (skipped: ${SqlDatabases.postgres.skip})`
  }`,
  () => {
    const compactors: Array<CompactorPromise.Compactor> = []
    const workers: Array<
      (messages: ReadonlyArray<any>, sessionId: string, window: number) => Promise<ReadonlyArray<any>>
    > = []
    beforeAll(async () => {
      for (let i = 0; i < 2; i++) {
        const compactor = await CompactorPromise.createCompactor({ databaseUrl: SqlDatabases.postgres.url! })
        compactors.push(compactor)
        workers.push((messages, sessionId, window) =>
          compactor.compact(messages as Array<any>, { sessionId, contextWindow: window }).then((result) =>
            result.messages as ReadonlyArray<any>
          )
        )
      }
    })
    afterAll(() => Promise.all(compactors.map((compactor) => compactor.close())))

    it.effect.prop(
      "one worker: the view of a history edited to the same length carries the new text, never the old",
      [EditedHistories.edited()],
      ([edit]) =>
        Effect.promise(() => EditedHistories.callsOf([workers[0]!], edit)).pipe(
          Effect.map((view) => EditedHistories.holds(view, edit))
        ),
      { fastCheck: { numRuns: 15 } }
    )
    it.effect.prop(
      "two workers alternating: the view of a history edited to the same length carries the new text, never the old",
      [EditedHistories.edited()],
      ([edit]) =>
        Effect.promise(() => EditedHistories.callsOf(workers, edit)).pipe(
          Effect.map((view) => EditedHistories.holds(view, edit))
        ),
      { fastCheck: { numRuns: 15 } }
    )
  }
)

describe("an edit inside the compacted span", () => {
  it.effect("compacts again on the next call, from the new text: the block quotes the user's new words, never the old", () =>
    Effect.promise(async () => {
      const directory = EditedHistories.folder()
      const workers = [
        await CompactorPromise.createCompactor({ directory }),
        await CompactorPromise.createCompactor({ directory })
      ]
      try {
        const turns = Array.from({ length: 30 }, (_, t) => ({ words: 12, output: 150, tool: t % 2 === 0 }))
        const before = EditedHistories.historyOf(turns, [
          "0a1b2c3d",
          "4e5f6a7b",
          "8c9d0e1f",
          "2a3b4c5d",
          "6e7f8a9b",
          "0c1d2e3f",
          "4a5b6c7d"
        ])
        const first = await workers[0]!.compact(before, { sessionId: "span", contextWindow: 3_000 })
        assert.isDefined(first.report, "the history was not compacted")
        // A user message the block replaced (not the first, which stays pinned verbatim).
        const replaced = first.report!.replaced
        const index = before.findIndex((message, at) =>
          at > 1 && message.role === "user" && at < before.length - 10 &&
          JSON.stringify(first.messages).includes(EditedHistories.markerOf(message)!)
        )
        assert.isAbove(index, 1, `no user message of the span is quoted in the block (${JSON.stringify(replaced)})`)
        const oldMarker = EditedHistories.markerOf(before[index])!
        const newMarker = `${oldMarker.slice(0, -8)}ffffffff`
        const after = EditedHistories.withMarker(before, index, newMarker)
        for (const worker of [workers[1]!, workers[0]!]) {
          const again = await worker.compact(after, { sessionId: "span", contextWindow: 3_000 })
          assert.notInclude(JSON.stringify(again.messages), oldMarker)
          assert.include(JSON.stringify(again.messages), newMarker)
        }
      } finally {
        await Promise.all(workers.map((worker) => worker.close()))
        Fs.rmSync(directory, { recursive: true, force: true })
      }
    }))
})
