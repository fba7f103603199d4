/**
 * The layers that read files, the environment and the network, compiled from the Effect 3 face's
 * modules for Effect 4 (docs/effect4.md, "One source"): the chat-completions summariser against a
 * local fake server over Effect 4's fetch client, its options from a `ConfigProvider`; the
 * settings from a config.toml file and the environment (`src/face/layers/internal/SettingsLevels.ts`, which
 * `SettingsConfig` re-exports beside its SQL overrides) over a file system of node:fs; the
 * transcript archive's files; and attention asked on a terminal's streams.
 */
import { assert, describe, it } from "@effect/vitest"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Duration_ from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FileSystem from "effect/FileSystem"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Path from "effect/Path"
import * as PlatformError from "effect/PlatformError"
import * as Redacted from "effect/Redacted"
import * as Result from "effect/Result"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { PassThrough } from "node:stream"
import * as Layers from "../../src/effect4/layers/index.js"
import * as SettingsLevels from "../../src/face/layers/internal/SettingsLevels.js"
import * as SettingsSources from "../../src/face/layers/internal/SettingsSources.js"
import type * as SummarizerChatCompletionsModule from "../../src/face/layers/SummarizerChatCompletions.js"
import * as Transcript from "../../src/face/models/Transcript.js"
import * as Attention from "../../src/face/services/Attention.js"
import * as Settings from "../../src/face/services/Settings.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"
import * as TranscriptArchive from "../../src/face/services/TranscriptArchive.js"
import * as Server from "../../test/support/ChatCompletionsServer.js"
import { request } from "../../test/support/SummaryRequests.js"

const { AttentionTerminal, SummarizerChatCompletions, TranscriptArchiveFile } = Layers

const summary = "## Primary request\nFix the parser cache.\n\n## Key decisions\nRead the files first."

/** One summariser call against a server answering `script`, over Effect 4's fetch client. */
const summarizeAgainst = (
  script: ReadonlyArray<Server.Reply>,
  options: Partial<SummarizerChatCompletionsModule.Options> = {}
) =>
  Effect.gen(function*() {
    const server = yield* Server.start(script)
    const summarizer = yield* SummarizerChatCompletions.make({ baseUrl: server.baseUrl, ...options })
    const outcome = yield* Effect.result(summarizer.summarize(request))
    return { outcome, received: yield* server.received }
  }).pipe(Effect.provide(FetchHttpClient.layer))

const failure = (outcome: Result.Result<string, Summarizer.SummarizerError>): Summarizer.SummarizerError => {
  if (Result.isSuccess(outcome)) assert.fail(`expected a SummarizerError, got ${JSON.stringify(outcome.success)}`)
  return outcome.failure
}

