import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Handles from "../../../../src/core/block/Handles.js"
import * as Budget from "../../../../src/face/engine/Budget.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveFile from "../../../../src/face/layers/TranscriptArchiveFile.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import * as TranscriptArchiveSql from "../../../../src/face/layers/TranscriptArchiveSql.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Settings from "../../../../src/face/services/Settings.js"
import * as Histories from "../../../support/Histories.js"
import { effectProp, prop } from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"
import * as Generated from "../../../transcripts.js"

const engine = () =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(
      Testing.layer({ settings: { replyReserveTokens: 200 }, archive: TranscriptArchiveMemory.layer() })
    )
  )

const compacted = (transcript: Transcript.Transcript, sessionId: string) =>
  Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const checkpoint = yield* compactor.checkpoint({ sessionId, transcript, model: "test-model", contextWindow: 8_000 })
    const block = checkpoint.view.find((message) => message._tag === "Compacted")
    assert.isDefined(block, "the session compacts")
    return block!.content
  })

const handlesIn = (content: string): ReadonlyArray<string> =>
  Handles.fromBlock(content).lines.map((line) => line.handle)

describe("Handles", () => {
  prop("a handle is ctx_ and 12 letters or digits, stable for its text, another in another session", [
    fc.string(),
    fc.string(),
    fc.string()
  ], ([session, other, text]) => {
    const handle = Recall.handleOf(session, text)
    assert.match(handle, /^ctx_[A-Za-z0-9]{12}$/)
    assert.strictEqual(Recall.handleOf(session, text), handle)
    assert.isTrue(Handles.belongsTo(handle, session))
    if (other !== session) assert.notStrictEqual(Recall.handleOf(other, text), handle)
  })

  it("the list gives the newest first within its budget and counts the rest", () => {
    const entries = Array.from(
      { length: 50 },
      (_, i) => ({ handle: Recall.handleOf("s", String(i)), note: `note ${i}` })
    )
    const { shown, text } = Handles.section(entries, 3, 200, (t) => Math.ceil(t.length / 4))
    assert.isAbove(shown, 0)
    assert.isBelow(shown, 50)
    assert.isAtMost(Math.ceil(text.length / 4), 200)
    const parsed = Handles.fromBlock(`# x\n\n${text}`)
    assert.deepStrictEqual(
      parsed.lines.map((line) => line.handle),
      entries.slice(0, shown).map((entry) => entry.handle)
    )
    assert.strictEqual(parsed.more, 50 - shown + 3)
  })
})

