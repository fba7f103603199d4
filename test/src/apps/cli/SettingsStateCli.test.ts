/**
 * The state file of `settings` and `compact --state`, with the real
 * executable: a saved value is said to be saved even when the answer cannot
 * be printed, and a state folder that may only be read still serves the
 * verbs that only read it.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"

const scratch = Scratch.make("settings-state")

interface Ran {
  readonly exitCode: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The executable with stdout on `stdout` (a file descriptor) or a pipe, run as `uid` when given. */
const run = (args: ReadonlyArray<string>, options: { readonly stdout?: number; readonly uid?: number } = {}) =>
  Compat.callback<Ran>((resume) => {
    const [program, ...rest] = Program.executableCommand(args)
    const child = spawn(program!, rest, {
      cwd: Program.root,
      stdio: ["ignore", options.stdout ?? "pipe", "pipe"],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid })
    })
    let stdout = ""
    let stderr = ""
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.on("close", (exitCode) => resume(Effect.succeed({ exitCode, stdout, stderr })))
    child.on("error", (error) => resume(Effect.die(error)))
    return Effect.sync(() => child.kill())
  })

const devFull = Effect.acquireRelease(
  Effect.sync(() => Fs.openSync("/dev/full", "w")),
  (fd) => Effect.sync(() => Fs.closeSync(fd))
)

/** Root may write anywhere: the read-only folder is then tried by the user `nobody` (65534). */
const isRoot = process.getuid?.() === 0
const nobody = 65534

/**
 * Whether another user may run the Node binary: it and every folder above it are executable by
 * others (not so for a Node that npx keeps under root's home, as the Effect 4 suite's).
 */
const runnableByOthers = (path: string): boolean => {
  for (let at = path; at !== NodePath.dirname(at); at = NodePath.dirname(at)) {
    if ((Fs.statSync(at).mode & 0o001) === 0) return false
  }
  return true
}

describe("settings and the state file", () => {
  it.scopedLive.skipIf(!Fs.existsSync("/dev/full"))(
    "settings set with a failed stdout exits 2 with one line saying the value is saved, and it is",
    () =>
      Effect.gen(function*() {
        const dir = scratch.fresh()
        const state = ["--state", NodePath.join(dir, "state.db"), "--config", NodePath.join(dir, "config.toml")]
        const set = yield* run(["settings", "set", "trigger_pct", "70", ...state], { stdout: yield* devFull })
        assert.strictEqual(set.exitCode, 2, set.stderr)
        assert.deepStrictEqual(set.stderr.trimEnd().split("\n"), [
          `context-compressor: trigger_pct = 70 is persisted in ${
            NodePath.join(dir, "state.db")
          }, but cannot write standard output: no space left on device`
        ])
        const got = yield* run(["settings", "get", "trigger_pct", ...state])
        assert.strictEqual(got.stdout.trim(), "trigger_pct = 70  # persisted override")
        const unset = yield* run(["settings", "unset", "trigger_pct", ...state], { stdout: yield* devFull })
        assert.strictEqual(unset.exitCode, 2)
        assert.include(unset.stderr, "the override of trigger_pct is removed from")
      }),
    30_000
  )

  it.effect.skipIf(process.getuid === undefined || (isRoot && !runnableByOthers(process.execPath)))(
    "with a read-only state folder, settings get and compact --state read the overrides and exit 0",
    () =>
      Effect.gen(function*() {
        const dir = scratch.fresh()
        const stateDir = NodePath.join(dir, "state")
        const state = NodePath.join(stateDir, "state.db")
        const config = NodePath.join(dir, "config.toml")
        const saved = yield* run(["settings", "set", "trigger_pct", "70", "--state", state, "--config", config])
        assert.strictEqual(saved.exitCode, 0, saved.stderr)
        const writable = NodePath.join(dir, "writable")
        Fs.mkdirSync(writable)
        const input = NodePath.join(writable, "session.json")
        Fs.writeFileSync(
          input,
          JSON.stringify([{ role: "user", content: "Rename the importer." }, {
            role: "assistant",
            content: "Renamed."
          }])
        )
        // Readable and searchable by all, writable by none but root; the program runs as nobody when this is root.
        for (const folder of [scratch.root, dir, writable]) Fs.chmodSync(folder, 0o755)
        Fs.chmodSync(writable, 0o777)
        Fs.chmodSync(stateDir, 0o555)
        const as = isRoot ? { uid: nobody } : {}
        const got = yield* run(["settings", "get", "trigger_pct", "--state", state, "--config", config], as)
        assert.strictEqual(got.exitCode, 0, got.stderr)
        assert.strictEqual(got.stdout.trim(), "trigger_pct = 70  # persisted override")
        const compacted = yield* run([
          "compact",
          input,
          "--state",
          state,
          "--config",
          config,
          "--cache",
          NodePath.join(writable, "cache.db"),
          "--window",
          "10000"
        ], as)
        assert.strictEqual(compacted.exitCode, 0, compacted.stderr)
        // The trigger is the persisted 70 % of the window (the default, 80 %, would make it 8,000).
        assert.include(compacted.stderr, "under the trigger of 7,000")
        assert.deepStrictEqual(Fs.readdirSync(stateDir), ["state.db"], "nothing is made in the read-only folder")
        Fs.chmodSync(stateDir, 0o755)
      }),
    30_000
  )
})
