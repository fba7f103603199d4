import * as CliCompat from "#compat-cli"
import { Command } from "#compat-cli"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Fs from "node:fs"
import * as Net from "node:net"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Capacity from "../../../../src/apps/cli/Capacity.js"
import * as ProxyCli from "../../../../src/apps/cli/ProxyCli.js"
import * as ServeCli from "../../../../src/apps/cli/ServeCli.js"

const none = {
  maxCompactions: Option.none(),
  maxQueue: Option.none(),
  queueTimeout: Option.none(),
  maxConnections: Option.none(),
  headTimeout: Option.none()
}

const withConfig = (text: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const dir = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-capacity-"))
      Fs.writeFileSync(NodePath.join(dir, "config.toml"), text)
      return dir
    }),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )

describe("Capacity", () => {
  it.effect("flags win over config.toml's [proxy] keys, which win over the defaults (nothing given: nothing set)", () =>
    Effect.gen(function*() {
      assert.deepStrictEqual(yield* Capacity.resolve(none), {})
      const table = {
        path: "config.toml",
        values: { max_compactions: 3n, max_queue: 10, queue_timeout: "2s", max_connections: 50, head_timeout: 4 }
      }
      assert.deepStrictEqual(yield* Capacity.resolve(none, table), {
        maxCompactions: 3,
        maxQueue: 10,
        queueTimeoutMs: 2_000,
        maxConnections: 50,
        headersTimeoutMs: 4_000
      })
      const flags = { ...none, maxQueue: Option.some(0), headTimeout: Option.some("500ms") }
      assert.deepStrictEqual(yield* Capacity.resolve(flags, table), {
        maxCompactions: 3,
        maxQueue: 0,
        queueTimeoutMs: 2_000,
        maxConnections: 50,
        headersTimeoutMs: 500
      })
    }))

  it.scoped("a value out of range or not a duration is refused in one line naming the flag or the key", () =>
    Effect.gen(function*() {
      const flag = yield* Effect.flip(Capacity.resolve({ ...none, maxCompactions: Option.some(0) }))
      assert.strictEqual(flag.message, "--max-compactions must be from 1 to 1024 (got 0)")
      const duration = yield* Effect.flip(Capacity.resolve({ ...none, queueTimeout: Option.some("soon") }))
      assert.strictEqual(
        duration.message,
        `--queue-timeout must be a duration such as 30s or 2m, at most 1 hour (got "soon")`
      )
      const dir = yield* withConfig("[proxy]\nmax_connections = 0\n")
      const key = yield* Effect.flip(ProxyCli.readProxyConfig(NodePath.join(dir, "config.toml")))
      assert.isTrue(key.message.endsWith("proxy.max_connections must be a whole number from 1 to 1000000 (got 0)"))
      const good = yield* withConfig(`[proxy]\nmax_queue = 7\nhead_timeout = "3s"\n`)
      assert.deepStrictEqual((yield* ProxyCli.readProxyConfig(NodePath.join(good, "config.toml"))).capacity, {
        maxQueue: 7,
        headersTimeoutMs: 3_000
      })
    }))

  it.scopedLive("serve --head-timeout 300ms closes a connection that sends nothing after about that long", () =>
    Effect.gen(function*() {
      const dir = yield* withConfig("")
      const err: Array<string> = []
      const recording = TestCompat.recordingConsole(yield* Console.consoleWith(Effect.succeed), [], err)
      const root = Command.make("context-compressor").pipe(Command.withSubcommands([ServeCli.serveCommand]))
      const fiber = yield* CliCompat.runner(root, { name: "context-compressor", version: "0.0.0" })(
        [
          "serve",
          "--port",
          "0",
          "--dir",
          dir,
          "--head-timeout",
          "300ms",
          "--max-connections",
          "4",
          "--max-queue",
          "0"
        ]
      ).pipe(TestCompat.withConsole(recording), Effect.provide(CliCompat.platformLayer), TestCompat.forkChild)
      yield* Effect.addFinalizer(() => Fiber.interrupt(fiber))
      while (!err.some((line) => line.startsWith("listening on "))) yield* Effect.sleep("20 millis")
      const port = Number(err.find((line) => line.startsWith("listening on "))!.split(":").pop())
      const closedAfter = yield* Effect.promise(() =>
        new Promise<number>((resolve) => {
          const opened = Date.now()
          const socket = Net.connect(port, "127.0.0.1")
          socket.on("error", () => undefined)
          socket.on("close", () => resolve(Date.now() - opened))
          setTimeout(() => socket.destroy(), 5_000)
        })
      )
      assert.isAtLeast(closedAfter, 250)
      assert.isBelow(closedAfter, 3_000)
    }))
})
