import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as TranscriptArchiveFile from "../../../../src/face/layers/TranscriptArchiveFile.js"
import * as TranscriptArchiveMemory from "../../../../src/face/layers/TranscriptArchiveMemory.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import type * as TranscriptArchive from "../../../../src/face/services/TranscriptArchive.js"
import { effectProp } from "../../../support/Property.js"

const results = (texts: ReadonlyArray<string>) =>
  texts.map((content, i) => new Transcript.ToolResult({ id: `m${i}`, toolCallId: `c${i}`, content }))

/** What each archive finds of a session's entry, in that session and in another. */
const lookups = (archive: TranscriptArchive.Service, texts: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    yield* archive.write({ sessionId: "session-a", compaction: 1, messages: results(texts) })
    for (const [i, text] of texts.entries()) {
      const found = yield* archive.lookup!("session-a", Recall.handleOf("session-a", text))
      assert.isTrue(Option.isSome(found))
      if (Option.isSome(found)) assert.strictEqual((found.value as Transcript.ToolResult).content, text, `message ${i}`)
      assert.isTrue(
        Option.isNone(yield* archive.lookup!("session-b", Recall.handleOf("session-a", text))),
        "another session reads nothing of it"
      )
      assert.isTrue(Option.isNone(yield* archive.lookup!("session-b", Recall.handleOf("session-b", text))))
    }
  })

describe("the archive's lookup by handle", () => {
  effectProp(
    "the memory archive finds each message in its session only",
    [fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1, maxLength: 8 })],
    ([texts]) => Effect.flatMap(TranscriptArchiveMemory.make(), (archive) => lookups(archive, texts)),
    { fastCheck: { numRuns: 30 } }
  )

  it.scoped("the files archive finds each message in its session's folder only, also once indexed", () =>
    Effect.gen(function*() {
      const directory = yield* Effect.acquireRelease(
        Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-lookup-"))),
        (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
      )
      const archive = yield* TranscriptArchiveFile.make({ directory })
      const texts = ["first result " + "x".repeat(300), "second result ✓ " + "y".repeat(300)]
      yield* lookups(archive, texts)
      yield* lookups(archive, texts)
    }).pipe(Effect.provide(Compat.nodeFileSystem)))

  it.effect("the memory archive forgets the oldest session past its size", () =>
    Effect.gen(function*() {
      const archive = yield* TranscriptArchiveMemory.make({ maxChars: 1_000 })
      yield* archive.write({ sessionId: "old", compaction: 1, messages: results(["o".repeat(600)]) })
      yield* archive.write({ sessionId: "new", compaction: 1, messages: results(["n".repeat(600)]) })
      assert.isTrue(Option.isNone(yield* archive.lookup!("old", Recall.handleOf("old", "o".repeat(600)))))
      assert.isTrue(Option.isSome(yield* archive.lookup!("new", Recall.handleOf("new", "n".repeat(600)))))
    }))
})
