/**
 * `compact` beyond the trigger: `--attended` (asking on a real terminal, and
 * refusing without one), `--overflow` and `--overflow-error` (the main
 * model's context overflow), `--reported-tokens` (the provider's count).
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as CompactCli from "../../../../src/apps/cli/CompactCli.js"
import { pairingProblems, toAnthropic } from "../../../openai.js"
import * as ChatServer from "../../../support/ChatCompletionsServer.js"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"

const root = NodeUrl.fileURLToPath(new URL("../../../..", import.meta.url))
const { fresh: freshDir } = Scratch.make("signals-cli")
const paths = (
  dir: string
) => [
  "--cache",
  NodePath.join(dir, "cache.db"),
  "--state",
  NodePath.join(dir, "state.db"),
  "--config",
  NodePath.join(dir, "config.toml")
]

/** Runs `compact` in this process, recording what it prints. */
const run = (args: ReadonlyArray<string>) => Program.inProcess(["compact", ...args])

/** An OpenAI chat transcript of `turns` turns, each a command and its output. */
const session = (turns: number) => {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent working in a repository." },
    { role: "user", content: "Migrate the importer to the new parser and keep job ids in the notes." }
  ]
  for (let i = 0; i < turns; i++) {
    if (i > 0) messages.push({ role: "user", content: `Continue with step ${i}: check the next module and report.` })
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: `call_${i}`,
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command: `pytest tests/test_step${i}.py` }) }
      }]
    })
    messages.push({
      role: "tool",
      tool_call_id: `call_${i}`,
      content: `job_${1000 + i}x exit code 0\n` + "collected 12 items, all passed\n".repeat(40)
    })
    messages.push({ role: "assistant", content: `Step ${i} passes.` })
  }
  return messages
}

const writeSession = (dir: string, turns: number): string => {
  const path = NodePath.join(dir, "session.json")
  Fs.writeFileSync(path, JSON.stringify(session(turns)))
  return path
}

describe("compact --attended", () => {
  it("refuses without a terminal on standard input, and when standard input carries the transcript", () => {
    assert.include(CompactCli.attendedRefusal("session.json", false), "standard input is not one")
    assert.include(CompactCli.attendedRefusal("-", true), "carries the transcript")
    assert.isUndefined(CompactCli.attendedRefusal("session.json", true))
  })

  it.effect("without a terminal it ends with one line and exit 2, writing nothing", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const out = NodePath.join(dir, "out.json")
      const result = yield* run([writeSession(dir, 30), "--attended", "--out", out, ...paths(dir)])
      assert.strictEqual(result.exitCode, 2)
      assert.strictEqual(result.stderr.split("\n").length, 1)
      assert.include(result.stderr, "--attended asks on the terminal")
      assert.strictEqual(result.stdout, "")
      assert.isFalse(Fs.existsSync(out))
    }))

  const scriptPath = "/usr/bin/script"
  // script(1) of util-linux gives the program a real terminal; without it the test is skipped.
  const onTerminal = it.scoped.skipIf(!Fs.existsSync(scriptPath))
  onTerminal(
    "on a real terminal (script(1)) it asks after two failures, and the Trim typed there is followed",
    () =>
      Effect.gen(function*() {
        const dir = freshDir()
        const input = writeSession(dir, 60)
        const out = NodePath.join(dir, "out.json")
        const server = yield* ChatServer.start([ChatServer.error(500, "boom"), ChatServer.error(500, "boom again")])
        const args = [
          "compact",
          input,
          "--window",
          "24000",
          "--attended",
          "--summarizer",
          "openai",
          "--base-url",
          server.baseUrl,
          "--model",
          "m",
          "--out",
          out,
          ...paths(dir)
        ]
        const command = Program.executableCommand(args).map((arg) => `'${arg}'`).join(" ")
        const terminal = yield* Compat.callback<{ readonly exitCode: number | null; readonly screen: string }>(
          (resume) => {
            const child = spawn(scriptPath, ["-qec", command, "/dev/null"], { cwd: root, stdio: "pipe" })
            let screen = ""
            let answered = false
            child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
              screen += chunk
              if (!answered && screen.includes("[r/t]")) {
                answered = true
                child.stdin.write("t\n")
              }
            })
            child.on("close", (exitCode) => resume(Effect.succeed({ exitCode, screen })))
            return Effect.sync(() => child.kill())
          }
        ).pipe(Effect.timeout("60 seconds"))
        assert.strictEqual(terminal.exitCode, 0, terminal.screen)
        assert.include(terminal.screen, "Retry the summariser, or Trim the oldest turns")
        assert.include(terminal.screen, "boom again")
        assert.include(terminal.screen, "trimmed without a summary")
        assert.strictEqual((yield* server.received).length, 2, "Trim makes no third call")
        const view = JSON.parse(Fs.readFileSync(out, "utf8"))
        assert.isTrue(view.some((message: any) =>
          typeof message.content === "string" && message.content.startsWith("# Context compacted")
        ))
      }),
    90_000
  )
})

