import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Boundary from "../../../../src/core/checkpoint/Boundary.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import * as TranscriptArchiveFile from "../../../../src/face/layers/TranscriptArchiveFile.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as CompactionStore from "../../../../src/face/services/CompactionStore.js"
import * as TranscriptArchive from "../../../../src/face/services/TranscriptArchive.js"
import { effectProp, prop } from "../../../support/Property.js"
import * as Generated from "../../../transcripts.js"

/** A fresh temporary directory, removed when the scope closes. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-archive-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

const archiveIn = (directory: string) =>
  TranscriptArchiveFile.layer({ directory }).pipe(Layer.provide(Compat.nodeFileSystem))

const engine = (archive: Layer.Layer<TranscriptArchive.TranscriptArchive>) =>
  Compactor.layer({ policies: builtInPolicies }).pipe(
    Layer.provideMerge(Testing.layer({ settings: { replyReserveTokens: 200 }, archive }))
  )

const readArchive = (path: string) => TranscriptArchiveFile.parseLines(Fs.readFileSync(path, "utf8"))

describe("TranscriptArchiveFile", () => {
  prop(
    "the file archive and the memory archive name one entry by one digest, which changes with the ids and their order",
    [fc.uniqueArray(fc.stringMatching(/^m[0-9]{1,4}$/), { minLength: 2, maxLength: 6 })],
    ([ids]) => {
      const messages = ids.map((id) => new Transcript.UserMessage({ id, content: `text of ${id}` }))
      const digest = TranscriptArchiveFile.digestOf(messages)
      assert.match(digest, /^[0-9a-f]{12}$/)
      assert.include(TranscriptArchiveMemory.locate({ sessionId: "s1", compaction: 3, messages }), digest)
      assert.notStrictEqual(TranscriptArchiveFile.digestOf([...messages].reverse()), digest)
    }
  )

  it.scoped("an entry is written as one JSON message a line and reads back equal, with no temporary file left", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const archive = yield* Effect.provide(TranscriptArchive.TranscriptArchive, archiveIn(dir))
      const messages = Generated.fromTurns([{
        user: "fix the build",
        steps: [[{ name: "bash", args: "{\"command\":\"make\"}", result: "exit 2" }]],
        reply: "done",
        accept: false
      }])
      const path = yield* archive.write({ sessionId: "s1", compaction: 1, messages })
      assert.strictEqual(path, archive.locate({ sessionId: "s1", compaction: 1, messages }))
      assert.strictEqual(
        path,
        NodePath.join(dir, "s1", `compaction-1-${TranscriptArchiveFile.digestOf(messages)}.jsonl`)
      )
      assert.strictEqual(
        Fs.readFileSync(path, "utf8").split("\n").filter((line) => line !== "").length,
        messages.length
      )
      assert.deepStrictEqual(yield* readArchive(path), messages)
      assert.deepStrictEqual(Fs.readdirSync(NodePath.dirname(path)), [NodePath.basename(path)])
      // The same compaction with other messages (a worker that lost the race to save) goes elsewhere.
      assert.notStrictEqual(archive.locate({ sessionId: "s1", compaction: 1, messages: messages.slice(1) }), path)
    }))

  effectProp(
    "any session id is archived inside the directory, and two ids never share a folder",
    [fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 })],
    ([a, b]) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const archive = yield* Effect.provide(TranscriptArchive.TranscriptArchive, archiveIn(dir))
        const path = archive.locate({ sessionId: a, compaction: 1, messages: [] })
        assert.isTrue(path.startsWith(dir + NodePath.sep), path)
        assert.notInclude(NodePath.relative(dir, path).split(NodePath.sep), "..")
        if (a !== b) assert.notStrictEqual(TranscriptArchiveFile.folderOf(a), TranscriptArchiveFile.folderOf(b))
      }).pipe(Effect.scoped)
  )

  it.scoped("a directory that cannot be made gives an ArchiveError naming the path, and leaves nothing behind", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      // A regular file where the directory should be: no directory can be made under it, even as root.
      const blocked = NodePath.join(dir, "blocked")
      Fs.writeFileSync(blocked, "not a directory")
      const archive = yield* Effect.provide(TranscriptArchive.TranscriptArchive, archiveIn(blocked))
      const written = yield* Compat.result(archive.write({ sessionId: "s1", compaction: 1, messages: [] }))
      assert.isTrue(TestCompat.isFailure(written))
      const error = Option.getOrThrow(TestCompat.getFailure(written))
      assert.strictEqual(error._tag, "ArchiveError")
      assert.strictEqual(
        error.path,
        NodePath.join(blocked, "s1", `compaction-1-${TranscriptArchiveFile.digestOf([])}.jsonl`)
      )
      assert.strictEqual(Fs.readFileSync(blocked, "utf8"), "not a directory")
    }))
})

describe("Compactor with a transcript archive", () => {
  effectProp(
    "over a session's compactions, the archive files hold every moved-out message once, verbatim, and each block names its file",
    [Generated.transcript(30)],
    ([transcript]) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const result = yield* Effect.gen(function*() {
          const compactor = yield* Compactor.Compactor
          const store = yield* CompactionStore.CompactionStore
          let last: Compactor.Checkpoint | undefined
          for (const start of [...Boundary.turnStarts(transcript), transcript.length]) {
            const outcome = yield* Compat.result(
              compactor.checkpoint({
                sessionId: "s1",
                transcript: transcript.slice(0, start),
                model: "m",
                contextWindow: 6_000
              })
            )
            if (TestCompat.isSuccess(outcome)) {
              const checkpoint = TestCompat.getOrThrow(outcome)
              last = checkpoint
              if (Option.isSome(checkpoint.compacted)) {
                const report = checkpoint.compacted.value
                const path = report.archivePath!
                assert.match(
                  NodePath.relative(dir, path),
                  new RegExp(`^s1/compaction-${report.compactions}-[0-9a-f]{12}\\.jsonl$`)
                )
                const block = checkpoint.view.find((m) => m._tag === "Compacted")!
                assert.include(block.content, path)
                assert.strictEqual(Option.getOrThrow(yield* store.load("s1")).archivePath, path)
              }
            }
          }
          return { last, state: yield* store.load("s1") }
        }).pipe(Effect.provide(engine(archiveIn(dir))))
        if (Option.isNone(result.state)) return
        const state = result.state.value
        const all = Fs.readdirSync(NodePath.join(dir, "s1")).sort()
        // The messages the ladder cut in a view are archived apart (cut-*.jsonl), whole, for recall.
        for (const file of all.filter((name) => name.startsWith("cut-"))) {
          for (const message of yield* readArchive(NodePath.join(dir, "s1", file))) {
            assert.deepStrictEqual(
              message,
              transcript.find((m) => m.id === message.id)
            )
          }
        }
        const files = all.filter((name) => name.startsWith("compaction-"))
        assert.deepStrictEqual(all.filter((name) => !name.startsWith("cut-")), files)
        assert.deepStrictEqual(
          files.map((file) => file.replace(/-[0-9a-f]{12}\.jsonl$/, "")),
          Array.from({ length: state.compactions }, (_, i) => `compaction-${i + 1}`).sort()
        )
        const archived: Array<Transcript.Message> = []
        for (const file of files) archived.push(...(yield* readArchive(NodePath.join(dir, "s1", file))))
        const ids = archived.map((message) => message.id)
        assert.strictEqual(new Set(ids).size, ids.length, "a message was archived twice")
        // Every message before the boundary that is not still pinned in the view is archived, verbatim.
        const boundary = transcript.findIndex((message) => message.id === state.boundaryId)
        const pinned = new Set(state.pinnedIds)
        const expected = transcript.slice(1, boundary).filter((message) => !pinned.has(message.id))
        assert.deepStrictEqual([...ids].sort(), expected.map((message) => message.id).sort())
        for (const message of archived) assert.deepStrictEqual(message, transcript.find((m) => m.id === message.id))
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: 15 } }
  )

  it.scoped("an archive that cannot be written does not stop the compaction: the block names the session's transcript, and a warning says why", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const blocked = NodePath.join(dir, "blocked")
      Fs.writeFileSync(blocked, "")
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message }) => {
        if (TestCompat.isWarning(logLevel)) warnings.push(String(Array.isArray(message) ? message.join(" ") : message))
      })
      const transcript = Generated.fromTurns(
        Array.from(
          { length: 30 },
          (_, i) => ({
            user: `request ${i} ` + "words ".repeat(80),
            steps: [],
            reply: "ok " + "reply ".repeat(80),
            accept: false
          })
        )
      )
      const result = yield* Effect.gen(function*() {
        const compactor = yield* Compactor.Compactor
        const checkpoint = yield* compactor.checkpoint({
          sessionId: "s1",
          transcript,
          model: "m",
          contextWindow: 8_000
        })
        return { checkpoint, state: yield* (yield* CompactionStore.CompactionStore).load("s1") }
      }).pipe(Effect.provide(engine(archiveIn(blocked))), Effect.provide(TestCompat.addLogger(logger)))
      const report = Option.getOrThrow(result.checkpoint.compacted)
      assert.isUndefined(report.archivePath)
      assert.isUndefined(Option.getOrThrow(result.state).archivePath)
      const block = result.checkpoint.view.find((m) => m._tag === "Compacted")!
      assert.include(block.content, "The session's transcript keeps them verbatim")
      assert.notInclude(block.content, blocked)
      assert.isTrue(
        warnings.some((warning) => warning.includes("could not be written") && warning.includes(blocked)),
        warnings.join("\n")
      )
    }))
})
