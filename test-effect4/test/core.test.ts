/**
 * The shared core on Effect 4 (docs/effect4.md): the modules that are neutral already load and
 * behave here, with effect@4 the only Effect there is, and the package's own sources get that
 * Effect too.
 */
import { assert, describe, it } from "@effect/vitest"
import effectPackage from "effect/package.json" with { type: "json" }
import * as Schema from "effect/Schema"
import { fileURLToPath } from "node:url"
import * as SummaryInstruction from "../../src/core/block/SummaryInstruction.js"
import * as Budget from "../../src/core/checkpoint/Budget.js"
import * as CheckpointFailures from "../../src/core/checkpoint/CheckpointFailures.js"
import * as Count from "../../src/core/checkpoint/Count.js"
import * as SaveRecord from "../../src/core/checkpoint/SaveRecord.js"
import * as JsonReader from "../../src/core/json/JsonReader.js"
import * as JsonTree from "../../src/core/json/JsonTree.js"
import * as JsonWrite from "../../src/core/json/JsonWrite.js"
import * as Clip from "../../src/core/reduce/Clip.js"
import * as GenericJson from "../../src/core/reduce/GenericJson.js"
import * as Result from "../../src/core/Result.js"
import * as SettingsValues from "../../src/core/services/SettingsValues.js"
import * as ShellLex from "../../src/core/shell/ShellLex.js"
import * as Failures from "../../src/core/working-state/Failures.js"
import * as ToolResultRead from "../../src/core/working-state/ToolResultRead.js"

describe("the Effect 4 test project", () => {
  it("runs on effect 4.1.5 under Node 22", () => {
    assert.strictEqual(effectPackage.version, "4.1.5")
    assert.isAtLeast(Number(process.versions.node.split(".")[0]), 22)
  })

  it("gives the package's sources Effect 4 too: a module on Effect 3's own modules (the Effect 3 compat: Either, ExecutionStrategy, FiberId, FiberRef, ParseResult) does not load", async () => {
    // Through a variable, so that the typecheck on Effect 4 (tsconfig.json) does not read the module.
    const effect3Runner = fileURLToPath(new URL("../../src/face/compat/Effect3.ts", import.meta.url))
    const loaded = await import(/* @vite-ignore */ effect3Runner).then(() => true, (error: unknown) => String(error))
    // Whichever of its Effect 3 imports the loader reaches first (they load concurrently) is the one named: one of
    // Effect 3's own modules, or one of @effect/platform-node 0.x's its layers import when built.
    assert.match(
      String(loaded),
      /(effect\/(Either|ExecutionStrategy|FiberId|FiberRef|ParseResult)|@effect\/platform-node\/(NodeContext|NodeHttpClient)) is not a module of effect 4/
    )
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

  it("the JSON reader and writer keep every number literal, at any depth", () => {
    const text = `{"id":12345678901234567890,"big":1e400,"negativeZero":-0,"nested":${"[".repeat(20_000)}${
      "]".repeat(20_000)
    }}`
    const read = JsonReader.read(text)
    assert.strictEqual(read._tag, "Ok")
    assert.strictEqual(JsonWrite.stringify(Result.getOrThrow(read)), text)
    assert.strictEqual(JsonReader.read("{\"open\":")._tag, "Err")
  })

  it.prop(
    "read and written again, any JSON value is the same text as JSON.stringify writes",
    [Schema.Json],
    ([value]) => {
      const text = JSON.stringify(value)
      assert.strictEqual(JsonWrite.stringify(Result.getOrThrow(JsonReader.read(text))), text)
    }
  )

  it("own-key access never reaches a prototype, and fromUnknown bounds depth and cycles", () => {
    const value = Result.getOrThrow(JsonReader.read(`{"__proto__":{"polluted":true},"a":{"b":[1,2]}}`))
    assert.strictEqual(JsonTree.getPath(value, "a.b.1"), 2)
    assert.isUndefined(JsonTree.getOwn({}, "constructor"))
    assert.isUndefined(({} as Record<string, unknown>)["polluted"])
    const cyclic: Record<string, unknown> = { name: "loop" }
    cyclic["self"] = cyclic
    const converted = JsonTree.fromUnknown(cyclic)
    assert.deepStrictEqual(converted, { json: { name: "loop", self: JsonTree.circularMarker }, cut: 1 })
  })

  it("the generic JSON policy shrinks JSON past the cap and keeps it JSON", () => {
    const value = {
      items: Array.from({ length: 500 }, (_, index) => ({ index, text: "x".repeat(200) })),
      truncated: true
    }
    const fitted = GenericJson.fit(value, 4_000)
    assert.isDefined(fitted)
    assert.isAtMost(fitted!.text.length, 4_000)
    assert.strictEqual(JsonTree.getOwn(JSON.parse(fitted!.text), "truncated"), true)
  })

  it("the working state reads a tool result's envelope, without what it declares omitted, and its exit code", () => {
    const content = JSON.stringify({
      protocol: "agentic-workspace/v1",
      tool: "workspace_command",
      action: "status",
      ok: false,
      data: { job: { id: "job_7", exitCode: 2 }, secret: "token" },
      retention: { omit_when_summarizing: ["data.secret"] }
    })
    const read = ToolResultRead.readToolResult(content)
    assert.strictEqual(read.envelope?.tool, "workspace_command")
    assert.notInclude(read.content, "token")
    assert.isUndefined(ToolResultRead.envelopeOf(`{"protocol":"agentic-workspace/v1","tool":1,"action":"x"}`))
    assert.strictEqual(Failures.exitCodeOf("exit code 3", undefined), 3)
  })

  it("a checkpoint's budget and failures are the core's: a view that cannot fit names the smallest window that works, no gain after an overflow stops instead of looping", () => {
    const settings = SettingsValues.defaults
    const counted = Count.budget({
      settings,
      input: { contextWindow: 20_000 },
      cause: "trigger",
      counted: 30_000,
      lastSent: undefined,
      transcriptDigest: ""
    })
    assert.strictEqual(counted.trigger, Budget.trigger(settings, 20_000))
    const cannotFit = CheckpointFailures.cannotFit("s", { settings, counted, cause: "trigger" }, 25_000, "too big")
    assert.strictEqual(cannotFit.reason, "cannot-fit")
    assert.strictEqual(cannotFit.minimumWindow, Budget.smallestWindow(settings, 25_000))
    assert.include(cannotFit.message, `the smallest context window that works is ${cannotFit.minimumWindow} tokens`)
    assert.isUndefined(CheckpointFailures.noGain("s", counted, "trigger", 10_000))
    assert.strictEqual(CheckpointFailures.noGain("s", counted, "overflow", 40_000)?.reason, "no-progress")
    // A trim is said through the logger as in the report; a summary used says nothing there.
    assert.strictEqual(
      SaveRecord.trimWarning({ compactions: 2, fallback: "trim", gate: [] }, "s", undefined),
      "compaction 2 of session s fell back to a trim: no summary (gate: not asked)"
    )
    assert.isUndefined(SaveRecord.trimWarning({ compactions: 2, fallback: "none", gate: ["passed"] }, "s", undefined))
  })
})
