/**
 * The program's standard output under failure, with the real executable: a
 * write that fails (`/dev/full`: no space left on device) is exit code 2 and
 * one line; a reader that leaves (EPIPE) ends it quietly. And the temporaries
 * a killed `--out` left are removed by the next run.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Program from "../../../support/Program.js"

const scratch = Effect.acquireRelease(
  Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-stdout-"))),
  (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
)

/** The executable with its standard output on `stdout` (a file descriptor, or a pipe closed at once). */
const runTo = (args: ReadonlyArray<string>, stdout: number | "closed-pipe") =>
  Compat.callback<{ readonly exitCode: number | null; readonly stderr: string }>((resume) => {
    const [program, ...rest] = Program.executableCommand(args)
    const child = spawn(program!, rest, {
      cwd: Program.root,
      stdio: ["ignore", stdout === "closed-pipe" ? "pipe" : stdout, "pipe"]
    })
    if (stdout === "closed-pipe") child.stdout!.destroy()
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (exitCode) => resume(Effect.succeed({ exitCode, stderr })))
    return Effect.sync(() => child.kill())
  })

const devFull = Effect.acquireRelease(
  Effect.sync(() => Fs.openSync("/dev/full", "w")),
  (fd) => Effect.sync(() => Fs.closeSync(fd))
)

const envelope = NodePath.join(Program.root, "examples/envelopes/command-output.json")
const session = NodePath.join(Program.root, "examples/session/agent-session.json")
const full = "context-compressor: cannot write standard output: no space left on device"

describe("standard output", () => {
  it.scopedLive.skipIf(!Fs.existsSync("/dev/full"))(
    "reduce, compact and settings get to /dev/full: exit code 2 and one line, no success line",
    () =>
      Effect.gen(function*() {
        const dir = yield* scratch
        const fd = yield* devFull
        const state = ["--state", NodePath.join(dir, "state.db"), "--config", NodePath.join(dir, "config.toml")]
        const runs = yield* Effect.all([
          runTo(["reduce", envelope], fd),
          runTo(["compact", session, "--window", "32000", "--cache", NodePath.join(dir, "cache.db"), ...state], fd),
          runTo(["settings", "get", ...state], fd)
        ], { concurrency: "unbounded" })
        for (const ran of runs) {
          assert.strictEqual(ran.exitCode, 2, ran.stderr)
          assert.strictEqual(ran.stderr.trim(), full)
        }
      })
  )

  it.scopedLive("a reader that closes standard output ends the program quietly with its exit code", () =>
    Effect.gen(function*() {
      const ran = yield* runTo(["reduce", envelope], "closed-pipe")
      assert.strictEqual(ran.exitCode, 0)
      assert.strictEqual(ran.stderr, "")
    }))

  it.scopedLive("compact --out removes the temporaries of its own naming that a killed run left, and only those", () =>
    Effect.gen(function*() {
      const dir = yield* scratch
      const out = NodePath.join(dir, "out.json")
      // pid_max is at most 4,194,304: this process cannot be running
      const stale = `${out}.4194305.tmp`
      const otherFile = NodePath.join(dir, "other.json.4194305.tmp")
      const notOurs = `${out}.backup.tmp`
      for (const path of [stale, otherFile, notOurs]) Fs.writeFileSync(path, "{\"partial\":")
      const ran = yield* Program.inProcess([
        "compact",
        session,
        "--out",
        out,
        "--window",
        "32000",
        "--cache",
        NodePath.join(dir, "cache.db"),
        "--state",
        NodePath.join(dir, "state.db"),
        "--config",
        NodePath.join(dir, "config.toml")
      ])
      assert.strictEqual(ran.exitCode, 0, ran.stderr)
      assert.isTrue(Array.isArray(JSON.parse(Fs.readFileSync(out, "utf8"))))
      assert.isFalse(Fs.existsSync(stale))
      assert.isTrue(Fs.existsSync(otherFile), "another file's temporary is not ours to remove")
      assert.isTrue(Fs.existsSync(notOurs))
    }))
})
