import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as fc from "fast-check"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as ProxyCli from "../../../../src/apps/cli/ProxyCli.js"
import * as ChatServer from "../../../support/ChatCompletionsServer.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"
import * as Program from "../../../support/Program.js"
import { prop } from "../../../support/Property.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const root = resolve(fileURLToPath(new URL("../../../..", import.meta.url)))
const session: ReadonlyArray<unknown> = JSON.parse(
  readFileSync(join(root, "examples/session/agent-session.json"), "utf8")
)

const scratch = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "context-compressor-proxy-cli-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

const upstream = Effect.acquireRelease(
  Effect.promise(() => FakeUpstream.start()),
  (fake) => Effect.promise(() => fake.close())
)

/** The real executable's `proxy` until the scope ends; the address it announced on stderr. */
const proxyProcess = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
  Effect.acquireRelease(
    Compat.callback<
      {
        readonly base: string
        readonly child: ReturnType<typeof Program.spawnExecutable>
        readonly stderr: () => string
      },
      Error
    >((resume) => {
      const child = Program.spawnExecutable(["proxy", ...args], { env })
      let stderr = ""
      let stdout = ""
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
      child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk
        const match = /^proxying (http:\/\/\S+) -> /m.exec(stderr)
        if (match !== null) resume(Effect.succeed({ base: match[1]!, child, stderr: () => stderr + stdout }))
      })
      child.on("close", (code) => resume(Effect.fail(new Error(`proxy exited with ${code}: ${stderr}`))))
    }),
    ({ child }) => Effect.sync(() => child.kill("SIGINT"))
  )

const runOnce = (args: ReadonlyArray<string>) => Program.executable(args)