describe("compact --overflow and --reported-tokens", () => {
  it.effect("--overflow compacts a transcript under the trigger, and the line says it followed an overflow", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = writeSession(dir, 12)
      const quiet = yield* run([input, "--out", NodePath.join(dir, "quiet.json"), ...paths(dir)])
      assert.include(quiet.stderr, "unchanged")
      const report = NodePath.join(dir, "report.json")
      const overflowed = yield* run([
        input,
        "--overflow",
        "--out",
        NodePath.join(dir, "out.json"),
        "--report",
        report,
        ...paths(dir)
      ])
      assert.strictEqual(overflowed.exitCode, 0, overflowed.stderr)
      assert.include(overflowed.stderr, "after the main model's context overflow")
      const written = JSON.parse(Fs.readFileSync(report, "utf8"))
      assert.strictEqual(written.compacted.cause, "overflow")
      assert.isBelow(written.tokensAfter, written.tokensBefore)
    }))

  it.effect("--overflow-error reads the provider's error: its limit is believed; a body that is no overflow is said so on stderr", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = writeSession(dir, 12)
      const errorPath = NodePath.join(dir, "error.json")
      Fs.writeFileSync(
        errorPath,
        Fs.readFileSync(NodePath.join(root, "test/src/face/engine/fixtures/overflow/llama-cpp.json"))
      )
      const report = NodePath.join(dir, "report.json")
      const named = yield* run([
        input,
        "--overflow-error",
        errorPath,
        "--out",
        NodePath.join(dir, "out.json"),
        "--report",
        report,
        ...paths(dir)
      ])
      assert.strictEqual(named.exitCode, 0, named.stderr)
      const written = JSON.parse(Fs.readFileSync(report, "utf8"))
      // The llama.cpp body names a 4,096-token context holding 4,476 prompt tokens: the trigger follows it.
      assert.isAtMost(written.trigger, Math.floor(4_096 * 0.8))
      assert.strictEqual(written.compacted.cause, "overflow")
      const other = NodePath.join(dir, "other.json")
      Fs.writeFileSync(
        other,
        Fs.readFileSync(NodePath.join(root, "test/src/face/engine/fixtures/overflow/not-overflow-rate-limit.json"))
      )
      const unknown = yield* run([
        input,
        "--overflow-error",
        other,
        "--out",
        NodePath.join(dir, "out2.json"),
        ...paths(freshDir())
      ])
      assert.strictEqual(unknown.exitCode, 0, unknown.stderr)
      assert.include(unknown.stderr, "is not a context-overflow error the classifier knows")
      const missing = yield* run([input, "--overflow-error", NodePath.join(dir, "absent.json"), ...paths(dir)])
      assert.strictEqual(missing.exitCode, 2)
      assert.include(missing.stderr, "cannot read --overflow-error")
    }))

  it.effect("--reported-tokens past the trigger compacts a small transcript; under it a large one is unchanged; out of range or with a directory it is refused", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const small = writeSession(dir, 12)
      const report = NodePath.join(dir, "report.json")
      const quiet = yield* run([small, "--window", "24000", "--out", NodePath.join(dir, "quiet.json"), ...paths(dir)])
      const smallTokens = Number(/, ([\d,]+) tokens, under the trigger/.exec(quiet.stderr)![1]!.replaceAll(",", ""))
      // Past the trigger of 19,200 (the window's 4,800 above it are the reply's) by a fixed overhead the messages can make room for.
      const full = 19_200 + Math.floor(smallTokens / 2)
      const reported = yield* run([
        small,
        "--window",
        "24000",
        "--reported-tokens",
        String(full),
        "--out",
        NodePath.join(dir, "out.json"),
        "--report",
        report,
        ...paths(dir)
      ])
      assert.strictEqual(reported.exitCode, 0, reported.stderr)
      assert.strictEqual(JSON.parse(Fs.readFileSync(report, "utf8")).compacted.tokensBefore, full)
      // An overhead that alone passes the trigger: one line with both counts, exit 2.
      const over = yield* run([
        small,
        "--window",
        "24000",
        "--reported-tokens",
        "120000",
        "--out",
        NodePath.join(dir, "over.json"),
        ...paths(dir)
      ])
      assert.strictEqual(over.exitCode, 2)
      assert.include(over.stderr, "fixed overhead")
      assert.include(over.stderr, "120000")
      assert.strictEqual(over.stderr.trim().split("\n").length, 1)
      const largeDir = freshDir()
      const large = writeSession(largeDir, 60)
      const counted = yield* run([
        large,
        "--window",
        "24000",
        "--out",
        NodePath.join(largeDir, "a.json"),
        ...paths(largeDir)
      ])
      assert.include(counted.stderr, "messages compacted")
      const under = yield* run([
        large,
        "--window",
        "24000",
        "--reported-tokens",
        "5000",
        "--out",
        NodePath.join(largeDir, "b.json"),
        ...paths(freshDir())
      ])
      assert.include(under.stderr, "unchanged")
      const negative = yield* run([small, "--reported-tokens", "-5", ...paths(dir)])
      assert.strictEqual(negative.exitCode, 2)
      assert.include(negative.stderr, "--reported-tokens")
      const directory = yield* run([
        dir,
        "--reported-tokens",
        "100",
        "--out",
        NodePath.join(dir, "outdir"),
        ...paths(dir)
      ])
      assert.strictEqual(directory.exitCode, 2)
      assert.include(directory.stderr, "one transcript file")
    }))
})