describe("SummarizerChatCompletions on Effect 4", () => {
  it.live("a good summary is returned as written, from the request with the model, max_tokens and bearer key", () =>
    Effect.scoped(Effect.gen(function*() {
      const { outcome, received } = yield* summarizeAgainst([Server.completion(summary)], {
        model: "pinned-model",
        apiKey: Redacted.make("sk-test")
      })
      assert.deepStrictEqual(outcome, Result.succeed(summary))
      const [sent] = received
      assert.strictEqual(sent?.method, "POST")
      assert.strictEqual(sent?.path, "/v1/chat/completions")
      assert.strictEqual(sent?.headers["authorization"], "Bearer sk-test")
      assert.include(String(sent?.headers["accept"]), "application/json")
      assert.deepStrictEqual(sent?.body, {
        model: "pinned-model",
        messages: [{ role: "system", content: request.system }, { role: "user", content: request.prompt }],
        max_tokens: 1_234
      })
    })))

  it.live("a 429 is rate-limited with the wait the server asked for; a 400 saying the prompt is too long, context-overflow", () =>
    Effect.scoped(Effect.gen(function*() {
      const limited = failure(
        (yield* summarizeAgainst([Server.error(429, "slow down", null, { "retry-after": "2" })], {
          maxRetryAfter: "1 millis"
        })).outcome
      )
      assert.strictEqual(limited.reason, "rate-limited")
      assert.strictEqual(limited.retryAfterMs, 2_000)
      assert.include(limited.message, "answered 429 (rate-limited): slow down")
      const overflow = failure(
        (yield* summarizeAgainst([
          Server.error(400, "This model's maximum context length is 8192 tokens", "context_length_exceeded")
        ])).outcome
      )
      assert.strictEqual(overflow.reason, "context-overflow")
    })))

  it.live("a reply that is not a chat completion is malformed-reply, naming where; one cut off, cut-off", () =>
    Effect.scoped(Effect.gen(function*() {
      const missing = failure((yield* summarizeAgainst([{ json: { id: "x" } }])).outcome)
      assert.strictEqual(missing.reason, "malformed-reply")
      assert.include(missing.message, "the JSON is not a chat completion (choices is missing)")
      const notJson = failure((yield* summarizeAgainst([{ body: "<html>" }])).outcome)
      assert.include(notJson.message, "the body is not JSON")
      const cut = failure((yield* summarizeAgainst([Server.completion("## Goal\nFix", "length")])).outcome)
      assert.strictEqual(cut.reason, "cut-off")
      const large = failure(
        (yield* summarizeAgainst([Server.completion("x".repeat(4_000))], { maxReplyBytes: 1_000 })).outcome
      )
      assert.include(large.message, "past the limit of 1000 bytes")
    })))

  it.live("a server that never answers is a timeout; one that refuses the connection, unavailable", () =>
    Effect.scoped(
      Effect.gen(function*() {
        const hung = failure((yield* summarizeAgainst([{ hang: true }], { timeout: "200 millis" })).outcome)
        assert.strictEqual(hung.reason, "timeout")
        assert.include(hung.message, "gave no answer within")
        const baseUrl = yield* Server.refusingBaseUrl
        const summarizer = yield* SummarizerChatCompletions.make({ baseUrl })
        const refused = failure(yield* Effect.result(summarizer.summarize(request)))
        assert.strictEqual(refused.reason, "unavailable")
        assert.include(refused.message, "could not be reached")
      }).pipe(Effect.provide(FetchHttpClient.layer))
    ))

  it.live("layerConfig reads the server, the key and the timeout from the ConfigProvider; a key for another server is withheld", () =>
    Effect.scoped(Effect.gen(function*() {
      const server = yield* Server.start([Server.completion(summary), Server.completion(summary)])
      const ask = (env: Record<string, string>) =>
        Effect.gen(function*() {
          const summarizer = yield* Summarizer.Summarizer
          return yield* summarizer.summarize(request)
        }).pipe(
          Effect.provide(SummarizerChatCompletions.layerConfig.pipe(Layer.provide(FetchHttpClient.layer))),
          Effect.provide(ConfigProvider.layer(
            ConfigProvider.fromEnv({ env: { CONTEXT_COMPRESSOR_OPENAI_BASE_URL: server.baseUrl, ...env } })
          ))
        )
      assert.strictEqual(yield* ask({ CONTEXT_COMPRESSOR_OPENAI_API_KEY: "sk-local" }), summary)
      assert.strictEqual(yield* ask({ OPENAI_API_KEY: "sk-openai" }), summary)
      const [first, second] = yield* server.received
      // CONTEXT_COMPRESSOR_OPENAI_API_KEY goes to CONTEXT_COMPRESSOR_OPENAI_BASE_URL; OPENAI_API_KEY is api.openai.com's.
      assert.strictEqual(first?.headers["authorization"], "Bearer sk-local")
      assert.strictEqual(second?.headers["authorization"], undefined)
      const options = yield* Effect.gen(function*() {
        return yield* SummarizerChatCompletions.config
      }).pipe(
        Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({
          env: {
            CONTEXT_COMPRESSOR_OPENAI_BASE_URL: server.baseUrl,
            CONTEXT_COMPRESSOR_OPENAI_API_KEY: "sk-local",
            CONTEXT_COMPRESSOR_SUMMARIZER_TIMEOUT: "90 seconds"
          }
        })))
      )
      assert.strictEqual(options.baseUrl, server.baseUrl)
      assert.strictEqual(
        Option.getOrUndefined(Option.map(Option.fromNullishOr(options.apiKey), Redacted.value)),
        "sk-local"
      )
      assert.strictEqual(
        options.timeout === undefined ? undefined : Duration_.toMillis(Duration_.fromInputUnsafe(options.timeout)),
        90_000
      )
    })))
})

