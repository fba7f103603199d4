/**
 * CliIo.writeText in this process: what a regular file, a link or a FIFO at
 * the target gets, for any text.
 */
import * as Compat from "#compat"
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as fc from "fast-check"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as CliIo from "../../../../src/apps/cli/CliIo.js"
import { effectProp } from "../../../support/Property.js"
import * as Scratch from "../../../support/Scratch.js"

const { fresh } = Scratch.make("cli-io")
const write = (path: string, text: string) => CliIo.writeText(path, text).pipe(Effect.provide(Compat.nodeFileSystem))

describe("CliIo.writeText", () => {
  effectProp(
    "a regular file (new or old) holds exactly the text afterwards, and nothing else is left in its folder",
    [
      fc.string({ unit: "grapheme", maxLength: 2_000 }),
      fc.option(fc.string({ maxLength: 200 }), { nil: undefined })
    ],
    ([text, before]) =>
      Effect.gen(function*() {
        const dir = fresh()
        const path = NodePath.join(dir, "out.json")
        if (before !== undefined) Fs.writeFileSync(path, before)
        yield* write(path, text)
        assert.strictEqual(Fs.readFileSync(path, "utf8"), text)
        assert.deepStrictEqual(Fs.readdirSync(dir), ["out.json"])
      }),
    { fastCheck: { numRuns: 15 } }
  )

  effectProp("a symbolic link is refused for any text: the link stays a link, its target keeps its bytes", [
    fc.string({ maxLength: 500 })
  ], ([text]) =>
    Effect.gen(function*() {
      const dir = fresh()
      const target = NodePath.join(dir, "target")
      Fs.writeFileSync(target, "kept")
      const link = NodePath.join(dir, "link")
      Fs.symlinkSync(target, link)
      const exit = yield* Effect.exit(write(link, text))
      assert.isTrue(Exit.isFailure(exit))
      assert.isTrue(Fs.lstatSync(link).isSymbolicLink())
      assert.strictEqual(Fs.readFileSync(target, "utf8"), "kept")
      assert.deepStrictEqual(Fs.readdirSync(dir).sort(), ["link", "target"])
    }), { fastCheck: { numRuns: 15 } })

  it.effect("a directory is refused with its reason", () =>
    Effect.gen(function*() {
      const dir = fresh()
      const exit = yield* Effect.exit(write(dir, "x"))
      assert.deepStrictEqual(exit, Exit.fail(new CliIo.CliFailure({ message: `cannot write ${dir}: is a directory` })))
    }))
})
