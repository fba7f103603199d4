/**
 * Histories that open alike are two sessions: with no session id given, the
 * engine derives one from the opening (`Session.idOf`), and a history that the
 * id's saved compaction was not made from goes to a branch of it
 * (`Session.branchOf`), found by content. Two such histories, their
 * checkpoints interleaved in one engine or over two workers on one store, get
 * the very views each gets alone, and each compacts as often as it does alone.
 */
import * as TestCompat from "#test-compat"
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as OpenAiChat from "../../../../src/face/adapters/OpenAiChat.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Session from "../../../../src/face/engine/Session.js"
import * as CompactionStoreSql from "../../../../src/face/layers/CompactionStoreSql.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as SummarizerScripted from "../../../../src/face/layers/SummarizerScripted.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as CompactionStore from "../../../../src/face/services/CompactionStore.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as EditedHistories from "../../../support/EditedHistories.js"
import { effectProp } from "../../../support/Property.js"

const engine = (archive?: Parameters<typeof Testing.layer>[0]) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer(archive)))

const window = 3_000

/** What a checkpoint gave: its view as OpenAI chat JSON, whether it compacted, and the session it was made in. */
interface Outcome {
  readonly view: string
  readonly compacted: boolean
  readonly sessionId: string | undefined
}

/** One checkpoint of a history, under the id derived from it unless one is named. */
const call = (messages: ReadonlyArray<any>, named?: string, contextWindow = window) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const decoded = yield* OpenAiChat.adapter.decode(messages)
    const sessionId = named ?? Session.idOf(decoded.transcript)
    const checkpoint = yield* compactor.checkpoint({
      sessionId,
      ...(named === undefined ? { sessionIdDerived: true } : {}),
      transcript: decoded.transcript,
      model: "gpt-test",
      contextWindow
    })
    return <Outcome> {
      view: JSON.stringify(decoded.encode(checkpoint.view)),
      compacted: Option.isSome(checkpoint.compacted),
      sessionId: checkpoint.sessionId
    }
  })

type Turns = Parameters<typeof EditedHistories.historyOf>[0]

const turns = fc.array(
  fc.record({
    words: fc.integer({ min: 2, max: 40 }),
    output: fc.integer({ min: 5, max: 400 }),
    tool: fc.boolean()
  }),
  { minLength: 2, maxLength: 14 }
)
const marks = fc.array(fc.stringMatching(/^[0-9a-f]{8}$/), { minLength: 7, maxLength: 7 })

/** Two histories with the same system prompt and first user message; every later message of the second differs. */
const twoHistories = (a: Turns, b: Turns, marksA: ReadonlyArray<string>, marksB: ReadonlyArray<string>) => {
  const first = EditedHistories.historyOf(a, marksA)
  const second = EditedHistories.historyOf(b, marksB).map((message, index) =>
    index < 2
      ? first[index]
      : typeof message.content === "string"
      ? { ...message, content: `${message.content} b` }
      : message
  )
  return [first, second] as const
}

/** The lengths a growing history is sent at: every other message, then whole. */
const growth = (messages: ReadonlyArray<any>): ReadonlyArray<number> => {
  const lengths: Array<number> = []
  for (let length = 2; length < messages.length; length += 2) lengths.push(length)
  lengths.push(messages.length)
  return lengths
}

/**
 * The two histories' checkpoints in the drawn order, the k-th given to `workers[k % workers.length]` (engines
 * as contexts: two are two workers on one store), against each history's own run in a fresh memory engine.
 */
