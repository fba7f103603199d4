/**
 * A command stopped by SIGINT or SIGTERM, with the real executable: it exits
 * with 130 or 143 (never the 0 of a command that finished), says so in one
 * line on stderr and writes nothing more. The runs are held at a known point
 * (an input FIFO with no writer, a summariser that never answers), so that the
 * signal's moment is not a race.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as CliIo from "../../../../src/apps/cli/CliIo.js"
import * as Signals from "../../../../src/apps/cli/Signals.js"
import * as ChatServer from "../../../support/ChatCompletionsServer.js"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"

const { fresh } = Scratch.make("signals")
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

/** A session long enough that `--window 24000` compacts it (and so calls the summariser). */
const session = () => {
  const messages: Array<Record<string, unknown>> = [{
    role: "user",
    content: "Migrate the importer to the new parser."
  }]
  for (let i = 0; i < 60; i++) {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: `call_${i}`,
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command: `pytest tests/test_${i}.py` }) }
      }]
    })
    messages.push({
      role: "tool",
      tool_call_id: `call_${i}`,
      content: `job_${i} exit code 0\n` + "collected 12 items, all passed\n".repeat(40)
    })
    messages.push({ role: "assistant", content: `Step ${i} passes.` })
  }
  return JSON.stringify(messages)
}

interface Ended {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** Starts the executable; `ended` waits for its end (killed after 20 s, so that a hang fails instead of blocking). */
const start = (args: ReadonlyArray<string>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const child = Program.spawnExecutable(args)
      child.stdin.end()
      let stdout = ""
      let stderr = ""
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
      const ended = Compat.callback<Ended>((resume) => {
        const killer = setTimeout(() => child.kill("SIGKILL"), 20_000)
        child.on("close", (exitCode, signal) => {
          clearTimeout(killer)
          resume(Effect.succeed({ exitCode, signal, stdout, stderr }))
        })
      })
      return { child, ended }
    }),
    ({ child }) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )

/** Waits (up to 20 s) until `ready` holds. */
const until = (ready: Effect.Effect<boolean>) =>
  Effect.repeat(Effect.andThen(Effect.sleep("20 millis"), ready), { until: (done) => done, times: 1_000 })

/** Whether process `pid` has `path` open (its input FIFO): the program is past its start and waiting on it. */
const holds = (pid: number, path: string): Effect.Effect<boolean> =>
  Effect.sync(() => {
    try {
      return Fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return Fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === path
        } catch {
          return false
        }
      })
    } catch {
      return false
    }
  })

const onLinux = Fs.existsSync("/proc/self/fd") ? it.scopedLive : it.scopedLive.skip

const stoppedIn = (child: ChildProcessWithoutNullStreams, signal: Signals.Stopping) =>
  Effect.sync(() => child.kill(signal))

describe("a command stopped by a signal", () => {
  it("the exit codes are 128 plus the signal's number, as a shell reports them", () => {
    assert.strictEqual(Signals.exitCodes.SIGINT, 128 + Os.constants.signals.SIGINT)
    assert.strictEqual(Signals.exitCodes.SIGTERM, 128 + Os.constants.signals.SIGTERM)
    assert.strictEqual(Signals.exitCodes.SIGINT, 130)
    assert.strictEqual(Signals.exitCodes.SIGTERM, 143)
  })

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    onLinux(
      `compact reading a FIFO with no writer: the first ${signal} ends it with ${
        Signals.exitCodes[signal]
      } and one line, nothing on stdout`,
      () =>
        Effect.gen(function*() {
          const dir = fresh()
          const input = NodePath.join(dir, "input.json")
          execFileSync("mkfifo", [input])
          const { child, ended } = yield* start(["compact", input, ...paths(dir)])
          yield* until(holds(child.pid!, input))
          yield* stoppedIn(child, signal)
          const result = yield* ended
          assert.strictEqual(result.exitCode, Signals.exitCodes[signal], result.stderr)
          assert.strictEqual(result.stdout, "")
          assert.deepStrictEqual(result.stderr.trimEnd().split("\n"), [
            Signals.stoppedLine("context-compressor", signal)
          ])
        }),
      30_000
    )
  }

  it.scopedLive(
    "compact --out stopped while the summariser is asked: 130, no output file, no temporary, the transcript untouched",
    () =>
      Effect.gen(function*() {
        const dir = fresh()
        const input = NodePath.join(dir, "session.json")
        const text = session()
        Fs.writeFileSync(input, text)
        const out = NodePath.join(dir, "out.json")
        const server = yield* ChatServer.start([{ hang: true }])
        const { child, ended } = yield* start([
          "compact",
          input,
          "--window",
          "24000",
          "--summarizer",
          "openai",
          "--base-url",
          server.baseUrl,
          "--model",
          "m",
          "--out",
          out,
          ...paths(dir)
        ])
        yield* until(Effect.map(server.received, (received) => received.length > 0))
        yield* stoppedIn(child, "SIGINT")
        const result = yield* ended
        assert.strictEqual(result.exitCode, 130, result.stderr)
        assert.strictEqual(result.stdout, "")
        assert.strictEqual(
          result.stderr.trimEnd().split("\n").at(-1),
          Signals.stoppedLine("context-compressor", "SIGINT")
        )
        assert.deepStrictEqual(Fs.readdirSync(dir).filter((name) => name.startsWith("out.json")), [])
        assert.strictEqual(Fs.readFileSync(input, "utf8"), text)
      }),
    30_000
  )

  it.scopedLive(
    "compact to stdout stopped by SIGTERM while the summariser is asked: 143 and empty stdout, so `compact s > t && mv t s` keeps s",
    () =>
      Effect.gen(function*() {
        const dir = fresh()
        const input = NodePath.join(dir, "session.json")
        Fs.writeFileSync(input, session())
        const server = yield* ChatServer.start([{ hang: true }])
        const { child, ended } = yield* start([
          "compact",
          input,
          "--window",
          "24000",
          "--summarizer",
          "openai",
          "--base-url",
          server.baseUrl,
          "--model",
          "m",
          ...paths(dir)
        ])
        yield* until(Effect.map(server.received, (received) => received.length > 0))
        yield* stoppedIn(child, "SIGTERM")
        const result = yield* ended
        assert.strictEqual(result.exitCode, 143, result.stderr)
        assert.notStrictEqual(result.exitCode, 0)
        assert.strictEqual(result.stdout, "")
      }),
    30_000
  )
})

describe("docs/cli.md", () => {
  it("lists every exit code the program ends with: the verbs' and the signals'", () => {
    const text = Fs.readFileSync(NodePath.join(Program.root, "docs/cli.md"), "utf8")
    const listed = [...text.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]))
    assert.deepStrictEqual(listed, [...Object.values(CliIo.ExitCode), ...Object.values(Signals.exitCodes)])
  })
})
