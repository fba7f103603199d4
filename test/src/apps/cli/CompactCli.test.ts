import * as Compat from "#compat"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as ViewRepair from "../../../../src/core/checkpoint/ViewRepair.js"
import * as Recall from "../../../../src/face/engine/Recall.js"
import * as SummaryPrompt from "../../../../src/face/engine/SummaryPrompt.js"
import * as SqlMigrations from "../../../../src/face/layers/sql/SqlMigrations.js"
import * as SqlPg from "../../../../src/face/layers/sql/SqlPg.js"
import * as SummarizerOffline from "../../../../src/face/layers/SummarizerOffline.js"
import * as TranscriptArchiveSql from "../../../../src/face/layers/TranscriptArchiveSql.js"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as Summarizer from "../../../../src/face/services/Summarizer.js"
import * as SummaryCache from "../../../../src/face/services/SummaryCache.js"
import * as ChatServer from "../../../support/ChatCompletionsServer.js"
import * as Histories from "../../../support/Histories.js"
import * as Program from "../../../support/Program.js"
import * as Scratch from "../../../support/Scratch.js"
import * as SqlDatabases from "../../../support/SqlDatabases.js"

const { fresh: freshDir } = Scratch.make("compact-cli")

/** Runs the program in this process, recording what it prints. */
const run = Program.inProcess

/** An OpenAI chat transcript of `turns` turns, each with a command and its output. */
const openAiSession = (turns: number) => {
  const messages: Array<Record<string, unknown>> = [
    { role: "system", content: "You are a coding agent working in a repository." },
    { role: "user", content: "Migrate the importer to the new parser and keep job ids in the notes." }
  ]
  for (let i = 0; i < turns; i++) {
    if (i > 0) {
      messages.push({
        role: "user",
        content: `Continue with step ${i}: ` + "check the next module and report. ".repeat(8)
      })
    }
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [{
        id: `call_${i}`,
        type: "function",
        function: { name: "bash", arguments: JSON.stringify({ command: `pytest tests/test_step${i}.py` }) }
      }]
    })
    messages.push({
      role: "tool",
      tool_call_id: `call_${i}`,
      content: `job_${1000 + i}x exit code 0\n` + "collected 12 items, all passed\n".repeat(40)
    })
    messages.push({ role: "assistant", content: `Step ${i} passes.` })
  }
  return messages
}

const writeJson = (path: string, value: unknown) => Fs.writeFileSync(path, JSON.stringify(value, null, 2))

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

