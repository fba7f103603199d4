import * as CliCompat from "#compat-cli"
import { Command } from "#compat-cli"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { afterAll, assert, describe } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as ServeCli from "../../../../src/apps/cli/ServeCli.js"

const scratch = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-serve-cli-"))
afterAll(() => Fs.rmSync(scratch, { recursive: true, force: true }))

/** A root command with only `serve`, as the program's own root would have it. */
const root = Command.make("context-compressor").pipe(Command.withSubcommands([ServeCli.serveCommand]))
const runRoot = CliCompat.runner(root, { name: "context-compressor", version: "0.0.0" })

/** Runs `context-compressor ARGS` in a fiber, its stdout and stderr lines recorded. */
const start = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Console.consoleWith((console) => {
    const out: Array<string> = []
    const err: Array<string> = []
    return runRoot(args).pipe(
      TestCompat.withConsole(TestCompat.recordingConsole(console, out, err)),
      TestCompat.withConfigFrom(Object.entries(env)),
      Effect.provide(CliCompat.platformLayer),
      TestCompat.forkChild,
      Effect.map((fiber) => ({ fiber, out, err }))
    )
  })

/** The address printed on stderr, once it is. */
const listening = (err: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    for (let attempt = 0; attempt < 200; attempt++) {
      const line = err.find((each) => each.startsWith("listening on "))
      if (line !== undefined) return line.slice("listening on ".length)
      yield* Effect.sleep("25 millis")
    }
    throw new Error(`serve did not print its address: ${err.join("\n")}`)
  })

describe("serve", () => {
  it.live("--help names every option", () =>
    Effect.gen(function*() {
      const { fiber, out } = yield* start(["serve", "--help"])
      yield* Fiber.join(fiber)
      const help = out.join("\n")
      for (
        const option of [
          "--port",
          "--host",
          "--dir",
          "--token",
          "--summarizer",
          "--base-url",
          "--model",
          "--max-body-mb"
        ]
      ) assert.include(help, option)
    }))

  it.live("listens on 127.0.0.1 (a free port for --port 0), prints `listening on http://HOST:PORT` on stderr and serves until interrupted", () =>
    Effect.gen(function*() {
      const { err, fiber } = yield* start(["serve", "--port", "0", "--dir", NodePath.join(scratch, "plain")])
      const address = yield* listening(err)
      assert.match(address, /^http:\/\/127\.0\.0\.1:\d+$/)
      const answer = yield* Effect.promise(() =>
        fetch(`${address}/v1/settings/compaction`).then((response) => response.json() as Promise<any>)
      )
      assert.strictEqual(answer.settings.trigger_pct, 80)
      assert.isTrue(Fs.existsSync(NodePath.join(scratch, "plain", "state.db")))
      yield* Fiber.interrupt(fiber)
      const closed = yield* Effect.promise(() =>
        fetch(`${address}/v1/settings/compaction`).then(() => "open", () => "closed")
      )
      assert.strictEqual(closed, "closed")
    }))

  it.live("the token comes from --token or CONTEXT_COMPRESSOR_TOKEN", () =>
    Effect.gen(function*() {
      for (
        const [args, env] of [
          [["--token", "from-flag"], {}],
          [[], { CONTEXT_COMPRESSOR_TOKEN: "from-flag" }]
        ] as const
      ) {
        const { err, fiber } = yield* start(
          ["serve", "--port", "0", "--dir", NodePath.join(scratch, "token"), ...args],
          env
        )
        const address = yield* listening(err)
        const without = yield* Effect.promise(() =>
          fetch(`${address}/v1/settings/compaction`).then((response) => response.status)
        )
        const withToken = yield* Effect.promise(() =>
          fetch(`${address}/v1/settings/compaction`, { headers: { authorization: "Bearer from-flag" } }).then((
            response
          ) => response.status)
        )
        assert.deepStrictEqual([without, withToken], [401, 200])
        yield* Fiber.interrupt(fiber)
      }
    }))

  it.live("refuses --summarizer openai without --model, and a port in use, with one line naming the problem", () =>
    Effect.gen(function*() {
      const openai = yield* start(["serve", "--summarizer", "openai", "--dir", NodePath.join(scratch, "openai")])
      const exit = yield* Fiber.await(openai.fiber)
      assert.isTrue(Exit.isFailure(exit))
      assert.include(String(Exit.isFailure(exit) ? exit.cause : ""), "--summarizer openai needs --model")

      const first = yield* start(["serve", "--port", "0", "--dir", NodePath.join(scratch, "busy")])
      const port = (yield* listening(first.err)).split(":").pop()!
      const second = yield* start(["serve", "--port", port, "--dir", NodePath.join(scratch, "busy2")])
      const busy = yield* Fiber.await(second.fiber)
      assert.include(String(Exit.isFailure(busy) ? busy.cause : ""), `cannot listen on 127.0.0.1:${port}`)
      yield* Fiber.interrupt(first.fiber)
    }))

  it.live("a database that cannot be reached, from config.toml's [serve] database_url, ends serve with one line naming it, the password masked", () =>
    Effect.gen(function*() {
      const dir = NodePath.join(scratch, "fleet")
      Fs.mkdirSync(dir, { recursive: true })
      Fs.writeFileSync(
        NodePath.join(dir, "config.toml"),
        `[serve]\ndatabase_url = "postgres://worker:s3cret@127.0.0.1:1/fleet"\n`
      )
      const refused = yield* start(["serve", "--port", "0", "--dir", dir])
      const exit = yield* Fiber.await(refused.fiber)
      const cause = String(Exit.isFailure(exit) ? exit.cause : "")
      assert.include(cause, "cannot use the database postgres://worker:***@127.0.0.1:1/fleet")
      assert.notInclude(cause, "s3cret")
      assert.deepStrictEqual(Fs.readdirSync(dir), ["config.toml"], "no SQLite file is made in its place")
    }))

  it.effect("the database of a worker: the flag (or the environment) over config.toml's table of the verb; a value that is not text is refused", () =>
    Effect.gen(function*() {
      const path = NodePath.join(scratch, "database.toml")
      Fs.writeFileSync(
        path,
        `[serve]\ndatabase_url = "postgres://db/serve"\n[proxy]\ndatabase_url = "postgres://db/proxy"\n`
      )
      assert.strictEqual(yield* ServeCli.databaseUrlOf(Option.none(), path, "serve"), "postgres://db/serve")
      assert.strictEqual(yield* ServeCli.databaseUrlOf(Option.none(), path, "proxy"), "postgres://db/proxy")
      assert.strictEqual(
        yield* ServeCli.databaseUrlOf(Option.some("postgres://db/flag"), path, "proxy"),
        "postgres://db/flag"
      )
      assert.isUndefined(yield* ServeCli.databaseUrlOf(Option.none(), NodePath.join(scratch, "none.toml"), "serve"))
      Fs.writeFileSync(path, `[serve]\ndatabase_url = 5\n`)
      const refused = yield* Effect.flip(ServeCli.databaseUrlOf(Option.none(), path, "serve"))
      assert.include(refused.message, "serve.database_url must be a postgres:// URL")
    }))
})
