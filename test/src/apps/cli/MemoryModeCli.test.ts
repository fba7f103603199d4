/**
 * The program where better-sqlite3 cannot be loaded, as in a fresh
 * `npm install context-compressor`: the real executable is run with a module
 * resolution hook (`--import`, through NODE_OPTIONS) that refuses
 * `better-sqlite3` as Node refuses a package that is not installed. `serve`
 * and `proxy` then keep their state in memory and say so in one line on
 * start; `settings get` reads the files and the environment; `settings set`
 * says what to install.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as SqliteFile from "../../../../src/face/layers/sql/SqliteFile.js"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"

const scratch = Scratch.make("memory-mode")

/** A resolve hook under which better-sqlite3 is not installed. */
const hide = NodePath.join(scratch.root, "hide-better-sqlite3.mjs")
Fs.writeFileSync(
  hide,
  `
import { register } from "node:module"
register("data:text/javascript," + encodeURIComponent(\`
export async function resolve(specifier, context, next) {
  if (specifier === "better-sqlite3" || specifier.startsWith("better-sqlite3/")) {
    const error = new Error("Cannot find package 'better-sqlite3' imported from " + context.parentURL)
    error.code = "ERR_MODULE_NOT_FOUND"
    throw error
  }
  return next(specifier, context)
}\`))
`
)
const withoutSqlite = { NODE_OPTIONS: `--import=${hide}` }
const missing = "SQLite needs the package better-sqlite3, which is not installed: npm install better-sqlite3"

/** Starts a long-running verb without SQLite; gives its stderr lines once `ready` matches, and stops it with the scope. */
const started = (args: ReadonlyArray<string>, ready: RegExp) =>
  Effect.map(
    Effect.acquireRelease(
      Compat.callback<
        { readonly lines: ReadonlyArray<string>; readonly match: RegExpExecArray; readonly stop: () => void },
        Error
      >((resume) => {
        const child = Program.spawnExecutable(args, { env: withoutSqlite })
        let stderr = ""
        child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk
          const match = ready.exec(stderr)
          if (match !== null) {
            resume(Effect.succeed({ lines: stderr.trim().split("\n"), match, stop: () => void child.kill() }))
          }
        })
        child.once("exit", (code) => resume(Effect.fail(new Error(`${args[0]} exited with ${code}: ${stderr}`))))
        child.stdin.end()
        return Effect.sync(() => void child.kill())
      }),
      (running) => Effect.sync(running.stop)
    ),
    ({ lines, match }) => ({ lines, match })
  )

describe("SqliteFile.unavailable", () => {
  it.effect("names the command to run when better-sqlite3 is missing or its native module unbuilt, and is undefined when SQLite opens", () =>
    Effect.gen(function*() {
      assert.isUndefined(yield* SqliteFile.unavailable())
      const notInstalled = () =>
        Promise.reject(
          Object.assign(new Error("Cannot find package 'better-sqlite3' imported from /app/x.js"), {
            code: "ERR_MODULE_NOT_FOUND"
          })
        )
      assert.strictEqual(yield* SqliteFile.unavailable(notInstalled), missing)
      const unbuilt = () =>
        Promise.resolve({
          default: class {
            constructor() {
              throw new Error("Could not locate the bindings file. Tried: build/better_sqlite3.node")
            }
          }
        })
      assert.strictEqual(
        yield* SqliteFile.unavailable(unbuilt),
        "better-sqlite3 is installed but its native module is not built (installed with --ignore-scripts?): npm rebuild better-sqlite3"
      )
    }))
})

describe("the program without better-sqlite3", () => {
  it.scopedLive("serve starts in memory, says so in one line first, keeps a setting for its life and writes no database", () =>
    Effect.gen(function*() {
      const dir = scratch.fresh()
      const { lines, match } = yield* started(["serve", "--port", "0", "--dir", dir], /listening on (http:\/\/\S+)/)
      assert.strictEqual(lines.length, 2, lines.join("\n"))
      assert.strictEqual(
        lines[0],
        `warning: ${missing}; until then the settings overrides, compaction states and summary cache are kept in memory for this process's life (${dir}/config.toml is read, and compacted messages are archived in ${dir}/transcripts)`
      )
      const origin = match[1]!
      const set = yield* Effect.promise(() =>
        fetch(`${origin}/v1/settings/compaction`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ trigger_pct: 70 })
        })
      )
      assert.strictEqual(set.status, 200, yield* Effect.promise(() => set.text()))
      const read = (yield* Effect.promise(() =>
        fetch(`${origin}/v1/settings/compaction`).then((response) =>
          response.json()
        )
      )) as { readonly settings: Record<string, unknown> }
      assert.strictEqual(read.settings["trigger_pct"], 70, JSON.stringify(read))
      const compacted = yield* Effect.promise(() =>
        fetch(`${origin}/v1/compact`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ transcript: [{ role: "user", content: "hi" }], contextWindow: 128000 })
        })
      )
      assert.strictEqual(compacted.status, 200)
      assert.isFalse(Fs.existsSync(NodePath.join(dir, "state.db")))
      assert.isFalse(Fs.existsSync(NodePath.join(dir, "cache.db")))
    }))

  it.scopedLive("proxy starts in memory and says so in one line before it proxies", () =>
    Effect.gen(function*() {
      const dir = scratch.fresh()
      const { lines } = yield* started(
        ["proxy", "--upstream", "http://127.0.0.1:1", "--port", "0", "--dir", dir],
        /proxying \S+ -> /
      )
      assert.strictEqual(lines.length, 2, lines.join("\n"))
      assert.match(
        lines[0]!,
        /^warning: SQLite needs the package better-sqlite3, which is not installed: npm install better-sqlite3; until then/
      )
      assert.isFalse(Fs.existsSync(NodePath.join(dir, "state.db")))
    }))

  it.live("settings get reads config.toml and the environment, saying so in one line; settings set fails in one line naming what to install", () =>
    Effect.gen(function*() {
      const dir = scratch.fresh()
      Fs.writeFileSync(NodePath.join(dir, "config.toml"), "[compaction]\ntrigger_pct = 60\n")
      const paths = ["--state", NodePath.join(dir, "state.db"), "--config", NodePath.join(dir, "config.toml")]
      const get = yield* Program.executable(["settings", "get", "trigger_pct", ...paths], { env: withoutSqlite })
      assert.strictEqual(get.exitCode, 0, get.stderr)
      assert.match(get.stdout, /^trigger_pct = 60\b/)
      assert.deepStrictEqual(get.stderr.trim().split("\n"), [
        `warning: ${missing}; the settings are read from config.toml and the environment, with no persisted overrides`
      ])
      const set = yield* Program.executable(["settings", "set", "trigger_pct", "70", ...paths], { env: withoutSqlite })
      assert.strictEqual(set.exitCode, 2)
      assert.strictEqual(set.stdout, "")
      assert.deepStrictEqual(set.stderr.trim().split("\n"), [
        `context-compressor: cannot persist an override in ${
          paths[1]
        }: ${missing} (or set it in config.toml or its CONTEXT_COMPRESSOR_ variable)`
      ])
      assert.isFalse(Fs.existsSync(NodePath.join(dir, "state.db")))
    }))
})
