/**
 * Where `--out` and `--report` write, with the real executable: a regular
 * file is replaced whole through a temporary created exclusively and never
 * through a link; a device or a FIFO is written in place and stays what it
 * is; a symbolic link is refused with one line, neither followed nor replaced.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"

const { fresh } = Scratch.make("output-files")
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
const transcript = JSON.stringify([{ role: "user", content: "Rename the importer." }, {
  role: "assistant",
  content: "Renamed."
}])
const envelope = NodePath.join(Program.root, "examples/envelopes/command-output.json")

/** A folder with the transcript, and a file a link may point to. */
const setup = () => {
  const dir = fresh()
  const input = NodePath.join(dir, "session.json")
  Fs.writeFileSync(input, transcript)
  const target = NodePath.join(dir, "precious.txt")
  Fs.writeFileSync(target, "keep me\n")
  return { dir, input, target }
}

const oneLine = (stderr: string) =>
  stderr.trimEnd().split("\n").filter((line) => line.startsWith("context-compressor:"))

describe("--out and --report", () => {
  it.effect("--out naming a symbolic link is refused with one line; the link and the file it points to are left as they were", () =>
    Effect.gen(function*() {
      const { dir, input, target } = setup()
      const link = NodePath.join(dir, "out.json")
      Fs.symlinkSync(target, link)
      const ran = yield* Program.executable(["compact", input, "--out", link, ...paths(dir)])
      assert.strictEqual(ran.exitCode, 2, ran.stderr)
      assert.strictEqual(ran.stdout, "")
      assert.deepStrictEqual(oneLine(ran.stderr), [
        `context-compressor: cannot write ${link}: it is a symbolic link, which is neither written through nor replaced: name the file it points to`
      ])
      assert.isTrue(Fs.lstatSync(link).isSymbolicLink())
      assert.strictEqual(Fs.readFileSync(target, "utf8"), "keep me\n")
    }))

  it.effect("--report naming a symbolic link (compact and reduce) is refused; nothing is written through it", () =>
    Effect.gen(function*() {
      const { dir, input, target } = setup()
      const link = NodePath.join(dir, "report.json")
      Fs.symlinkSync(target, link)
      const compacted = yield* Program.executable([
        "compact",
        input,
        "--out",
        NodePath.join(dir, "out.json"),
        "--report",
        link,
        ...paths(dir)
      ])
      assert.strictEqual(compacted.exitCode, 2, compacted.stderr)
      assert.isFalse(
        Fs.existsSync(NodePath.join(dir, "out.json")),
        "a report that cannot be written takes the output with it"
      )
      const reduced = yield* Program.executable(["reduce", envelope, "--report", link])
      assert.strictEqual(reduced.exitCode, 2, reduced.stderr)
      assert.strictEqual(reduced.stdout, "")
      assert.include(reduced.stderr, "symbolic link")
      assert.isTrue(Fs.lstatSync(link).isSymbolicLink())
      assert.strictEqual(Fs.readFileSync(target, "utf8"), "keep me\n")
    }))

  it.scopedLive(
    "a symbolic link planted at the temporary name <out>.<pid>.tmp is never written through: one line, exit 2, its target unchanged",
    () =>
      Effect.gen(function*() {
        const { dir, target } = setup()
        const input = NodePath.join(dir, "input.json")
        execFileSync("mkfifo", [input])
        const out = NodePath.join(dir, "out.json")
        const child = Program.spawnExecutable(["compact", input, "--out", out, ...paths(dir)])
        yield* Effect.addFinalizer(() => Effect.sync(() => child.kill("SIGKILL")))
        child.stdin.end()
        let stderr = ""
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
        const closed = Compat.callback<number | null>((resume) =>
          void child.on("close", (code) => resume(Effect.succeed(code)))
        )
        // The program is held on its input until the link is in place, then given the transcript.
        const temporary = `${out}.${child.pid}.tmp`
        Fs.symlinkSync(target, temporary)
        Fs.writeFileSync(input, transcript)
        const exitCode = yield* closed.pipe(Effect.timeout("20 seconds"))
        assert.strictEqual(exitCode, 2, stderr)
        assert.deepStrictEqual(oneLine(stderr), [
          `context-compressor: cannot write ${out}: its temporary file ${
            NodePath.basename(temporary)
          } is already there and was not made by this run`
        ])
        assert.strictEqual(Fs.readFileSync(target, "utf8"), "keep me\n")
        assert.isTrue(
          Fs.lstatSync(temporary).isSymbolicLink(),
          "the planted link is not removed as if it were the run's own"
        )
        assert.isFalse(Fs.existsSync(out))
      }),
    30_000
  )

  it.scopedLive(
    "--out naming a FIFO writes into it in place: the reader gets the output and the FIFO stays a FIFO",
    () =>
      Effect.gen(function*() {
        const { dir, input } = setup()
        const fifo = NodePath.join(dir, "out.fifo")
        execFileSync("mkfifo", [fifo])
        const ran = Program.executable(["compact", input, "--out", fifo, ...paths(dir)])
        const read = Effect.promise(() => Fs.promises.readFile(fifo, "utf8"))
        const [result, received] = yield* Effect.all([ran, read], { concurrency: 2 }).pipe(Effect.timeout("20 seconds"))
        assert.strictEqual(result.exitCode, 0, result.stderr)
        assert.deepStrictEqual(JSON.parse(received), JSON.parse(transcript))
        assert.isTrue(Fs.lstatSync(fifo).isFIFO())
        assert.deepStrictEqual(Fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")), [])
      }),
    30_000
  )

  it.effect.skipIf(!Fs.existsSync("/dev/null"))(
    "--out /dev/null writes into the device: exit 0, and /dev/null is still a character device",
    () =>
      Effect.gen(function*() {
        const { dir, input } = setup()
        const ran = yield* Program.executable(["compact", input, "--out", "/dev/null", ...paths(dir)])
        assert.strictEqual(ran.exitCode, 0, ran.stderr)
        assert.isTrue(Fs.lstatSync("/dev/null").isCharacterDevice())
      })
  )

  it.effect.skipIf(!Fs.existsSync("/dev/full"))(
    "--out /dev/full is written in place and its failure said: exit 2, one line, the device left a device",
    () =>
      Effect.gen(function*() {
        const { dir, input } = setup()
        const ran = yield* Program.executable(["compact", input, "--out", "/dev/full", ...paths(dir)])
        assert.strictEqual(ran.exitCode, 2, ran.stderr)
        assert.deepStrictEqual(oneLine(ran.stderr), [
          "context-compressor: cannot write /dev/full: no space left on device"
        ])
        assert.isTrue(Fs.lstatSync("/dev/full").isCharacterDevice())
      })
  )

  it.effect("a regular --out is replaced whole and no temporary is left beside it", () =>
    Effect.gen(function*() {
      const { dir, input } = setup()
      const out = NodePath.join(dir, "out.json")
      Fs.writeFileSync(out, "old")
      const ran = yield* Program.executable(["compact", input, "--out", out, ...paths(dir)])
      assert.strictEqual(ran.exitCode, 0, ran.stderr)
      assert.deepStrictEqual(JSON.parse(Fs.readFileSync(out, "utf8")), JSON.parse(transcript))
      assert.deepStrictEqual(Fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")), [])
    }))
})