describe("Recall through the engine", () => {
  it.effect("every long tool result of the compacted span is listed and comes back whole, paged, within its session only", () =>
    Effect.gen(function*() {
      const transcript = Generated.longSession
      const before = JSON.stringify(transcript)
      const block = yield* compacted(transcript, "s-recall")
      const handles = handlesIn(block)
      assert.isAbove(handles.length, 0)
      for (const handle of handles) {
        const page = yield* Recall.recall({ sessionId: "s-recall", handle, length: 1_000 })
        const original = transcript.find((message) => message.id === page.messageId)
        assert.isDefined(original)
        const whole = Handles.textOf(original!)!
        assert.strictEqual(page.total, whole.length)
        assert.strictEqual(page.text, whole.slice(0, Math.min(1_000, whole.length)))
        let text = page.text
        let next = page.nextOffset
        while (next !== undefined) {
          const more = yield* Recall.recall({ sessionId: "s-recall", handle, offset: next, length: 1_000 })
          text += more.text
          next = more.nextOffset
        }
        assert.strictEqual(text, whole)
        const foreign = TestCompat.getFailure(
          yield* Compat.result(Recall.recall({ sessionId: "another-session", handle }))
        )
        assert.isTrue(Option.isSome(foreign) && foreign.value.reason === "other-session")
      }
      assert.strictEqual(JSON.stringify(transcript), before, "recall never changes the transcript")
    }).pipe(Effect.provide(engine())))

  it.effect("a handle of another session is an error even when that session archived it, and a missing handle is not-found", () =>
    Effect.gen(function*() {
      const first = handlesIn(yield* compacted(Generated.longSession, "session-a"))
      const foreign = TestCompat.getFailure(
        yield* Compat.result(Recall.recall({ sessionId: "session-b", handle: first[0]! }))
      )
      assert.isTrue(Option.isSome(foreign))
      if (Option.isSome(foreign)) {
        assert.strictEqual(foreign.value.reason, "other-session")
        assert.notInclude(foreign.value.message, "line of code")
      }
      const missing = Recall.handleOf("session-a", "text that was never archived")
      const notFound = TestCompat.getFailure(
        yield* Compat.result(Recall.recall({ sessionId: "session-a", handle: missing }))
      )
      assert.isTrue(Option.isSome(notFound) && notFound.value.reason === "not-found")
      const invalid = TestCompat.getFailure(
        yield* Compat.result(Recall.recall({ sessionId: "session-a", handle: "ctx_short" }))
      )
      assert.isTrue(Option.isSome(invalid) && invalid.value.reason === "invalid-handle")
      const answered = yield* Recall.answer("session-b", JSON.stringify({ handle: first[0] }))
      assert.match(answered, /^context_recall failed \(other-session\)/)
    }).pipe(Effect.provide(engine())))

  it.effect("without an archive that can be read, recall says so", () =>
    Effect.gen(function*() {
      const result = TestCompat.getFailure(
        yield* Compat.result(Recall.recall({ sessionId: "s", handle: Recall.handleOf("s", "x") }))
      )
      assert.isTrue(Option.isSome(result) && result.value.reason === "no-archive")
    }))

  effectProp(
    "over generated sessions every handle a block lists resolves in its session to a message of the transcript",
    [Generated.transcript(24)],
    ([transcript]) =>
      Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const checkpoint = yield* Compat.result(
          compactor.checkpoint({ sessionId: "gen", transcript, model: "test-model", contextWindow: 8_000 })
        )
        if (TestCompat.isFailure(checkpoint)) return
        const block = TestCompat.getOrThrow(checkpoint).view.find((message) => message._tag === "Compacted")
        if (block === undefined) return
        for (const handle of handlesIn(block.content)) {
          const page = yield* Compat.result(Recall.recall({ sessionId: "gen", handle }))
          assert.isTrue(TestCompat.isSuccess(page), `${handle} resolves`)
          if (TestCompat.isSuccess(page)) {
            assert.isTrue(
              Option.isSome(
                Compat.fromNullishOr(transcript.find((message) => message.id === TestCompat.getOrThrow(page).messageId))
              )
            )
          }
        }
      }).pipe(Effect.provide(engine())),
    { fastCheck: { numRuns: 15 } }
  )

  it.effect("over many compactions the block with its handle list stays within its budget, keeps earlier handles, and each resolves only in its session", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const turns = Array.from({ length: 300 }, (_, i) => ({
        user: `step ${i}: build module ${i % 97}`,
        steps: [[{
          name: "bash",
          args: JSON.stringify({ command: `npm test -- module${i}` }),
          result: `<returncode>${i % 3 === 0 ? 1 : 0}</returncode>\n<output>\n${
            `line of module ${i}\n`.repeat(80)
          }</output>`
        }]],
        reply: `module ${i} is built`,
        accept: false
      }))
      const transcript = Generated.fromTurns(turns)
      const budget = Budget.blockBudget(Settings.defaults, Budget.trigger(Settings.defaults, 16_000))
      let compactions = 0
      let earlier: ReadonlyArray<string> = []
      let carried = 0
      for (let end = 2; end <= transcript.length; end += 3) {
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "many",
          transcript: transcript.slice(0, end),
          model: "m",
          contextWindow: 16_000
        })
        if (Option.isNone(checkpoint.compacted)) continue
        compactions++
        const block = checkpoint.view.find((message) => message._tag === "Compacted")!
        assert.isAtMost(Math.ceil(block.content.length / 4) + 4, budget + 64)
        const handles = handlesIn(block.content)
        assert.isAbove(handles.length, 0)
        if (handles.some((handle) => earlier.includes(handle))) carried++
        for (const handle of handles) {
          assert.isTrue(TestCompat.isSuccess(yield* Compat.result(Recall.recall({ sessionId: "many", handle }))))
          const foreign = TestCompat.getFailure(yield* Compat.result(Recall.recall({ sessionId: "other", handle })))
          assert.isTrue(Option.isSome(foreign) && foreign.value.reason === "other-session")
        }
        earlier = handles
      }
      assert.isAtLeast(compactions, 3)
      assert.isAbove(carried, 0, "a later block keeps handles of the earlier one")
    }).pipe(Effect.provide(engine())))
})