/** A file system over node:fs: the operations the settings and the archive use. */
const nodeFileSystem = Layer.merge(
  FileSystem.layerNoop({
    stat: (path) =>
      Effect.tryPromise({
        try: () => Fs.promises.stat(path, { bigint: true }),
        catch: (cause) => toPlatformError(cause, "stat", path)
      }).pipe(Effect.map((stats): FileSystem.File.Info => ({
        type: stats.isFile() ? "File" : stats.isDirectory() ? "Directory" : "Unknown",
        mtime: Option.some(stats.mtime),
        atime: Option.some(stats.atime),
        birthtime: Option.some(stats.birthtime),
        dev: stats.dev,
        ino: Option.some(stats.ino),
        mode: Number(stats.mode),
        nlink: Option.some(stats.nlink),
        uid: Option.some(Number(stats.uid)),
        gid: Option.some(Number(stats.gid)),
        rdev: Option.some(stats.rdev),
        size: stats.size as FileSystem.File.Info["size"],
        blksize: Option.none(),
        blocks: Option.some(stats.blocks)
      }))),
    readFileString: (path) =>
      Effect.tryPromise({
        try: () => Fs.promises.readFile(path, "utf8"),
        catch: (cause) => toPlatformError(cause, "readFileString", path)
      }),
    writeFileString: (path, data) =>
      Effect.tryPromise({
        try: () => Fs.promises.writeFile(path, data),
        catch: (cause) => toPlatformError(cause, "writeFileString", path)
      }),
    makeDirectory: (path, options) =>
      Effect.tryPromise({
        try: () => Fs.promises.mkdir(path, { recursive: options?.recursive ?? false }).then(() => undefined),
        catch: (cause) => toPlatformError(cause, "makeDirectory", path)
      }),
    rename: (from, to) =>
      Effect.tryPromise({
        try: () => Fs.promises.rename(from, to),
        catch: (cause) => toPlatformError(cause, "rename", from)
      }),
    remove: (path) =>
      Effect.tryPromise({
        try: () => Fs.promises.rm(path, { force: true }),
        catch: (cause) => toPlatformError(cause, "remove", path)
      }),
    exists: (path) => Effect.sync(() => Fs.existsSync(path)),
    readDirectory: (path) =>
      Effect.tryPromise({
        try: () => Fs.promises.readdir(path),
        catch: (cause) => toPlatformError(cause, "readDirectory", path)
      })
  }),
  Path.layer
)

const toPlatformError = (cause: unknown, method: string, path: string): PlatformError.PlatformError =>
  PlatformError.systemError({
    _tag: (cause as { code?: unknown }).code === "ENOENT" ? "NotFound" : "Unknown",
    module: "FileSystem",
    method,
    pathOrDescriptor: path,
    cause
  })

const scratch = (): string => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "layers-io-e4-"))

describe("the settings from config.toml and the environment on Effect 4", () => {
  it("fromToml reads the [compaction] table and the compaction_<key> spelling, and names the line of a problem", () => {
    const values = SettingsSources.fromToml(
      "compaction_cap_tokens = 40_000\n[compaction]\ntrigger_pct = 70\n",
      "c.toml"
    )
    assert.deepStrictEqual(values, Result.succeed({ triggerPct: 70, capTokens: 40_000 }))
    const refused = SettingsSources.fromToml("[compaction]\n\ntrigger_pct = 500\n", "c.toml")
    assert.isTrue(Result.isFailure(refused))
    if (Result.isFailure(refused)) {
      assert.strictEqual(refused.failure.reason, "out-of-range")
      assert.include(refused.failure.message, "c.toml:3: trigger_pct = 500 is out of range")
    }
    const syntax = SettingsSources.fromToml("[compaction\n", "c.toml")
    assert.isTrue(Result.isFailure(syntax) && syntax.failure.reason === "syntax")
  })

  it("fromEnv reads CONTEXT_COMPRESSOR_COMPACTION_<KEY>, refuses an unknown one; overrideText clamps", () => {
    assert.deepStrictEqual(
      SettingsSources.fromEnv({
        CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "65",
        CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS: ""
      }),
      Result.succeed({ triggerPct: 65 })
    )
    const unknown = SettingsSources.fromEnv({ CONTEXT_COMPRESSOR_COMPACTION_NOPE: "1" })
    assert.isTrue(Result.isFailure(unknown) && unknown.failure.reason === "unknown-key")
    const clamped = SettingsSources.overrideText("trigger_pct", 500)
    assert.isTrue(Result.isSuccess(clamped))
    if (Result.isSuccess(clamped)) assert.strictEqual(clamped.success[1], "95")
  })

  it.live("make layers the file under the environment, re-reads the file when it changes, keeps the last good values while it is invalid", () =>
    Effect.gen(function*() {
      const directory = scratch()
      const path = NodePath.join(directory, "config.toml")
      Fs.writeFileSync(path, "[compaction]\ntrigger_pct = 70\ncap_tokens = 30_000\n")
      const env: Record<string, string> = { CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS: "50_000" }
      const settings = yield* SettingsLevels.make({ path, env: () => env })
      const first = yield* settings.current
      assert.strictEqual(first.triggerPct, 70)
      assert.strictEqual(first.capTokens, 50_000)
      Fs.writeFileSync(path, "[compaction]\ntrigger_pct = 60\n# grown\n")
      assert.strictEqual((yield* settings.current).triggerPct, 60)
      Fs.writeFileSync(path, "[compaction]\ntrigger_pct = 'high'\n# grown again\n")
      assert.strictEqual((yield* settings.current).triggerPct, 60)
      delete env["CONTEXT_COMPRESSOR_COMPACTION_CAP_TOKENS"]
      assert.strictEqual((yield* settings.current).capTokens, Settings.defaults.capTokens)
      Fs.rmSync(directory, { recursive: true, force: true })
    }).pipe(Effect.provide(nodeFileSystem)))

  it.live("a missing file gives the defaults; an invalid file or environment fails the build with a SettingsError", () =>
    Effect.gen(function*() {
      const directory = scratch()
      const path = NodePath.join(directory, "config.toml")
      const defaults = yield* Effect.flatMap(SettingsLevels.make({ path, env: () => ({}) }), (s) => s.current)
      assert.deepStrictEqual(defaults, Settings.defaults)
      Fs.writeFileSync(path, "[compaction]\nnot_a_key = 1\n")
      const badFile = yield* Effect.flip(SettingsLevels.make({ path, env: () => ({}) }))
      assert.strictEqual(badFile.reason, "unknown-key")
      assert.include(badFile.message, `${path}:2: not_a_key = 1 is not a setting`)
      const badEnv = yield* Effect.flip(
        SettingsLevels.makeEnv({ env: () => ({ CONTEXT_COMPRESSOR_COMPACTION_TRIGGER_PCT: "lots" }) })
      )
      assert.strictEqual(badEnv.reason, "not-a-number")
      Fs.rmSync(directory, { recursive: true, force: true })
    }).pipe(Effect.provide(nodeFileSystem)))

  it.live("makeMemory's overrides are over the file and the environment, checked, and unset again", () =>
    Effect.gen(function*() {
      const directory = scratch()
      const path = NodePath.join(directory, "config.toml")
      Fs.writeFileSync(path, "[compaction]\ntrigger_pct = 70\n")
      const services = yield* SettingsLevels.makeMemory({ path, env: () => ({}) })
      const control = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* Settings.SettingsOverrides
        }),
        Layer.succeedContext(services)
      )
      assert.strictEqual((yield* control.set("trigger_pct", "55")).triggerPct, 55)
      assert.deepStrictEqual(yield* control.get, { trigger_pct: 55 })
      const refused = yield* Effect.flip(control.set("nope", 1))
      assert.strictEqual(refused.reason, "unknown-key")
      assert.strictEqual((yield* control.unset("trigger_pct")).triggerPct, 70)
      Fs.rmSync(directory, { recursive: true, force: true })
    }).pipe(Effect.provide(nodeFileSystem)))
})

