import { afterAll, assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Program from "../../../support/Program.js"

const root = resolve(fileURLToPath(new URL("../../../..", import.meta.url)))
const stagedEditPath = "examples/envelopes/staged-edit.json"
const scratch = mkdtempSync(join(tmpdir(), "context-compressor-cli-"))

/** Runs the real executable with `args`, feeding `stdin` when given. */
const runCli = (args: ReadonlyArray<string>, stdin?: string) => Program.executable(args, { stdin })

const readJson = (path: string): any => JSON.parse(readFileSync(join(root, path), "utf8"))

const reportPath = join(scratch, "staged-edit.report.json")
const stagedEditRun = Effect.runSync(Effect.cached(runCli(["reduce", stagedEditPath, "--report", reportPath])))

afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe("Cli", () => {
  it.effect("reduce keeps a staged approval's resume call byte for byte and exits 0", () =>
    Effect.gen(function*() {
      const run = yield* stagedEditRun
      assert.strictEqual(run.exitCode, 0)
      assert.isTrue(run.stdout.endsWith("\n"))
      const output = JSON.parse(run.stdout)
      const input = readJson(stagedEditPath)
      assert.strictEqual(JSON.stringify(output.data.approval.resume), JSON.stringify(input.data.approval.resume))
      assert.match(
        run.stderr,
        /^reduced examples\/envelopes\/staged-edit\.json: \d+ → \d+ characters, envelope route \(agentic-workspace\/v1\)/
      )
    }))

  it.effect("--report writes the reduction's report as JSON, on the envelope route", () =>
    Effect.gen(function*() {
      const run = yield* stagedEditRun
      assert.strictEqual(run.exitCode, 0)
      const report = JSON.parse(readFileSync(reportPath, "utf8"))
      assert.strictEqual(report.route, "envelope")
      assert.strictEqual(report.policy, "agentic-workspace/v1")
      assert.strictEqual(report.outputChars, run.stdout.length - 1)
    }))

  it.effect("--cap 4000 sends the overview past the cap onto the overflow route with a recovery list", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["reduce", "--cap", "4000", "examples/envelopes/inspect-overview.json"])
      assert.strictEqual(run.exitCode, 0)
      const output = JSON.parse(run.stdout)
      assert.isTrue(Array.isArray(output.data.recovery))
      assert.isAbove(output.data.recovery.length, 0)
      assert.isAtMost(run.stdout.length - 1, 4000)
      assert.include(run.stderr, "overflow route")
    }))

  it.effect("reading - takes the envelope from standard input, with options after it", () =>
    Effect.gen(function*() {
      const text = readFileSync(join(root, stagedEditPath), "utf8")
      const [fromStdin, fromFile] = yield* Effect.all([runCli(["reduce", "-", "--pretty"], text), stagedEditRun])
      assert.strictEqual(fromStdin.exitCode, 0)
      assert.deepStrictEqual(JSON.parse(fromStdin.stdout), JSON.parse(fromFile.stdout))
      assert.include(fromStdin.stdout, "\n  \"protocol\"")
      assert.include(fromStdin.stderr, "reduced standard input:")
    }))

  it.effect("a missing file exits 2 with one stderr line naming it and nothing on stdout", () =>
    Effect.gen(function*() {
      const missing = join(scratch, "no-such-envelope.json")
      const run = yield* runCli(["reduce", missing])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      const lines = run.stderr.trimEnd().split("\n")
      assert.strictEqual(lines.length, 1)
      assert.strictEqual(lines[0], `context-compressor: cannot read ${missing}: no such file or directory`)
    }))

  it.effect("a cap under the minimum exits 2 with a message naming --cap and its range", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["reduce", "--cap", "10", stagedEditPath])
      assert.strictEqual(run.exitCode, 2)
      assert.strictEqual(run.stdout, "")
      assert.include(run.stderr, "--cap")
      assert.include(run.stderr, "at least 1000")
    }))

  it.effect("compact - reads an OpenAI transcript from standard input and prints it back in the same format", () =>
    Effect.gen(function*() {
      const messages = [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "List the files." },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "bash", arguments: "{\"command\":\"ls\"}" }
          }]
        },
        { role: "tool", tool_call_id: "call_1", content: "README.md\nsrc" },
        { role: "assistant", content: "Two entries." }
      ]
      const result = yield* runCli(
        ["compact", "-", "--cache", join(scratch, "stdin-cache.db"), "--state", join(scratch, "stdin-state.db")],
        JSON.stringify(messages)
      )
      assert.strictEqual(result.exitCode, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), messages)
      assert.include(result.stderr, "standard input (openai): 5 messages")
    }))

  it.effect("compact --instructions compacts a transcript under the trigger, and the offline block shows the instructions", () =>
    Effect.gen(function*() {
      const turn = (n: number) => [
        { role: "user", content: `Step ${n}: list the files.` },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: `call_${n}`,
            type: "function",
            function: { name: "bash", arguments: "{\"command\":\"ls\"}" }
          }]
        },
        { role: "tool", tool_call_id: `call_${n}`, content: "README.md\nsrc" },
        { role: "assistant", content: "Two entries." }
      ]
      const messages = [{ role: "system", content: "You are a coding agent." }, ...turn(1), ...turn(2), ...turn(3)]
      const args = [
        "compact",
        "-",
        "--cache",
        join(scratch, "manual-cache.db"),
        "--state",
        join(scratch, "manual-state.db")
      ]
      const plain = yield* runCli(args, JSON.stringify(messages))
      assert.strictEqual(plain.exitCode, 0, plain.stderr)
      assert.deepStrictEqual(JSON.parse(plain.stdout), messages)
      const manual = yield* runCli([...args, "--instructions", "Keep the file list."], JSON.stringify(messages))
      assert.strictEqual(manual.exitCode, 0, manual.stderr)
      const view = JSON.parse(manual.stdout) as ReadonlyArray<{ role: string; content: string | null }>
      assert.isBelow(view.length, messages.length)
      const block = view.find((message) => message.content?.startsWith("# Context compacted") === true)
      assert.include(block?.content ?? "", "> Keep the file list.")
    }))
})