describe("compact", () => {
  it.effect("compacts an OpenAI transcript past the trigger into an OpenAI transcript with the block as a user message, and reports it", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      const reportPath = NodePath.join(dir, "report.json")
      const result = yield* run(["compact", input, "--window", "24000", "--report", reportPath, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      const output = JSON.parse(result.stdout) as Array<Record<string, unknown>>
      assert.strictEqual(output[0]!["role"], "system")
      const block = output.find((message) =>
        typeof message["content"] === "string" && (message["content"] as string).startsWith("# Context compacted")
      )
      assert.strictEqual(block?.["role"], "user")
      assert.isBelow(output.length, openAiSession(60).length)
      // Every call in the output has its result.
      const calls = output.flatMap((message) =>
        ((message["tool_calls"] as Array<{ id: string }> | undefined) ?? []).map((call) => call.id)
      )
      const results = output.filter((message) => message["role"] === "tool").map((message) => message["tool_call_id"])
      assert.deepStrictEqual([...calls].sort(), [...results].sort())
      const report = JSON.parse(Fs.readFileSync(reportPath, "utf8"))
      assert.strictEqual(report.format, "openai")
      assert.isAbove(report.tokensBefore, report.tokensAfter)
      assert.strictEqual(report.compacted.fallback, "none", JSON.stringify(report.compacted.gate) + result.stderr)
      assert.match(result.stderr, /session\.json \(openai\): \d+ → \d+ messages/)
    }))

  it.effect("a transcript under the trigger comes back unchanged", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "short.json")
      const session = openAiSession(2)
      writeJson(input, session)
      const result = yield* run(["compact", input, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      assert.deepStrictEqual(JSON.parse(result.stdout), session)
      assert.include(result.stderr, "unchanged")
    }))

  it.effect("a newest tool result too big for the window is clipped without a compaction: the report, the stderr line and the output say so", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "huge.json")
      writeJson(input, Histories.toOpenAiChat(Histories.hugeNewestResult))
      const reportPath = NodePath.join(dir, "report.json")
      const result = yield* run([
        "compact",
        input,
        "--window",
        String(Histories.hugeNewestResultWindow),
        "--report",
        reportPath,
        ...paths(dir)
      ])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      const report = JSON.parse(Fs.readFileSync(reportPath, "utf8"))
      assert.isNull(report.compacted)
      const clip = report.ladder.find((step: { step: string }) => step.step === "clip-messages")
      const last = `m${Histories.hugeNewestResult.length - 1}`
      assert.deepStrictEqual(clip?.messageIds, [last], JSON.stringify(report.ladder))
      assert.isAbove(clip.tokensBefore, clip.tokensAfter)
      assert.isAbove(report.tokensBefore, report.tokensAfter)
      assert.isAtMost(report.tokensAfter, report.trigger)
      assert.deepStrictEqual(report.repairs, [])
      assert.include(result.stderr, `not compacted; in the view: 1 message clipped (${last})`)
      const output = JSON.parse(result.stdout) as Array<{ content: string }>
      assert.include(output[output.length - 1]!.content, "clipped tool result")
    }))

  it.effect("a tool call whose result was lost is answered in the view without a compaction: the report and the stderr line name the repair", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "lost.json")
      writeJson(input, Histories.toOpenAiChat(Histories.lostResult))
      const reportPath = NodePath.join(dir, "report.json")
      const result = yield* run(["compact", input, "--report", reportPath, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      const report = JSON.parse(Fs.readFileSync(reportPath, "utf8"))
      assert.isNull(report.compacted)
      assert.deepStrictEqual(report.repairs.map((r: { kind: string; toolCallId: string }) => [r.kind, r.toolCallId]), [[
        "lost-result",
        "call_1"
      ]])
      assert.strictEqual(report.viewMessages, report.messages + 1)
      assert.include(result.stderr, "not compacted; in the view: 1 lost tool result answered")
      const output = JSON.parse(result.stdout) as Array<{ role: string; tool_call_id?: string; content: string }>
      assert.deepStrictEqual(output.filter((m) => m.tool_call_id === "call_1").map((m) => m.content), [
        ViewRepair.lostResultText
      ])
    }))

  it.effect("an AI SDK assistant message with two calls under one id, each followed by its result, the second clipped: the output keeps both calls, each answered, no stray result", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "reused.json")
      const id = "call_00_dup"
      const result = (value: string) => ({
        type: "tool-result",
        toolCallId: id,
        toolName: "bash",
        output: { type: "text", value }
      })
      writeJson(input, [
        { role: "system", content: "You are a coding agent." },
        { role: "user", content: "compare the parsers" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Reading both." },
            { type: "tool-call", toolCallId: id, toolName: "bash", input: { command: "cat src/old_parser.py" } },
            result("def parse(text):\n    return old(text)\n"),
            { type: "tool-call", toolCallId: id, toolName: "bash", input: { command: "cat src/new_parser.py" } },
            result("def parse(text):\n    return new(text)\n".repeat(12_000))
          ]
        },
        { role: "assistant", content: "The new parser calls new()." }
      ])
      const ran = yield* run(["compact", input, "--window", "32000", ...paths(dir)])
      assert.strictEqual(ran.exitCode, 0, ran.stderr)
      assert.include(ran.stderr, "1 message clipped")
      const output = JSON.parse(ran.stdout) as Array<{ role: string; content: string | Array<Record<string, unknown>> }>
      const parts = output.flatMap((message) => (Array.isArray(message.content) ? message.content : []))
      // In order: the old call, its result, the new call, its (clipped) result.
      assert.deepStrictEqual(parts.filter((part) => part["type"] !== "text").map((part) => part["type"]), [
        "tool-call",
        "tool-result",
        "tool-call",
        "tool-result"
      ])
      assert.deepStrictEqual(
        parts.filter((part) => part["type"] === "tool-call").map((part) =>
          (part["input"] as { command: string }).command
        ),
        ["cat src/old_parser.py", "cat src/new_parser.py"]
      )
    }))

  it.effect("the directory table has a column of each file's ladder steps and repairs", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "in")
      Fs.mkdirSync(input)
      writeJson(NodePath.join(input, "huge.json"), Histories.toOpenAiChat(Histories.hugeNewestResult))
      writeJson(NodePath.join(input, "lost.json"), Histories.toOpenAiChat(Histories.lostResult))
      writeJson(NodePath.join(input, "plain.json"), openAiSession(2))
      const reportPath = NodePath.join(dir, "report.json")
      const out = NodePath.join(dir, "out")
      const result = yield* run([
        "compact",
        input,
        "--out",
        out,
        "--window",
        String(Histories.hugeNewestResultWindow),
        "--report",
        reportPath,
        ...paths(dir)
      ])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      const rows = result.stderr.split("\n")
      assert.include(rows.find((row) => row.startsWith("file")), "ladder and repairs")
      assert.match(rows.find((row) => row.startsWith("huge.json"))!, /clip-messages 1\s*$/)
      assert.match(rows.find((row) => row.startsWith("lost.json"))!, /lost-result 1\s*$/)
      assert.match(rows.find((row) => row.startsWith("plain.json"))!, /\s-\s*$/)
      const reports = JSON.parse(Fs.readFileSync(reportPath, "utf8")) as Array<
        { file: string; ladder: Array<unknown>; repairs: Array<unknown> }
      >
      assert.deepStrictEqual(reports.map((r) => [NodePath.basename(r.file), r.ladder.length > 0, r.repairs.length]), [
        ["huge.json", true, 0],
        ["lost.json", false, 1],
        ["plain.json", false, 0]
      ])
    }))

  it.effect("a directory is compacted file by file into --out with a closing table; a bad file is named, exits 2 and gets no output", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "in")
      Fs.mkdirSync(input)
      writeJson(NodePath.join(input, "a.json"), openAiSession(60))
      Fs.writeFileSync(
        NodePath.join(input, "b.jsonl"),
        openAiSession(3).map((m) => JSON.stringify(m)).join("\n") + "\n"
      )
      Fs.writeFileSync(NodePath.join(input, "c.json"), JSON.stringify({ hello: "world" }))
      const out = NodePath.join(dir, "out")
      const result = yield* run(["compact", input, "--out", out, "--window", "24000", ...paths(dir)])
      assert.strictEqual(result.exitCode, 2)
      assert.deepStrictEqual(Fs.readdirSync(out).sort(), ["a.json", "b.jsonl"])
      // JSON Lines stay JSON Lines.
      assert.strictEqual(
        Fs.readFileSync(NodePath.join(out, "b.jsonl"), "utf8").trim().split("\n").length,
        openAiSession(3).length
      )
      assert.match(result.stderr, /file\s+format\s+messages/)
      assert.include(result.stderr, "c.json: not a transcript in any known format")
      assert.include(result.stderr, "compacted 2 of 3 files")
    }))

  it.effect("a truncated JSON Lines line is an error naming the file and the line, exit 2, nothing written", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "cut.jsonl")
      const lines = openAiSession(3).map((m) => JSON.stringify(m))
      Fs.writeFileSync(input, [...lines.slice(0, -1), lines[lines.length - 1]!.slice(0, 20)].join("\n"))
      const outPath = NodePath.join(dir, "out.json")
      const result = yield* run(["compact", input, "--out", outPath, ...paths(dir)])
      assert.strictEqual(result.exitCode, 2)
      assert.include(result.stderr, input)
      assert.include(result.stderr, `line ${lines.length} is not JSON`)
      assert.isFalse(Fs.existsSync(outPath))
      assert.strictEqual(result.stdout, "")
    }))

  it.effect("a window below the minimum, a window out of range, an unknown flag and a format that does not match all exit 2 with one line", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      // Since the fit guarantee a small window gets a view; only one below the stated minimum fails, naming the smallest that works.
      const bigSystem = NodePath.join(dir, "big-system.json")
      writeJson(bigSystem, [
        { role: "system", content: "Follow the house rules. ".repeat(1_000) },
        ...(openAiSession(60) as ReadonlyArray<unknown>)
      ])
      const tiny = yield* run(["compact", bigSystem, "--window", "1000", ...paths(dir)])
      assert.strictEqual(tiny.exitCode, 2)
      assert.include(tiny.stderr, "big-system.json")
      assert.include(tiny.stderr, "the smallest context window that works is")
      const range = yield* run(["compact", input, "--trigger-pct", "5", ...paths(dir)])
      assert.strictEqual(range.exitCode, 2)
      assert.include(range.stderr, "--trigger-pct must be an integer from 10 to 95")
      const unknown = yield* run(["compact", input, "--frobnicate", ...paths(dir)])
      assert.strictEqual(unknown.exitCode, 2)
      const wrong = yield* run(["compact", input, "--format", "anthropic", ...paths(dir)])
      assert.strictEqual(wrong.exitCode, 2)
      assert.include(wrong.stderr, "session.json")
      for (const r of [tiny, range, unknown, wrong]) assert.strictEqual(r.stdout, "")
    }))

  it.effect("a persisted setting applies to the next compact: settings set trigger_pct changes the trigger in the report", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "short.json")
      writeJson(input, openAiSession(2))
      const set = yield* run([
        "settings",
        "set",
        "trigger_pct",
        "40",
        "--state",
        NodePath.join(dir, "state.db"),
        "--config",
        NodePath.join(dir, "config.toml")
      ])
      assert.strictEqual(set.exitCode, 0, set.stderr)
      const reportPath = NodePath.join(dir, "report.json")
      const result = yield* run(["compact", input, "--window", "100000", "--report", reportPath, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      assert.strictEqual(JSON.parse(Fs.readFileSync(reportPath, "utf8")).trigger, 40_000)
      const get = yield* run([
        "settings",
        "get",
        "trigger_pct",
        "--state",
        NodePath.join(dir, "state.db"),
        "--config",
        NodePath.join(dir, "config.toml")
      ])
      assert.strictEqual(get.stdout, "trigger_pct = 40  # persisted override")
    }))

  it.effect("--summary-request takes delimited or shared-prefix (a one-shot compact has sent no view, so it asks delimited), refuses any other word in one line; settings set summary_request persists it", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      const reportPath = NodePath.join(dir, "report.json")
      const shared = yield* run([
        "compact",
        input,
        "--window",
        "24000",
        "--summary-request",
        "shared-prefix",
        "--report",
        reportPath,
        ...paths(dir)
      ])
      assert.strictEqual(shared.exitCode, 0, shared.stderr)
      assert.strictEqual(JSON.parse(Fs.readFileSync(reportPath, "utf8")).compacted.summaryRequest, "delimited")
      const refused = yield* run(["compact", input, "--summary-request", "shared", ...paths(dir)])
      assert.strictEqual(refused.exitCode, 2)
      assert.strictEqual(refused.stdout, "")
      // The choices named, in the command-line library's own words.
      for (const choice of ["delimited", "shared-prefix"]) assert.include(refused.stderr, choice)
      const state = ["--state", NodePath.join(dir, "state.db"), "--config", NodePath.join(dir, "config.toml")]
      const set = yield* run(["settings", "set", "summary_request", "shared-prefix", ...state])
      assert.strictEqual(set.exitCode, 0, set.stderr)
      const get = yield* run(["settings", "get", "summary_request", ...state])
      assert.strictEqual(get.stdout, `summary_request = "shared-prefix"  # persisted override`)
      const wrong = yield* run(["settings", "set", "summary_request", "both", ...state])
      assert.strictEqual(wrong.exitCode, 2)
      assert.include(wrong.stderr, `one of "delimited", "shared-prefix"`)
    }))

  it.effect("--record writes the summariser requests, and replay scores them with the gate: usable N/N for the offline summariser", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      const recorded = NodePath.join(dir, "requests")
      const result = yield* run(["compact", input, "--window", "24000", "--record", recorded, ...paths(dir)])
      assert.strictEqual(result.exitCode, 0, result.stderr)
      const files = Fs.readdirSync(recorded)
      assert.isAbove(files.length, 0)
      // Each file is named by the request's summary-cache key, the one the engine looks the summary up by.
      for (const file of files) {
        const request = Schema.decodeUnknownSync(Compat.fromJsonString(Summarizer.SummaryRequest))(
          Fs.readFileSync(NodePath.join(recorded, file), "utf8")
        )
        assert.strictEqual(
          file,
          `${SummaryCache.digest(SummaryCache.keyOf(request, SummarizerOffline.identity)).slice(0, 16)}.json`
        )
      }
      const replay = yield* run(["replay", recorded])
      assert.strictEqual(replay.exitCode, 0, replay.stderr)
      assert.strictEqual(replay.stdout.trim().split("\n").pop(), `usable ${files.length}/${files.length}`)
    }))

  it.effect("the cache is used across runs: a second compact of the same file is answered from it, and cache stats counts it", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      const first = yield* run(["compact", input, "--window", "24000", ...paths(dir)])
      assert.include(first.stderr, "by the summariser")
      const second = yield* run(["compact", input, "--window", "24000", ...paths(dir)])
      assert.include(second.stderr, "from the cache")
      assert.strictEqual(second.stdout, first.stdout)
      const stats = yield* run(["cache", "stats", "--cache", NodePath.join(dir, "cache.db")])
      assert.match(stats.stdout, /: 1 summary, [\d,]+ bytes/)
    }))

  it.effect("every verb answers --help with its flags", () =>
    Effect.gen(function*() {
      for (
        const [args, flag] of [
          [["compact", "--help"], "--window"],
          [["replay", "--help"], "--summarizer"],
          [["settings", "set", "--help"], "VALUE"],
          [["cache", "prune", "--help"], "--max-age-days"],
          [["archive", "prune", "--help"], "--max-age-days"],
          [["proxy", "--help"], "--database-url"],
          [["serve", "--help"], "--database-url"]
        ] as const
      ) {
        const result = yield* run(args)
        assert.strictEqual(result.exitCode, 0, args.join(" "))
        assert.include(result.stdout, flag, args.join(" "))
      }
    }))

  it.scoped("--summarizer openai sends the request to the server and uses its summary; a server that fails twice leads to the trim", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(60))
      const summary = SummaryPrompt.generalSections.map((heading) =>
        `${heading}\nWhat the server says under ${heading.slice(3)}, long enough to count.`
      ).join("\n\n")
      const server = yield* ChatServer.start([ChatServer.completion(summary)])
      const good = yield* run([
        "compact",
        input,
        "--window",
        "24000",
        "--summarizer",
        "openai",
        "--base-url",
        server.baseUrl,
        "--model",
        "served-model",
        ...paths(dir)
      ])
      assert.strictEqual(good.exitCode, 0, good.stderr)
      assert.include(good.stdout, "What the server says under Primary request")
      const [request] = yield* server.received
      assert.strictEqual((request!.body as { model: string }).model, "served-model")
      const failing = yield* ChatServer.start([ChatServer.error(500, "boom"), ChatServer.error(500, "boom again")])
      // As the real program, whose logger writes to its stderr.
      const trimmed = yield* Program.executable([
        "compact",
        input,
        "--window",
        "24000",
        "--summarizer",
        "openai",
        "--base-url",
        failing.baseUrl,
        "--model",
        "other-model",
        ...paths(freshDir())
      ])
      assert.strictEqual(trimmed.exitCode, 0, trimmed.stderr)
      assert.include(trimmed.stderr, "trimmed without a summary")
      // And the engine's warning, with the reason.
      assert.match(trimmed.stderr, /fell back to a trim: the summariser failed \(server-error/)
      assert.strictEqual((yield* failing.received).length, 2)
      const noModel = yield* run(["compact", input, "--summarizer", "openai", ...paths(dir)])
      assert.strictEqual(noModel.exitCode, 2)
      assert.include(noModel.stderr, "--model")
    }))
})