describe("compact on real inputs as they are", () => {
  it.effect("a session whose call ids repeat (the same id on every call) compacts, and the output pairs each call with its result under the ids as sent", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const messages = session(40).map((message) =>
        message["role"] === "tool"
          ? { ...message, tool_call_id: "call_HGn16KZh9oNCruxsMJ4gYXan" }
          : Array.isArray(message["tool_calls"])
          ? {
            ...message,
            tool_calls: (message["tool_calls"] as Array<Record<string, unknown>>).map((call) => ({
              ...call,
              id: "call_HGn16KZh9oNCruxsMJ4gYXan"
            }))
          }
          : message
      )
      const path = NodePath.join(dir, "reused.json")
      Fs.writeFileSync(path, JSON.stringify(messages))
      const out = NodePath.join(dir, "out.json")
      const result = yield* run([path, "--window", "8000", "--out", out, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      assert.include(result.stderr, "messages compacted")
      const written = JSON.parse(Fs.readFileSync(out, "utf8")) as Array<Record<string, unknown>>
      assert.deepStrictEqual(pairingProblems(written), [])
      const ids = new Set(
        written.flatMap((m) => [
          ...((m["tool_calls"] as Array<{ id: string }> | undefined) ?? []).map((c) => c.id),
          ...(m["tool_call_id"] === undefined ? [] : [m["tool_call_id"]])
        ])
      )
      assert.deepStrictEqual([...ids], ["call_HGn16KZh9oNCruxsMJ4gYXan"])
    }))

  it.effect("an Anthropic document given as --format openai is refused with one line naming anthropic, and writes nothing", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const path = NodePath.join(dir, "anthropic.json")
      Fs.writeFileSync(path, JSON.stringify(toAnthropic(session(20))))
      const out = NodePath.join(dir, "out.json")
      const result = yield* run([path, "--format", "openai", "--out", out, ...paths(dir)])
      assert.strictEqual(result.exitCode, 2)
      assert.strictEqual(result.stderr.trim().split("\n").length, 1)
      assert.include(result.stderr, "marks of the anthropic format")
      assert.isFalse(Fs.existsSync(out))
    }))
})
