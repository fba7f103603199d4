/**
 * `compact` on the command line lists recall handles in its block, archiving
 * the compacted messages in the state folder, and `recall` reads them back:
 * whole, or a page at a time, within the session only.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import type { RecallPage } from "../../../../src/apps/promise/Models.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as Program from "../../../support/Program.js"
import { effectProp } from "../../../support/Property.js"
import * as Scratch from "../../../support/Scratch.js"

const scratch = Scratch.make("recall-cli")
const session = NodePath.join(Program.root, "examples/session/agent-session.json")
const messages: ReadonlyArray<{ readonly content: string }> = JSON.parse(Fs.readFileSync(session, "utf8"))

/** A page the verb prints: the shape of the Promise API's recall pages. */
type Page = RecallPage

/** One compaction of the example session into a state folder, shared by the cases: its folder and the handles its block lists. */
const compacted = (() => {
  let done:
    | Promise<{ readonly folder: string; readonly handles: ReadonlyArray<string>; readonly stderr: string }>
    | undefined
  return () =>
    Effect.promise(() =>
      done ??= Effect.runPromise(Effect.gen(function*() {
        const folder = scratch.fresh()
        const out = NodePath.join(folder, "compacted.json")
        const ran = yield* Program.inProcess([
          "compact",
          session,
          "--window",
          "32000",
          "--out",
          out,
          "--state",
          NodePath.join(folder, "state.db"),
          "--cache",
          NodePath.join(folder, "cache.db")
        ])
        assert.strictEqual(ran.exitCode, 0, ran.stderr)
        const handles = [...new Set(Fs.readFileSync(out, "utf8").match(/ctx_[A-Za-z0-9]{10,}/g) ?? [])]
        return { folder, handles, stderr: ran.stderr }
      }))
    )
})()

const recall = (folder: string, args: ReadonlyArray<string>, sessionId = session) =>
  Program.inProcess(["recall", ...args, "--session", sessionId, "--dir", folder])

describe("recall from the command line", () => {
  it.effect("compact's block lists recall handles, its archive is in the state folder, and recall gives each listed message back whole, as the transcript holds it", () =>
    Effect.gen(function*() {
      const { folder, handles } = yield* compacted()
      assert.isAtLeast(handles.length, 10)
      assert.isTrue(Fs.readdirSync(NodePath.join(folder, "transcripts")).length > 0)
      const ran = yield* recall(folder, handles)
      assert.strictEqual(ran.exitCode, 0, ran.stderr)
      const pages = JSON.parse(ran.stdout) as ReadonlyArray<Page>
      assert.deepStrictEqual(pages.map((page) => page.handle), handles)
      for (const page of pages) {
        assert.strictEqual(page.offset, 0)
        assert.strictEqual(page.text.length, page.total)
        assert.isUndefined(page.nextOffset)
        const index = Number(/^m(\d+)$/.exec(page.messageId)?.[1])
        // The recall text is the message's content (an assistant's tool calls after it).
        assert.isTrue(page.text.startsWith(messages[index]!.content), page.messageId)
      }
    }))

  effectProp(
    "the pages of --offset and --length put together are the whole message",
    [fc.nat(), fc.integer({ min: 500, max: 20_000 })],
    ([pick, length]) =>
      Effect.gen(function*() {
        const { folder, handles } = yield* compacted()
        const handle = handles[pick % handles.length]!
        const whole = (JSON.parse((yield* recall(folder, [handle])).stdout) as ReadonlyArray<Page>)[0]!
        let text = ""
        let offset: number | undefined = 0
        while (offset !== undefined) {
          const ran = yield* recall(folder, [handle, "--offset", String(offset), "--length", String(length)])
          assert.strictEqual(ran.exitCode, 0, ran.stderr)
          const page: Page = (JSON.parse(ran.stdout) as ReadonlyArray<Page>)[0]!
          assert.strictEqual(page.offset, offset)
          assert.isAtMost(page.text.length, length)
          text += page.text
          offset = page.nextOffset
        }
        assert.strictEqual(text, whole.text)
      }),
    { fastCheck: { numRuns: 4 } }
  )

  it.effect("a handle of another session, one no block listed, or a folder without an archive: exit 2, nothing on stdout, one line naming the handle", () =>
    Effect.gen(function*() {
      const { folder, handles } = yield* compacted()
      const cases = [
        { ran: yield* recall(folder, [handles[0]!], "another-session"), says: "is not a handle of this session" },
        {
          ran: yield* recall(folder, [Recall.handleOf(session, "a text no compacted message has")]),
          says: "no compacted message of this session has the handle"
        },
        {
          ran: yield* recall(scratch.fresh(), [handles[0]!]),
          says: "no compacted message of this session has the handle"
        },
        { ran: yield* recall(folder, ["not-a-handle"]), says: "is not a recall handle" }
      ]
      for (const { ran, says } of cases) {
        assert.strictEqual(ran.exitCode, 2, ran.stderr)
        assert.strictEqual(ran.stdout, "")
        assert.strictEqual(ran.stderr.trim().split("\n").length, 1, ran.stderr)
        assert.include(ran.stderr, says)
      }
    }))

  it.effect("an integer flag that is not one is refused naming the flag", () =>
    Effect.gen(function*() {
      for (
        const [args, flag] of [[["compact", session, "--window", "abc"], "--window"], [[
          "recall",
          "ctx_AAAAAAAAAAAA",
          "--session",
          "s",
          "--length",
          "1.5"
        ], "--length"]] as const
      ) {
        const ran = yield* Program.inProcess(args)
        assert.strictEqual(ran.exitCode, 2)
        assert.strictEqual(ran.stdout, "")
        assert.strictEqual(ran.stderr.trim(), `${flag} must be an integer (got '${args.at(-1)}')`)
      }
    }))
})