describe("Recall of what the ladder cut in the view", () => {
  const newest = Histories.hugeNewestResult
  const original = newest[newest.length - 1]!.content

  const clippedComesBack = Effect.gen(function*() {
    const compactor = yield* Compactor.Compactor
    const before = JSON.stringify(newest)
    const checkpoint = yield* compactor.checkpoint({
      sessionId: "s-clip",
      transcript: newest,
      model: "m",
      contextWindow: Histories.hugeNewestResultWindow
    })
    assert.isTrue(Option.isNone(checkpoint.compacted), "nothing older to compact: the view is fitted by the ladder")
    assert.isTrue(
      checkpoint.ladder.some((step) => step.step === "clip-messages" || step.step === "reduce-tool-results")
    )
    const clipped = checkpoint.view[checkpoint.view.length - 1]!.content
    assert.isBelow(clipped.length, original.length)
    const handle = /recall handle (ctx_[A-Za-z0-9]+)/.exec(clipped)?.[1]
    assert.isDefined(handle, "the marker names the handle")
    assert.strictEqual(handle, Recall.handleOf("s-clip", original))
    let text = ""
    let offset: number | undefined = 0
    while (offset !== undefined) {
      const page: Recall.Page = yield* Recall.recall({ sessionId: "s-clip", handle: handle!, offset })
      text += page.text
      offset = page.nextOffset
    }
    assert.strictEqual(text, original)
    const other = TestCompat.getFailure(yield* Compat.result(Recall.recall({ sessionId: "s-other", handle: handle! })))
    assert.isTrue(Option.isSome(other) && other.value.reason === "other-session")
    assert.strictEqual(JSON.stringify(newest), before, "the transcript is never modified")
  })

  it.effect("a newest tool result clipped without a compaction names its handle in the marker, and the handle gives it back whole (memory archive)", () =>
    clippedComesBack.pipe(Effect.provide(engine())))

  it.scoped("the same through the files archive, whose cut messages are kept apart from the compactions' files", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-recall-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const archive = TranscriptArchiveFile.layer({ directory }).pipe(Layer.provide(Compat.nodeFileSystem))
      yield* clippedComesBack.pipe(
        Effect.provide(
          Compactor.layer({ policies: builtInPolicies }).pipe(
            Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 }, archive }))
          )
        )
      )
      const files = Fs.readdirSync(directory, { recursive: true }).map(String).filter((name) => name.endsWith(".jsonl"))
      assert.strictEqual(files.length, 1)
      assert.match(NodePath.basename(files[0]!), /^cut-[0-9a-f]+\.jsonl$/)
    }))

  it.scoped("the same through the SQL archive, whose cut messages are a cut entry apart from the compactions'", () =>
    Effect.gen(function*() {
      const client = yield* Layer.build(SqlDatabases.sqlite.fresh)
      yield* Effect.orDie(Effect.provide(SqlMigrations.run, client))
      const archive = TranscriptArchiveSql.layer().pipe(Layer.provide(Layer.succeedContext(client)))
      yield* clippedComesBack.pipe(
        Effect.provide(
          Compactor.layer({ policies: builtInPolicies }).pipe(
            Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 }, archive }))
          )
        )
      )
      const entries = yield* Effect.provide(
        Effect.flatMap(
          Compat.SqlClient,
          (sql) => sql<{ readonly entry: string }>`SELECT DISTINCT entry FROM transcript_archive`
        ),
        client
      )
      assert.strictEqual(entries.length, 1)
      assert.match(entries[0]!.entry, /^cut-[0-9a-f]+$/)
    }))

  it.effect("without an archive to read back from, the marker names no handle", () =>
    Effect.gen(function*() {
      const compactor = yield* Compactor.Compactor
      const checkpoint = yield* compactor.checkpoint({
        sessionId: "s-clip",
        transcript: newest,
        model: "m",
        contextWindow: Histories.hugeNewestResultWindow
      })
      const clipped = checkpoint.view[checkpoint.view.length - 1]!.content
      assert.isBelow(clipped.length, original.length)
      assert.notInclude(clipped, "recall handle")
    }).pipe(
      Effect.provide(
        Compactor.layer({ policies: builtInPolicies }).pipe(
          Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 } }))
        )
      )
    ))
})
