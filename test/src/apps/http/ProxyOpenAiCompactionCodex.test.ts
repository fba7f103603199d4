/**
 * The Codex CLI through an emulating proxy: Codex compacts remotely (a
 * `compaction_trigger` request) and continues across the compaction. Codex
 * is not a dependency: the test runs when `CODEX_BIN` names its executable or
 * /tmp/codex holds it, and is skipped with the reason otherwise (CI has none).
 * Codex compacts remotely only for a provider it takes for OpenAI's (its
 * `supports_remote_compaction`: the provider's name is "OpenAI", or Azure's
 * Responses): the custom provider is named so; under any other name Codex
 * compacts locally (a summarisation turn), which the proxy sees as a turn.
 */
import * as Compat from "#compat"
import * as HttpCompat from "#compat-http"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Proxy from "../../../../src/apps/http/Proxy.js"
import * as Compactor from "../../../../src/face/engine/Compactor.js"
import * as Testing from "../../../../src/face/layers/Testing.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as FakeUpstream from "../../../support/FakeUpstream.js"

const codex = process.env["CODEX_BIN"] ?? "/tmp/codex/node_modules/.bin/codex"
const skip = Fs.existsSync(codex) ? undefined : `no Codex CLI at ${codex} (set CODEX_BIN)`

const run = (args: ReadonlyArray<string>, env: Record<string, string>, cwd: string) =>
  Effect.promise(() =>
    new Promise<{ readonly code: number | null; readonly output: string }>((resolve) => {
      const child = ChildProcess.spawn(codex, args, {
        cwd,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"]
      })
      let output = ""
      child.stdout.on("data", (chunk) => (output += chunk))
      child.stderr.on("data", (chunk) => (output += chunk))
      child.on("close", (code) => resolve({ code, output }))
    })
  )

const describeCodex = skip === undefined ? describe : describe.skip

describeCodex(`Codex CLI through the proxy${skip === undefined ? "" : ` (skipped: ${skip})`}`, () => {
  it.scopedLive(
    "codex exec compacts remotely through an emulating proxy and continues from the compaction item",
    () =>
      Effect.gen(function*() {
        const fake = yield* Effect.acquireRelease(
          Effect.promise(() => FakeUpstream.start()),
          (upstream) => Effect.promise(() => upstream.close())
        )
        // Every answer reports a prompt past Codex's auto-compact limit below: its next turn compacts first.
        fake.usageTokens = 6_000
        const engine = Compactor.layer({ policies: builtInPolicies }).pipe(Layer.provideMerge(Testing.layer()))
        const server = Proxy.layer({ upstream: fake.url, window: 32_000, nativeCompaction: "emulate" }).pipe(
          Layer.provideMerge(HttpCompat.layerNodeServer(() => Http.createServer(), { port: 0, host: "127.0.0.1" })),
          Layer.provideMerge(engine),
          Layer.provide(Compat.nodeHttpClient)
        )
        const address = HttpCompat.tcpAddress(
          Context.get(yield* Layer.build(server), HttpCompat.HttpServer.HttpServer).address
        )
        if (address === undefined) throw new Error("not a TCP address")
        const home = yield* Effect.acquireRelease(
          Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-codex-"))),
          (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
        )
        const work = NodePath.join(home, "work")
        Fs.mkdirSync(work)
        Fs.writeFileSync(
          NodePath.join(home, "config.toml"),
          [
            `model = "gpt-test"`,
            `model_provider = "proxy"`,
            `model_context_window = 8000`,
            `model_auto_compact_token_limit = 4000`,
            ``,
            `[model_providers.proxy]`,
            `name = "OpenAI"`,
            `base_url = "http://127.0.0.1:${address.port}/v1"`,
            `wire_api = "responses"`,
            `env_key = "PROXY_TEST_KEY"`
          ].join("\n")
        )
        const env = { CODEX_HOME: home, PROXY_TEST_KEY: "sk-codex-test" }
        const first = yield* run(
          ["exec", "--skip-git-repo-check", `Say hello. ${"context ".repeat(1500)}`],
          env,
          work
        )
        assert.strictEqual(first.code, 0, first.output.slice(-2000))
        const second = yield* run(
          ["exec", "--skip-git-repo-check", "resume", "--last", "Second turn: say bye."],
          env,
          work
        )
        assert.strictEqual(second.code, 0, second.output.slice(-2000))
        assert.include(second.output, "context compacted")
        // Codex's compaction was answered by the proxy: the upstream got two turns and nothing of the compaction.
        assert.strictEqual(fake.received.length, 2)
        assert.isFalse(fake.received.some((request) => request.text.includes("compaction")))
        const continued: ReadonlyArray<any> = fake.received[1]!.body.input
        const texts = continued.map((item) => JSON.stringify(item.content ?? ""))
        assert.isTrue(texts.some((text) => text.includes("# Context compacted")))
        assert.isTrue(texts.at(-1)!.includes("Second turn: say bye."))
        // The first turn's message is gone as an item (the block holds the user's words).
        assert.isFalse(continued.some((item) => item.content?.[0]?.text?.startsWith("Say hello.")))
        assert.isTrue(continued.some((item) => item.role === "developer"))
      }),
    180_000
  )
})
