// A property over the fake layers, run in the application itself with Effect 4's own property
// checker (effect/Arbitrary: drawn from a Schema, shrunk on failure): over any sequence of versioned
// saves, the memory store of /effect4/layers saves exactly when nothing is stored or the stored state
// has the expected compactions, and keeps the last one saved (issue 32's must-hold, "a property test
// over fake layers"). Effect 4 only: Effect 3 has no such checker in `effect`.
export const faces = ["effect4"]

export const run = async (load) => {
  const { Arbitrary, Effect, Option, Schema } = await import("effect")
  const { Transcript } = await load("")
  const { CompactionStore } = await load("services")
  const { CompactionStoreMemory } = await load("layers")
  const stateWith = (compactions) =>
    new CompactionStore.CompactionState({
      sessionId: "s1",
      compactions,
      block: new Transcript.CompactedBlock({ id: "b", content: "summary", firstReplacedId: "m1", lastReplacedId: "m9" }),
      boundaryId: "m10",
      pinnedIds: [],
      cutMessages: [],
      updatedAt: 1_700_000_000_000
    })
  const small = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 }))
  const saves = Arbitrary.schema(Schema.Array(Schema.Tuple([small, small])))
  let runs = 0
  const property = (sequence) =>
    Effect.gen(function*() {
      runs++
      const store = yield* CompactionStore.CompactionStore
      let stored
      for (const [compactions, expected] of sequence) {
        const outcome = yield* store.saveIfCurrent(stateWith(compactions), expected)
        const shouldSave = stored === undefined || stored === expected
        if (shouldSave !== (outcome._tag === "Saved")) return false
        if (shouldSave) stored = compactions
        else if (outcome.current.compactions !== stored) return false
      }
      const loaded = yield* store.load("s1")
      return Option.getOrUndefined(Option.map(loaded, (state) => state.compactions)) === stored
    }).pipe(Effect.provide(CompactionStoreMemory.layer))
  const result = await Effect.runPromise(Arbitrary.checkEffect(saves, property))
  return { outcome: result._tag, failure: Arbitrary.formatCheckFailure(result) ?? null, ranSome: runs > 10 }
}

export const expected = { outcome: "Passed", failure: null, ranSome: true }