describe("--database-url", () => {
  it.effect("a URL that is not postgres:// or a server that cannot be reached ends compact, settings and cache with one line and exit 2, the password masked", () =>
    Effect.gen(function*() {
      const dir = freshDir()
      const input = NodePath.join(dir, "session.json")
      writeJson(input, openAiSession(2))
      const notUrl = yield* run([
        "settings",
        "get",
        "--database-url",
        "not a url",
        "--config",
        NodePath.join(dir, "config.toml")
      ])
      const otherScheme = yield* run(["cache", "stats", "--database-url", "mysql://db/cache"])
      const unreachable = yield* run([
        "compact",
        input,
        "--database-url",
        "postgres://worker:s3cret@127.0.0.1:1/fleet",
        "--config",
        NodePath.join(dir, "config.toml")
      ])
      for (
        const [result, says] of [[notUrl, "not a URL"], [otherScheme, "mysql is not postgres"], [
          unreachable,
          "ECONNREFUSED"
        ]] as const
      ) {
        assert.strictEqual(result.exitCode, 2, result.stderr)
        assert.strictEqual(result.stdout, "")
        assert.strictEqual(result.stderr.trim().split("\n").length, 1, result.stderr)
        assert.include(result.stderr, "cannot use the database")
        assert.include(result.stderr, says)
      }
      assert.include(unreachable.stderr, "postgres://worker:***@127.0.0.1:1/fleet")
      assert.notInclude(unreachable.stderr, "s3cret")
      assert.isFalse(Fs.existsSync(NodePath.join(dir, "state.db")), "no SQLite file is made in its place")
    }))

  SqlDatabases.describeOn(SqlDatabases.postgres, "compact, settings and cache", () => {
    it.scoped("replace the SQLite files: a setting set through the URL applies to compact, whose summary the next run finds in the database", () =>
      Effect.gen(function*() {
        const { url } = yield* SqlDatabases.postgres.database
        const dir = freshDir()
        // --state names the folder of the archive (the states themselves are in the database).
        const config = ["--config", NodePath.join(dir, "config.toml"), "--state", NodePath.join(dir, "state.db")]
        const input = NodePath.join(dir, "session.json")
        writeJson(input, openAiSession(60))
        const set = yield* run(["settings", "set", "trigger_pct", "70", "--database-url", url, ...config])
        assert.strictEqual(set.exitCode, 0, set.stderr)
        assert.include(set.stdout, "# persisted in postgres://")
        const reportPath = NodePath.join(dir, "report.json")
        const first = yield* run([
          "compact",
          input,
          "--window",
          "24000",
          "--report",
          reportPath,
          "--database-url",
          url,
          ...config
        ])
        assert.strictEqual(first.exitCode, 0, first.stderr)
        assert.strictEqual(JSON.parse(Fs.readFileSync(reportPath, "utf8")).trigger, 16_800)
        assert.include(first.stderr, "by the summariser", first.stderr)
        // The URL from the environment, as a worker of a fleet would have it (the environment given
        // as the run's config provider: Effect 4 reads process.env once, at its first use).
        const second = yield* run(["compact", input, "--window", "24000", ...config]).pipe(
          TestCompat.withConfigFrom(new Map([[SqlPg.urlEnv, url]]))
        )
        assert.strictEqual(second.exitCode, 0, second.stderr)
        assert.include(second.stderr, "from the cache")
        assert.strictEqual(second.stdout, first.stdout)
        const stats = yield* run(["cache", "stats", "--database-url", url])
        assert.match(stats.stdout, /^postgres:\/\/\S+: 1 summary, [\d,]+ bytes$/)
        const pruned = yield* run(["cache", "prune", "--max-mb", "0", "--database-url", url])
        assert.include(pruned.stdout, "removed 1 summary; 0 left")
        const unset = yield* run(["settings", "unset", "trigger_pct", "--database-url", url, ...config])
        assert.strictEqual(unset.stdout, "trigger_pct = 80  # no override")
        for (const name of ["cache.db", "state.db"]) assert.isFalse(Fs.existsSync(NodePath.join(dir, name)))
      }))

    it.scopedLive("archive stats counts the database's archived messages and archive prune removes those past the age, a handle then not found", () =>
      Effect.gen(function*() {
        const { client, url } = yield* SqlDatabases.postgres.database
        const text = "a tool result worth recalling " + "r".repeat(300)
        const archive = yield* Effect.provide(
          Effect.andThen(
            Effect.orDie(SqlMigrations.run),
            TranscriptArchiveSql.make({
              pruneEveryMs: Infinity,
              now: () => Date.now() - 60_000
            })
          ),
          yield* Layer.build(client)
        )
        yield* archive.write({
          sessionId: "fleet-session",
          compaction: 1,
          messages: [new Transcript.ToolResult({ id: "m1", toolCallId: "c1", content: text })]
        })
        const stats = yield* run(["archive", "stats", "--database-url", url])
        assert.strictEqual(stats.exitCode, 0, stats.stderr)
        assert.match(stats.stdout, /^postgres:\/\/\S+: 1 message in 1 entry of 1 session, [\d,]+ bytes$/)
        const kept = yield* run(["archive", "prune", "--database-url", url])
        assert.include(kept.stdout, "removed 0 entries (0 messages); 1 message in 1 entry")
        const pruned = yield* run(["archive", "prune", "--max-age-days", "0", "--database-url", url])
        assert.include(
          pruned.stdout,
          "removed 1 entry (1 message); 0 messages in 0 entries of 0 sessions",
          pruned.stdout
        )
        assert.isTrue(Option.isNone(yield* archive.lookup!("fleet-session", Recall.handleOf("fleet-session", text))))
        const noUrl = yield* run(["archive", "stats"])
        assert.strictEqual(noUrl.exitCode, 2)
        assert.strictEqual(noUrl.stdout, "")
        assert.include(noUrl.stderr, "need --database-url")
      }))
  })
})