describe("TranscriptArchiveFile and AttentionTerminal on Effect 4", () => {
  it.live("a compaction's messages are written to their file and a handle finds its message again", () =>
    Effect.gen(function*() {
      const directory = scratch()
      const messages = [
        new Transcript.UserMessage({ id: "u1", content: "Fix the parser." }),
        new Transcript.AssistantMessage({ id: "a1", content: "Reading it.", toolCalls: [] })
      ]
      const archive = yield* Effect.gen(function*() {
        return yield* TranscriptArchive.TranscriptArchive
      }).pipe(
        Effect.provide(TranscriptArchiveFile.layer({ directory, relativeTo: directory }))
      )
      const name = yield* archive.write({ sessionId: "s1", compaction: 1, messages })
      assert.match(name, /^s1\/compaction-1-[0-9a-f]+\.jsonl$/)
      const text = Fs.readFileSync(NodePath.join(directory, name), "utf8")
      assert.strictEqual(text, TranscriptArchiveFile.linesOf(messages))
      assert.deepStrictEqual(yield* TranscriptArchiveFile.parseLines(text), messages)
      const bad = yield* Effect.flip(TranscriptArchiveFile.parseLines("{\"_tag\":\"Nope\"}\n"))
      assert.include(bad.message, "line 1:")
      Fs.rmSync(directory, { recursive: true, force: true })
    }).pipe(Effect.provide(nodeFileSystem)))

  it.live("attention on a terminal reads r as Retry, and trims when the input ends or no answer comes in time", () =>
    Effect.gen(function*() {
      const choose = (input: PassThrough, timeout: Duration_.Input) =>
        Effect.gen(function*() {
          const attention = yield* Attention.Attention
          return yield* attention.choose("the summariser timed out")
        }).pipe(
          Effect.provide(AttentionTerminal.layer({ input, output: new PassThrough(), timeout }))
        )
      const typed = new PassThrough()
      typed.end("r\n")
      assert.strictEqual(yield* choose(typed, "10 seconds"), "retry")
      const ended = new PassThrough()
      ended.end()
      assert.strictEqual(yield* choose(ended, "10 seconds"), "trim")
      assert.strictEqual(yield* choose(new PassThrough(), "50 millis"), "trim")
    }))
})
