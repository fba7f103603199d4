import * as HttpCompat from "#compat-http"
import * as TestCompat from "#test-compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as fc from "fast-check"
import * as Crypto from "node:crypto"
import * as Fs from "node:fs"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as CliIo from "../src/apps/cli/CliIo.js"
import * as Manners from "../src/apps/cli/Manners.js"
import * as Server from "../src/apps/http/HttpServer.js"
import * as Formats from "../src/face/adapters/Formats.js"
import * as Reduce from "../src/face/engine/Reduce.js"
import * as Json from "../src/face/models/Json.js"
import { builtInPolicies } from "../src/face/rules/index.js"
import * as Hostile from "./hostile.js"
import * as Program from "./support/Program.js"
import { effectProp, prop } from "./support/Property.js"
import * as Scratch from "./support/Scratch.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const { root: scratch, fresh: freshDir } = Scratch.make("hostile")
const digest = (path: string) => Crypto.createHash("sha256").update(Fs.readFileSync(path)).digest("hex")
const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes)
const isJsonText = (text: string) => TestCompat.isSuccess(Json.parse(text))

type Run = Program.Ran

/** The program in this process, what it prints recorded. */
const runInProcess = Program.inProcess

/** The real executable. */
const runExecutable = (
  args: ReadonlyArray<string>,
  stdin?: Uint8Array,
  env: Record<string, string> = {}
): Effect.Effect<Run> => Program.executable(args, { stdin, env })

/** What every run must show, whatever the input: an exit code of 0 or 2, no stack trace, one error line on failure. */
const assertManners = (run: Run, label: string) => {
  assert.include([0, 2], run.exitCode, `${label}: exit ${run.exitCode}\n${run.stderr.slice(0, 500)}`)
  assert.notMatch(run.stdout, Hostile.stackTrace, label)
  assert.notMatch(run.stderr, Hostile.stackTrace, label)
  assert.notInclude(run.stdout, "WARN", label)
  if (run.exitCode === 2) {
    const lines = run.stderr.trim().split("\n")
    assert.match(lines[lines.length - 1]!, /^context-compressor: /, label)
    assert.isAtMost(lines[lines.length - 1]!.length, 2_100, label)
  }
}