const interleaved = (
  histories: readonly [ReadonlyArray<any>, ReadonlyArray<any>],
  order: ReadonlyArray<boolean>,
  workers: ReadonlyArray<Context.Context<Compactor.Compactor>>
) =>
  Effect.gen(function*() {
    const alone = yield* Effect.forEach(histories, (messages) =>
      Effect.forEach(growth(messages), (length) =>
        call(messages.slice(0, length))).pipe(Effect.provide(engine())))
    const next = [0, 0]
    const together: [Array<Outcome>, Array<Outcome>] = [[], []]
    let turn = 0
    for (let k = 0; next[0]! < alone[0]!.length || next[1]! < alone[1]!.length; k++) {
      const pick = next[0]! >= alone[0]!.length
        ? 1
        : next[1]! >= alone[1]!.length
        ? 0
        : order[turn++ % order.length]
        ? 1
        : 0
      const messages = histories[pick]!
      const outcome = yield* call(messages.slice(0, growth(messages)[next[pick]!]!)).pipe(
        Effect.provide(workers[k % workers.length]!)
      )
      together[pick]!.push(outcome)
      next[pick]!++
    }
    for (const h of [0, 1] as const) {
      assert.deepStrictEqual(
        together[h]!.map(({ view }) =>
          view
        ),
        alone[h]!.map(({ view }) => view)
      )
      assert.strictEqual(
        together[h]!.filter(({ compacted }) => compacted).length,
        alone[h]!.filter(({ compacted }) => compacted).length
      )
    }
  })

/** An engine on the SQLite file `filename` (its store and the sessions' memory there), as one worker of a fleet. */
const workerOn = (filename: string) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(Testing.layer({
      store: Layer.merge(CompactionStoreSql.layer, Layer.effectDiscard(Effect.orDie(SqlMigrations.run))).pipe(
        Layer.provide(TestCompat.sqliteClient(filename))
      )
    }))
  )