describe("context-compressor proxy", () => {
  it.scopedLive("the real program compacts for a model whose window config.toml's [proxy.windows] gives, and says so in a header", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const dir = yield* scratch
      writeFileSync(join(dir, "config.toml"), `[proxy.windows]\n"small-model" = 16000\n`)
      const { base, stderr } = yield* proxyProcess(["--upstream", fake.url, "--port", "0", "--dir", dir])
      const post = (model: string) =>
        Effect.promise(() =>
          fetch(`${base}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: "Bearer sk-x", "x-session-id": model },
            body: JSON.stringify({ model, messages: session.slice(0, 120) })
          }).then(async (response) => ({
            header: response.headers.get("x-context-compressor") ?? "",
            body: await response.json()
          }))
        )
      const small = yield* post("small-model")
      assert.match(small.header, /^compacted; cause=trigger;/, stderr())
      assert.isBelow(fake.received[0]!.body.messages.length, 120)
      const large = yield* post("large-model")
      assert.match(large.header, /^unchanged; messages=120;/, "the default window of 128,000 holds 120 messages")
      assert.strictEqual(fake.received[1]!.body.messages.length, 120)
      assert.strictEqual(fake.received[1]!.headers["authorization"], "Bearer sk-x")
      assert.isUndefined(fake.received[1]!.headers["x-session-id"])
    }))

  it.effect("a bad --upstream or a bad [proxy.windows] value is one line on stderr and exit code 2", () =>
    Effect.gen(function*() {
      const bad = yield* runOnce(["proxy", "--upstream", "ftp://example", "--port", "0"])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(bad.stdout, "")
      assert.strictEqual(
        bad.stderr.trim(),
        `context-compressor: --upstream must be an http:// or https:// URL (got "ftp://example")`
      )
      const dir = mkdtempSync(join(tmpdir(), "context-compressor-proxy-cli-"))
      try {
        writeFileSync(join(dir, "config.toml"), `[proxy.windows]\n"m" = "big"\n`)
        const refused = yield* Effect.flip(ProxyCli.readWindows(join(dir, "config.toml")))
        assert.include(refused.message, `proxy.windows."m" must be a whole number`)
        writeFileSync(join(dir, "config.toml"), `[proxy.windows]\n"m" = 200000\n`)
        assert.deepStrictEqual(yield* ProxyCli.readWindows(join(dir, "config.toml")), { m: 200_000 })
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  it.scopedLive("--upstream-timeout (over [proxy] upstream_timeout of config.toml) bounds the wait for an upstream that never answers: 504", () =>
    Effect.gen(function*() {
      const fake = yield* upstream
      const dir = yield* scratch
      writeFileSync(join(dir, "config.toml"), `[proxy]\nupstream_timeout = "30s"\n`)
      const { base } = yield* proxyProcess([
        "--upstream",
        fake.url,
        "--port",
        "0",
        "--dir",
        dir,
        "--upstream-timeout",
        "300ms"
      ])
      fake.script.push({ _tag: "hang" })
      const answer = yield* Effect.promise(() =>
        fetch(`${base}/v1/models`).then(async (r) => ({ status: r.status, body: await r.json() as any }))
      )
      assert.strictEqual(answer.status, 504)
      assert.strictEqual(answer.body.error.type, "upstream_timeout")
      assert.include(answer.body.error.message, "300ms")
    }))

  it.effect("a bad --store-timeout of proxy or serve is one line on stderr and exit code 2", () =>
    Effect.gen(function*() {
      const message =
        `context-compressor: --store-timeout must be a duration such as 3s or 500ms, at most 1 minute (got "2h")`
      const proxy = yield* runOnce([
        "proxy",
        "--upstream",
        "http://127.0.0.1:9",
        "--port",
        "0",
        "--store-timeout",
        "2h"
      ])
      assert.strictEqual(proxy.exitCode, 2)
      assert.strictEqual(proxy.stderr.trim(), message)
      const serve = yield* runOnce(["serve", "--port", "0", "--store-timeout", "2h"])
      assert.strictEqual(serve.exitCode, 2)
      assert.strictEqual(serve.stderr.trim(), message)
    }))

  it.effect("a bad --upstream-timeout or [proxy] upstream_timeout is one line on stderr and exit code 2", () =>
    Effect.gen(function*() {
      const bad = yield* runOnce([
        "proxy",
        "--upstream",
        "http://127.0.0.1:9",
        "--port",
        "0",
        "--upstream-timeout",
        "soon"
      ])
      assert.strictEqual(bad.exitCode, 2)
      assert.strictEqual(
        bad.stderr.trim(),
        `context-compressor: --upstream-timeout must be a duration such as 300s or 5m (got "soon")`
      )
      const dir = mkdtempSync(join(tmpdir(), "context-compressor-proxy-cli-"))
      try {
        writeFileSync(join(dir, "config.toml"), `[proxy]\nupstream_timeout = -3\n`)
        const refused = yield* Effect.flip(ProxyCli.readProxyConfig(join(dir, "config.toml")))
        assert.include(refused.message, "proxy.upstream_timeout must be a duration")
        writeFileSync(join(dir, "config.toml"), `[proxy]\nupstream_timeout = 90\nconnect_timeout = "2s"\n`)
        const config = yield* ProxyCli.readProxyConfig(join(dir, "config.toml"))
        assert.strictEqual(Duration.toMillis(config.upstreamTimeout!), 90_000)
        assert.strictEqual(Duration.toMillis(config.connectTimeout!), 2_000)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }))

  prop("parseDuration reads seconds and units, and refuses what is not a positive duration", [
    fc.integer({ min: 1, max: 100_000 }),
    fc.constantFrom(["ms", 1], ["s", 1_000], [" seconds", 1_000], ["m", 60_000], [" hours", 3_600_000])
  ], ([amount, [unit, scale]]) => {
    assert.strictEqual(
      Duration.toMillis(Option.getOrThrow(ProxyCli.parseDuration(`${amount}${unit}`))),
      amount * (scale as number)
    )
    assert.isTrue(Option.isNone(ProxyCli.parseDuration(`-${amount}${unit}`)))
    assert.isTrue(Option.isNone(ProxyCli.parseDuration(`${amount} fortnights`)))
  })
})

SqlDatabases.describeOn(SqlDatabases.postgres, "proxy --database-url", () => {
  it.scopedLive("two proxy processes on one database: the URL of config.toml's [proxy] or of the environment, the session compacted by one restored by the other, nothing written in either folder", () =>
    Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      const fake = yield* upstream
      const [one, other] = [yield* scratch, yield* scratch]
      writeFileSync(
        join(one, "config.toml"),
        `[proxy]\ndatabase_url = "${url}"\n\n[proxy.windows]\n"small-model" = 16000\n`
      )
      writeFileSync(join(other, "config.toml"), `[proxy.windows]\n"small-model" = 16000\n`)
      const first = yield* proxyProcess(["--upstream", fake.url, "--port", "0", "--dir", one])
      const second = yield* proxyProcess(["--upstream", fake.url, "--port", "0", "--dir", other], {
        CONTEXT_COMPRESSOR_DATABASE_URL: url
      })
      const post = (base: string, messages: number) =>
        Effect.promise(() =>
          fetch(`${base}/v1/chat/completions`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-session-id": "fleet" },
            body: JSON.stringify({ model: "small-model", messages: session.slice(0, messages) })
          }).then(async (response) => ({
            header: response.headers.get("x-context-compressor") ?? "",
            body: await response.text()
          }))
        )
      const compacted = yield* post(first.base, 120)
      assert.match(compacted.header, /^compacted; cause=trigger;/, first.stderr())
      const restored = yield* post(second.base, 121)
      assert.match(restored.header, /^restored; from=saved-compaction;/, second.stderr())
      const [a, b] = [fake.received[0]!.body.messages, fake.received[1]!.body.messages]
      assert.deepStrictEqual(b.slice(0, a.length), a, "the second worker sends the head the first sent")
      for (const dir of [one, other]) {
        assert.deepStrictEqual(readdirSync(dir), ["config.toml"], "the folder keeps only config.toml")
      }
    }))

  it.scopedLive("a worker killed (SIGKILL) during a compaction leaves no partial state: the next request, on the other worker, compacts once and gets a valid view", () =>
    Effect.gen(function*() {
      const { url } = yield* SqlDatabases.postgres.database
      const fake = yield* upstream
      // Worker A's summariser never answers: A is killed while it compacts.
      const summarizer = yield* ChatServer.start([{ hang: true }])
      const [one, other] = [yield* scratch, yield* scratch]
      const a = yield* proxyProcess([
        "--upstream",
        fake.url,
        "--port",
        "0",
        "--dir",
        one,
        "--window",
        "16000",
        "--database-url",
        url,
        "--summarizer",
        "openai",
        "--base-url",
        summarizer.baseUrl
      ])
      const b = yield* proxyProcess([
        "--upstream",
        fake.url,
        "--port",
        "0",
        "--dir",
        other,
        "--window",
        "16000",
        "--database-url",
        url
      ])
      const post = (base: string) =>
        fetch(`${base}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-session-id": "killed" },
          body: JSON.stringify({ model: "gpt-test", messages: session.slice(0, 150) })
        })
      const pending = post(a.base).then(() => "answered", () => "cut")
      for (let waited = 0; (yield* summarizer.received).length === 0; waited++) {
        assert.isBelow(waited, 400, `worker A never asked its summariser: ${a.stderr()}`)
        yield* Effect.sleep("25 millis")
      }
      a.child.kill("SIGKILL")
      assert.strictEqual(yield* Effect.promise(() => pending), "cut")
      const answer = yield* Effect.promise(() =>
        post(b.base).then(async (response) => ({
          status: response.status,
          report: response.headers.get("x-context-compressor") ?? ""
        }))
      )
      assert.strictEqual(answer.status, 200)
      assert.match(answer.report, /^compacted; cause=trigger;/, b.stderr())
      const sent = fake.received.at(-1)!.body.messages
      const calls = new Set(sent.flatMap((message: any) => (message.tool_calls ?? []).map((call: any) => call.id)))
      for (const message of sent.filter((message: any) => message.role === "tool")) {
        assert.isTrue(calls.has(message.tool_call_id), "every result answers a call it was sent")
      }
      const again = yield* Effect.promise(() =>
        post(b.base).then((response) => response.headers.get("x-context-compressor") ?? "")
      )
      assert.match(
        again,
        /^restored; from=saved-compaction;/,
        "the state B saved is the one in force: compaction 1, whole"
      )
      const rows = yield* Effect.flatMap(Compat.SqlClient, (sql) =>
        Effect.all([
          sql<{ readonly compactions: unknown }>`SELECT compactions FROM compaction_state WHERE session_id = 'killed'`,
          sql<
            { readonly entry: string; readonly messages: unknown; readonly last: unknown }
          >`SELECT entry, COUNT(*) AS messages, MAX(position) AS last FROM transcript_archive WHERE session_id = 'killed' GROUP BY entry`
        ])).pipe(Effect.provide(TestCompat.pgClient(url)), Effect.orDie)
      assert.deepStrictEqual(
        rows[0].map((row) => Number(row.compactions)),
        [1],
        "one state, of the one compaction that completed"
      )
      assert.deepStrictEqual(
        rows[1].filter((row) => row.entry.startsWith("compaction-")).map((row) => row.entry.split("-")[1]),
        ["1"],
        "one compaction's entry: the killed worker's left none"
      )
      for (const row of rows[1]) {
        assert.strictEqual(
          Number(row.messages),
          Number(row.last) + 1,
          `entry ${row.entry} is whole: positions 0 to its last`
        )
      }
    }))

  it.effect("a database that cannot be reached is one line on stderr and exit code 2, the password masked", () =>
    Effect.gen(function*() {
      const refused = yield* runOnce([
        "proxy",
        "--upstream",
        "http://127.0.0.1:9",
        "--port",
        "0",
        "--database-url",
        "postgres://worker:s3cret@127.0.0.1:1/fleet"
      ])
      assert.strictEqual(refused.exitCode, 2)
      assert.strictEqual(refused.stdout, "")
      assert.strictEqual(refused.stderr.trim().split("\n").length, 1, refused.stderr)
      assert.include(refused.stderr, "cannot use the database postgres://worker:***@127.0.0.1:1/fleet")
      assert.notInclude(refused.stderr, "s3cret")
    }))
})