describe("hostile inputs", () => {
  describe("Json", () => {
    prop("every number literal comes back as written, at any depth", [
      fc.array(
        fc.constantFrom(
          "123456789012345678901234567890",
          "1e400",
          "-1e-400",
          "0.12345678901234567890123",
          "42",
          "-0.5",
          "1.5e300"
        ),
        { minLength: 1, maxLength: 10 }
      ),
      fc.integer({ min: 0, max: 5_000 })
    ], ([literals, depth]) => {
      const text = Hostile.deepText(depth, "mixed", `[${literals.join(",")}]`)
      const parsed = Json.parse(text)
      assert.isTrue(TestCompat.isSuccess(parsed))
      const written = Json.stringify(TestCompat.getOrThrow(parsed))
      // Only literals that are not in canonical form ("1.5e300" is written "1.5e+300") may change, and only in spelling.
      assert.strictEqual(written.replace(/1\.5e\+300/g, "1.5e300"), text)
    }, { fastCheck: { numRuns: 30 } })

    prop(
      "the iterative reader agrees with JSON.parse on what JSON.parse reads exactly",
      [fc.jsonValue()],
      ([value]) => {
        const text = JSON.stringify(value)
        assert.deepStrictEqual(TestCompat.getOrThrow(Json.parseExactly(text)), JSON.parse(text))
      }
    )

    prop("the iterative reader refuses what JSON.parse refuses", [fc.string({ maxLength: 40 })], ([text]) => {
      let native = true
      try {
        JSON.parse(text)
      } catch {
        native = false
      }
      assert.strictEqual(TestCompat.isSuccess(Json.parseExactly(text)), native, text)
    })

    it("a transcript read and written keeps a 30-digit integer and 1e400 in an extra field", () => {
      const text = "[{\"role\":\"user\",\"content\":\"hi\",\"x\":{\"n\":123456789012345678901234567890,\"f\":1e400}}]"
      const document = TestCompat.getOrThrow(Formats.parseText(text))
      assert.strictEqual(Formats.renderText({ container: "jsonl", value: document.value }), text.slice(1, -1) + "\n")
    })
  })

  describe("reduce, the library", () => {
    prop(
      "never throws, keeps JSON that no policy accepts JSON, stays within the cap off the envelope route, never changes its input",
      [Hostile.toolResult],
      ([hostile]) => {
        const text = decode(hostile.bytes)
        const reduction = Reduce.reduce(text, { policies: builtInPolicies })
        if (reduction.report.route === "generic") {
          assert.isAtMost(reduction.text.length, Reduce.defaultCap, hostile.name)
          const json = Json.parse(text)
          const value = TestCompat.isSuccess(json) ? TestCompat.getOrThrow(json) : undefined
          if (typeof value === "object" && value !== null) {
            assert.isTrue(
              isJsonText(reduction.text) || reduction.report.notes.some((note) => note.includes("clipped as text")),
              hostile.name
            )
          }
        }
        const parsed = Json.parse(text)
        if (TestCompat.isSuccess(parsed)) {
          const value = TestCompat.getOrThrow(parsed)
          const before = Json.stringify(value)
          Reduce.reduce(value, { policies: builtInPolicies, cap: 2_000 })
          assert.strictEqual(Json.stringify(value), before, hostile.name)
        }
      },
      { fastCheck: { numRuns: 40 } }
    )
  })

  describe("the program in process", () => {
    effectProp("reduce: exit 0 or 2, no stack trace, stdout JSON when the input is, input untouched", [
      Hostile.toolResult
    ], ([hostile]) =>
      Effect.gen(function*() {
        const dir = freshDir()
        const input = NodePath.join(dir, "input.json")
        Fs.writeFileSync(input, hostile.bytes)
        const before = digest(input)
        const run = yield* runInProcess(["reduce", input, "--pretty", "--report", NodePath.join(dir, "report.json")])
        assertManners(run, hostile.name)
        assert.strictEqual(digest(input), before, hostile.name)
        if (isJsonText(decode(hostile.bytes)) && run.exitCode === 0) {
          assert.isTrue(isJsonText(run.stdout) || !/^\s*[[{]/.test(decode(hostile.bytes)), hostile.name)
        }
        if (run.exitCode === 0) {
          assert.isTrue(isJsonText(Fs.readFileSync(NodePath.join(dir, "report.json"), "utf8")), hostile.name)
        }
      }), { fastCheck: { numRuns: 12 } })

    effectProp(
      "compact: exit 0 with the transcript and its report, or 2 with one line and nothing written; input untouched",
      [Hostile.transcript],
      ([hostile]) =>
        Effect.gen(function*() {
          const dir = freshDir()
          const input = NodePath.join(dir, "session.json")
          const out = NodePath.join(dir, "out.json")
          const report = NodePath.join(dir, "report.json")
          Fs.writeFileSync(input, hostile.bytes)
          const before = digest(input)
          const run = yield* runInProcess([
            "compact",
            input,
            "--window",
            "20000",
            "--out",
            out,
            "--report",
            report,
            "--cache",
            NodePath.join(dir, "cache.db"),
            "--state",
            NodePath.join(dir, "state.db"),
            "--config",
            NodePath.join(dir, "config.toml")
          ])
          assertManners(run, hostile.name)
          assert.strictEqual(digest(input), before, hostile.name)
          assert.strictEqual(run.stdout, "", hostile.name)
          if (run.exitCode === 0) {
            assert.isTrue(isJsonText(Fs.readFileSync(out, "utf8")), hostile.name)
            assert.isTrue(isJsonText(Fs.readFileSync(report, "utf8")), hostile.name)
          } else {
            assert.isFalse(Fs.existsSync(out), hostile.name)
            assert.isFalse(Fs.existsSync(report), hostile.name)
          }
          assert.deepStrictEqual(Fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")), [], hostile.name)
        }),
      { fastCheck: { numRuns: 12 } }
    )

    it.effect("compact: a report that cannot be written leaves no output behind", () =>
      Effect.gen(function*() {
        const dir = freshDir()
        const input = NodePath.join(dir, "session.json")
        Fs.writeFileSync(input, "[{\"role\":\"user\",\"content\":\"hi\"}]")
        const out = NodePath.join(dir, "out.json")
        const run = yield* runInProcess([
          "compact",
          input,
          "--out",
          out,
          "--report",
          NodePath.join(dir, "missing", "report.json"),
          "--cache",
          NodePath.join(dir, "c.db")
        ])
        assert.strictEqual(run.exitCode, 2)
        assert.isFalse(Fs.existsSync(out))
        assert.match(run.stderr, /cannot write .*report\.json/)
      }))

    it.effect("compact --cache X creates no state file in the working directory", () =>
      Effect.gen(function*() {
        const dir = freshDir()
        const input = NodePath.join(dir, "session.json")
        Fs.writeFileSync(input, "[{\"role\":\"user\",\"content\":\"hi\"}]")
        const existed = Fs.existsSync(NodePath.join(root, ".context-compressor", "state.db"))
        const run = yield* runInProcess(["compact", input, "--cache", NodePath.join(dir, "c.db")])
        assert.strictEqual(run.exitCode, 0, run.stderr)
        assert.strictEqual(Fs.existsSync(NodePath.join(root, ".context-compressor", "state.db")), existed)
      }))

    it.effect("help names the program and each option's purpose, without the generic sentences", () =>
      Effect.gen(function*() {
        const run = yield* runInProcess(["compact", "--help"])
        // The whole command in its usage line (`$ context-compressor compact [` on Effect 3, `USAGE` then
        // `context-compressor compact [flags]` on Effect 4: each command-line library lays it out its way).
        assert.include(run.stdout, "context-compressor compact [")
        assert.include(run.stdout, "--window")
        assert.notInclude(run.stdout, "A user-defined piece of text.")
        assert.notInclude(run.stdout, "This setting is optional.")
        assert.notInclude(run.stdout, "\u001b[")
      }))
  })

  describe("the real executable", () => {
    it.live(
      "compact of a directory of hostile transcripts, and of one beside a corrupt cache: stdout parseable, nothing partial, inputs untouched",
      () =>
        Effect.gen(function*() {
          const dir = freshDir()
          const inputs = NodePath.join(dir, "in")
          Fs.mkdirSync(inputs)
          const cases = fc.sample(Hostile.transcript, { numRuns: 8, seed: 15 })
          cases.forEach((hostile, i) => Fs.writeFileSync(NodePath.join(inputs, `case-${i}.json`), hostile.bytes))
          const before = cases.map((_, i) => digest(NodePath.join(inputs, `case-${i}.json`)))
          const outDir = NodePath.join(dir, "out")
          const cache = NodePath.join(dir, "cache.db")
          Fs.writeFileSync(cache, "this is not a database")
          const run = yield* runExecutable([
            "compact",
            inputs,
            "--out",
            outDir,
            "--report",
            NodePath.join(dir, "report.json"),
            "--window",
            "20000",
            "--cache",
            cache,
            "--state",
            NodePath.join(dir, "s.db")
          ])
          assertManners(run, "directory")
          assert.strictEqual(run.stdout, "")
          assert.match(run.stderr, /WARN/)
          cases.forEach((_, i) => assert.strictEqual(digest(NodePath.join(inputs, `case-${i}.json`)), before[i]))
          for (const name of Fs.readdirSync(outDir)) {
            assert.isTrue(isJsonText(Fs.readFileSync(NodePath.join(outDir, name), "utf8")), name)
          }
          const single = yield* runExecutable([
            "compact",
            NodePath.join(inputs, "case-0.json"),
            "--cache",
            cache,
            "--state",
            NodePath.join(dir, "s.db")
          ])
          assertManners(single, "single file")
          if (single.exitCode === 0) {
            assert.isTrue(isJsonText(single.stdout))
          } else assert.strictEqual(single.stdout, "")
        }),
      120_000
    )

    it.live(
      "reduce --pretty of deep nesting and reduce of a 10 MB string with an integer past 2^53 from stdin: exit 0, JSON on stdout",
      () =>
        Effect.gen(function*() {
          const deep = yield* runExecutable(
            ["reduce", "--pretty", "-"],
            new TextEncoder().encode(Hostile.deepText(50_000, "mixed"))
          )
          assertManners(deep, "deep")
          assert.strictEqual(deep.exitCode, 0)
          assert.include(JSON.stringify(JSON.parse(deep.stdout)), "nesting deeper than")
          const diff =
            `{"protocol":"agentic-workspace/v1","tool":"workspace_edit","action":"stage","ok":true,"summary":"Staged","data":{"status":"pending_approval","diff":"${
              "+line\\n".repeat(1_500_000)
            }","id":123456789012345678901234567890}}`
          const big = yield* runExecutable(["reduce", "-"], new TextEncoder().encode(diff), { NO_COLOR: "1" })
          assertManners(big, "10 MB")
          assert.strictEqual(big.exitCode, 0)
          assert.match(big.stderr, /envelope route|overflow route/)
          assert.isTrue(isJsonText(big.stdout))
          assert.notInclude(big.stderr, "\u001b[")
        }),
      120_000
    )
  })

  describe("the server", () => {
    const answerManners = (status: number, text: string, label: string) => {
      assert.include([200, 400, 413, 422], status, `${label}: ${status} ${text.slice(0, 300)}`)
      assert.isTrue(isJsonText(text), label)
      assert.notMatch(text, /context-compressor:number:/, label)
      assert.notMatch(text, Hostile.stackTrace, label)
      if (status !== 200) assert.isBelow(text.length, 30_000, label)
    }
    const postBody = (url: string, body: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body }).then(async (r) => ({
        status: r.status,
        text: await r.text()
      }))

    it.scopedLive(
      "POST /v1/reduce and /v1/compact of hostile bodies: a JSON answer with no placeholder, 200 or a 4xx, the server serving on",
      () =>
        Effect.gen(function*() {
          const directory = Fs.mkdtempSync(NodePath.join(scratch, "serve-"))
          const context = yield* Layer.build(Server.layerNode({ port: 0, env: () => ({}), directory }))
          const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
          if (address === undefined) throw new Error("not a TCP address")
          const base = `http://127.0.0.1:${address.port}`
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(Hostile.toolResult, async (hostile) => {
                const text = decode(hostile.bytes)
                // The JSON itself as the envelope (read by the server's exact reader), and its text.
                if (isJsonText(text)) {
                  const sent = await postBody(`${base}/v1/reduce`, `{"envelope":${text}}`)
                  answerManners(sent.status, sent.text, hostile.name)
                }
                const asText = await postBody(`${base}/v1/reduce`, JSON.stringify({ envelope: text }))
                answerManners(asText.status, asText.text, hostile.name)
              }),
              { numRuns: 15 }
            )
          )
          yield* Effect.promise(() =>
            fc.assert(
              fc.asyncProperty(Hostile.transcript, async (hostile) => {
                const text = decode(hostile.bytes)
                if (isJsonText(text) && text.trim() !== "") {
                  const sent = await postBody(`${base}/v1/compact`, `{"transcript":${text},"window":20000}`)
                  answerManners(sent.status, sent.text, hostile.name)
                }
                const asText = await postBody(
                  `${base}/v1/compact`,
                  JSON.stringify({ transcript: text, window: 20_000 })
                )
                answerManners(asText.status, asText.text, hostile.name)
              }),
              { numRuns: 15 }
            )
          )
          const still = yield* Effect.promise(() => fetch(`${base}/v1/settings/compaction`).then((r) => r.status))
          assert.strictEqual(still, 200)
        }),
      120_000
    )
  })

  describe("manners", () => {
    it("colour only on a terminal, never with NO_COLOR", () => {
      assert.isFalse(Manners.colorAllowed({ isTTY: false }, {}))
      assert.isTrue(Manners.colorAllowed({ isTTY: true }, {}))
      assert.isFalse(Manners.colorAllowed({ isTTY: true }, { NO_COLOR: "1" }))
    })

    it("an API key goes only to the server it was configured for", () => {
      const env = { OPENAI_API_KEY: "sk-openai" }
      assert.isDefined(CliIo.apiKeyFor("https://api.openai.com/v1", env).apiKey)
      const elsewhere = CliIo.apiKeyFor("http://attacker.example:8080/v1", env)
      assert.isUndefined(elsewhere.apiKey)
      assert.include(elsewhere.withheld, "OPENAI_API_KEY is for https://api.openai.com")
      const own = {
        CONTEXT_COMPRESSOR_OPENAI_API_KEY: "sk-local",
        CONTEXT_COMPRESSOR_OPENAI_BASE_URL: "http://127.0.0.1:8080/v1"
      }
      assert.isDefined(CliIo.apiKeyFor("http://127.0.0.1:8080/v1", own).apiKey)
      assert.isUndefined(CliIo.apiKeyFor("http://127.0.0.1:9090/v1", own).apiKey)
    })

    prop(
      "an error answer echoes at most 1,000 characters of any value",
      [fc.integer({ min: 0, max: 3_000_000 })],
      ([length]) => {
        const capped = Server.capEchoes({
          message: "x".repeat(length),
          issues: Array.from({ length: 100 }, () => ({ message: "y".repeat(length) }))
        })
        assert.isAtMost(capped.message.length, Server.errorEchoLimit + 40)
        assert.isAtMost(capped.issues.length, 20)
        for (const issue of capped.issues) assert.isAtMost(issue.message.length, Server.errorEchoLimit + 40)
      },
      { fastCheck: { numRuns: 20 } }
    )

    it.scopedLive(
      "serve: a 400 for a huge invalid value stays small, and a settings read is answered while a long compaction runs",
      () =>
        Effect.gen(function*() {
          const directory = Fs.mkdtempSync(NodePath.join(scratch, "serve-"))
          const context = yield* Layer.build(
            Server.layerNode({ port: 0, env: () => ({}), directory, maxCompactions: 1 })
          )
          const address = HttpCompat.tcpAddress(Context.get(context, HttpCompat.HttpServer.HttpServer).address)
          if (address === undefined) throw new Error("not a TCP address")
          const base = `http://127.0.0.1:${address.port}`
          const huge = "z".repeat(4_000_000)
          const refused = yield* Effect.promise(() =>
            fetch(`${base}/v1/compact`, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ transcript: 42, window: huge })
            }).then(async (r) => ({ status: r.status, text: await r.text() }))
          )
          assert.strictEqual(refused.status, 400)
          assert.isBelow(refused.text.length, 30_000)
          const messages = [
            { role: "system", content: "agent" },
            ...Array.from(
              { length: 6_000 },
              (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: `turn ${i} ` + "words ".repeat(20) })
            )
          ]
          const started = Date.now()
          const compaction = fetch(`${base}/v1/compact`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ transcript: messages, window: 128_000 })
          })
          yield* Effect.sleep("150 millis")
          const settings = yield* Effect.promise(() =>
            fetch(`${base}/v1/settings/compaction`).then((r) => ({ status: r.status, at: Date.now() }))
          )
          const compacted = yield* Effect.promise(() => compaction.then((r) => ({ status: r.status, at: Date.now() })))
          assert.strictEqual(settings.status, 200)
          assert.strictEqual(compacted.status, 200)
          // The settings answer did not wait for the compaction to finish.
          assert.isTrue(
            settings.at <= compacted.at,
            `settings at ${settings.at - started} ms, compaction at ${compacted.at - started} ms`
          )
        }),
      120_000
    )
  })
})