describe("histories that open alike", () => {
  const drawn = [turns, turns, marks, marks, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 })] as const

  effectProp(
    "interleaved in one engine, each gets the views it gets alone, and compacts as often",
    drawn,
    ([turnsA, turnsB, marksA, marksB, order]) =>
      Effect.scoped(Effect.gen(function*() {
        const one = yield* Layer.build(engine())
        yield* interleaved(twoHistories(turnsA, turnsB, marksA, marksB), order, [one])
      })),
    { fastCheck: { numRuns: 25 } }
  )

  effectProp(
    "interleaved over two workers taking turns on one SQLite file, each gets the views it gets alone",
    drawn,
    ([turnsA, turnsB, marksA, marksB, order]) =>
      Effect.scoped(Effect.gen(function*() {
        const directory = yield* Effect.acquireRelease(
          Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-branches-"))),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const filename = NodePath.join(directory, "state.db")
        const first = yield* Layer.build(workerOn(filename))
        const second = yield* Layer.build(workerOn(filename))
        yield* interleaved(twoHistories(turnsA, turnsB, marksA, marksB), order, [first, second])
      })),
    { fastCheck: { numRuns: 8 } }
  )

  const pair = twoHistories(
    Array.from({ length: 12 }, (_, t) => ({ words: 20, output: 300, tool: t % 3 !== 2 })),
    Array.from({ length: 12 }, (_, t) => ({ words: 24, output: 280, tool: t % 3 !== 1 })),
    ["00000001", "00000002", "00000003", "00000004", "00000005", "00000006", "00000007"],
    ["0000000a", "0000000b", "0000000c", "0000000d", "0000000e", "0000000f", "00000010"]
  )

  it.effect("the second is kept under a branch of the derived id, and the first's saved state stands", () =>
    Effect.gen(function*() {
      const [a, b] = pair
      const first = yield* call(a)
      const second = yield* call(b)
      const derived = Session.idOf((yield* OpenAiChat.adapter.decode(a)).transcript)
      assert.isTrue(first.compacted)
      assert.isTrue(second.compacted)
      assert.strictEqual(first.sessionId, derived)
      assert.strictEqual(second.sessionId, Session.branchOf(derived, 1))
      const store = yield* CompactionStore.CompactionStore
      assert.isTrue(Option.isSome(yield* store.load(derived)))
      assert.isTrue(Option.isSome(yield* store.load(Session.branchOf(derived, 1))))
      // Sent again, each restores its own compaction: nothing compacts.
      for (const messages of [a, b, a, b]) {
        const again = yield* call(messages)
        assert.isFalse(again.compacted)
        assert.strictEqual(again.view, (messages === a ? first : second).view)
      }
    }).pipe(Effect.provide(engine())))

  it.live("while the second compacts under its branch, the first goes on: the derived id's lock is not held meanwhile", () =>
    Effect.gen(function*() {
      const [a, b] = pair
      const entered = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      // A summariser that holds the second history's summary until released (its marks are 0000000a…).
      const summarizer = Layer.succeed(
        Summarizer.Summarizer,
        Summarizer.Summarizer.of({
          identity: SummarizerScripted.identity,
          summarize: (request) =>
            JSON.stringify(request).includes("0000000c")
              ? Effect.as(
                Effect.andThen(Deferred.succeed(entered, undefined), Deferred.await(release)),
                "## Goal\nFix the second run.\n"
              )
              : Effect.succeed("## Goal\nFix the first run.\n")
        })
      )
      const workers = yield* Layer.build(
        Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer({ summarizer })))
      )
      const inWorker = <A, E>(self: Effect.Effect<A, E, Compactor.Compactor>) => Effect.provide(self, workers)
      assert.isTrue((yield* inWorker(call(a))).compacted)
      const second = yield* TestCompat.forkChild(inWorker(call(b)))
      yield* Deferred.await(entered)
      // The first history's next checkpoint, within 10 s while the second's summary is held.
      const first = yield* inWorker(call(a)).pipe(Effect.timeoutOption("10 seconds"))
      assert.isTrue(Option.isSome(first), "the first history waited for the second's compaction")
      assert.isFalse(Option.getOrThrow(first).compacted)
      yield* Deferred.succeed(release, undefined)
      const done = yield* Fiber.join(second)
      assert.isTrue(done.compacted)
      assert.strictEqual(
        done.sessionId,
        Session.branchOf(Session.idOf((yield* OpenAiChat.adapter.decode(b)).transcript), 1)
      )
    }).pipe(Effect.scoped))

  it.effect("a named id is the caller's word: another history under it compacts again, over the saved state", () =>
    Effect.gen(function*() {
      const [a, b] = pair
      const outcomes = []
      for (const messages of [a, b, a, b]) outcomes.push(yield* call(messages, "named-task"))
      assert.deepStrictEqual(outcomes.map(({ compacted }) => compacted), [true, true, true, true])
      assert.deepStrictEqual(outcomes.map(({ sessionId }) => sessionId), Array(4).fill("named-task"))
    }).pipe(Effect.provide(engine())))

  it.effect("a handle of the branch's block is recalled through the derived id", () =>
    Effect.gen(function*() {
      const [a, b] = twoHistories(
        Array.from({ length: 40 }, () => ({ words: 20, output: 300, tool: true })),
        Array.from({ length: 40 }, () => ({ words: 24, output: 280, tool: true })),
        ["00000001", "00000002", "00000003", "00000004", "00000005", "00000006", "00000007"],
        ["0000000a", "0000000b", "0000000c", "0000000d", "0000000e", "0000000f", "00000010"]
      )
      yield* call(a, undefined, 8_000)
      const second = yield* call(b, undefined, 8_000)
      assert.isTrue(second.compacted)
      const handle = /ctx_[A-Za-z0-9]{10,}/.exec(second.view)?.[0]
      assert.isDefined(handle)
      const derived = Session.idOf((yield* OpenAiChat.adapter.decode(b)).transcript)
      const page = yield* Recall.recall({ sessionId: derived, handle: handle! })
      // The text given back is the second history's own.
      assert.isAbove(page.text.length, 0)
      assert.include(JSON.stringify(b), page.text.slice(0, 60))
      assert.notInclude(JSON.stringify(a), page.text.slice(0, 60))
      // A session that is not of this family is refused the handle.
      const refused = yield* Effect.flip(Recall.recall({ sessionId: "another-task", handle: handle! }))
      assert.strictEqual(refused.reason, "other-session")
    }).pipe(Effect.provide(engine({ archive: TranscriptArchiveMemory.layer() }))))
})
