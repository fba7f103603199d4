/**
 * The shared core on Effect 4 (docs/effect4.md): the modules that are neutral already load and
 * behave here, with effect@4 the only Effect there is, and the package's own sources get that
 * Effect too.
 */
import { assert, describe, it } from "@effect/vitest"
import effectPackage from "effect/package.json" with { type: "json" }
import * as Schema from "effect/Schema"
import { fileURLToPath } from "node:url"
import * as SummaryInstruction from "../../src/internal/block/SummaryInstruction.js"
import * as Clip from "../../src/internal/reduce/Clip.js"
import * as Result from "../../src/internal/Result.js"
import * as ShellLex from "../../src/internal/shell/ShellLex.js"

describe("the Effect 4 test project", () => {
  it("runs on effect 4.1.5 under Node 22", () => {
    assert.strictEqual(effectPackage.version, "4.1.5")
    assert.isAtLeast(Number(process.versions.node.split(".")[0]), 22)
  })

  it("gives the package's sources Effect 4 too: a module on Effect 3's FiberRef (the Effect 3 runner) does not load", async () => {
    // Through a variable, so that the typecheck on Effect 4 (tsconfig.json) does not read the module.
    const effect3Runner = fileURLToPath(new URL("../../src/internal/Cooperative.ts", import.meta.url))
    const loaded = await import(/* @vite-ignore */ effect3Runner).then(() => true, (error: unknown) => String(error))
    assert.match(String(loaded), /FiberRef/)
  })
})

describe("the shared core on Effect 4", () => {
  it.prop(
    "head-and-tail clipping fits the limit, keeps what fits whole, and is idempotent",
    [Schema.String, Schema.Int.check(Schema.isBetween({ minimum: Clip.minimumMax, maximum: 400 }))],
    ([text, max]) => {
      const clipped = Clip.headTail(text, max)
      assert.isAtMost(clipped.length, Math.max(max, 0))
      if (text.length <= max) assert.strictEqual(clipped, text)
      assert.strictEqual(Clip.headTail(clipped, max), clipped)
    }
  )

  it("the core's result: a value, or the reason there is none", () => {
    assert.strictEqual(Result.getOrUndefined(Result.ok(3)), 3)
    assert.isUndefined(Result.getOrUndefined(Result.err("not JSON")))
    assert.throws(() => Result.getOrThrow(Result.err("not JSON")), /not JSON/)
  })

  it("the shell lexer reads the commands of a line", () => {
    const words = ShellLex.simpleCommands(ShellLex.tokenize("cd src && npm test -- --run > out.txt")).map((command) =>
      ShellLex.commandWords(command.words)
    )
    assert.deepStrictEqual(words[0], ["cd", "src"])
    assert.strictEqual(words.length, 2)
  })

  it("the summariser's instruction opens its sections with the first heading", () => {
    assert.include(SummaryInstruction.instruction(true), SummaryInstruction.firstHeading)
    assert.include(SummaryInstruction.restatement(false), SummaryInstruction.firstHeading)
  })
})
