/**
 * The session bench's model mode (issue 31) against the fake chat-completions
 * server of test/support: the bench replays a generated session with the
 * chat-completions summariser at the server's URL, delimited and then
 * shared-prefix on the same calls, and reports the gate's pass rate of what
 * the server answered.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as ChildProcess from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { toOpenAI } from "../../bench/recorded.js"
import * as Sessions from "../../bench/sessions.js"
import * as SummaryPrompt from "../../src/face/engine/SummaryPrompt.js"
import * as Server from "../support/ChatCompletionsServer.js"

const repository = NodeUrl.fileURLToPath(new URL("../..", import.meta.url))

const goodSummary = (n: number) =>
  SummaryPrompt.generalSections.map((heading) =>
    `${heading}\nReply ${n}: what the session did for ${heading.slice(3).toLowerCase()}, in a full sentence.`
  ).join("\n\n")

/** Every third reply is no summary (the gate refuses it); the others pass. */
const script = Array.from(
  { length: 400 },
  (_, n) => (n % 3 === 2 ? Server.completion("Sure, here is a summary.") : Server.completion(goodSummary(n)))
)
const valid = (n: number) => n % 3 !== 2

const runBench = (args: ReadonlyArray<string>) =>
  Effect.async<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>((resume) => {
    const child = ChildProcess.execFile(
      NodePath.join(repository, "node_modules", ".bin", "tsx"),
      [NodePath.join(repository, "bench", "session-economics.bench.ts"), ...args],
      {
        cwd: repository,
        env: { ...process.env, CONTEXT_COMPRESSOR_BENCH_SUMMARIZER_URL: "" },
        maxBuffer: 8 * 1024 * 1024
      },
      (error, stdout, stderr) =>
        resume(
          Effect.succeed({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
        )
    )
    return Effect.sync(() => child.kill())
  })

/** A row of the model table: its cells, split on runs of two spaces. */
const row = (stdout: string, label: string): ReadonlyArray<string> => {
  const line = stdout.split("\n").find((l) => l.startsWith(`${label}  `))
  assert.isDefined(line, `no ${label} row in:\n${stdout}`)
  return line!.split(/\s{2,}/)
}

describe("session bench, model mode", () => {
  it.scoped(
    "replays the sessions with the chat-completions summariser at a URL: delimited then shared-prefix on the same calls, the gate's pass rate of what the server answered",
    () =>
      Effect.gen(function*() {
        const server = yield* Server.start(script)
        const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "economics-model-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => Fs.rmSync(directory, { recursive: true, force: true })))
        Fs.writeFileSync(NodePath.join(directory, "generated.json"), JSON.stringify(toOpenAI(Sessions.session(60))))
        const { code, stderr, stdout } = yield* runBench([
          "--summarizer-url",
          server.baseUrl,
          "--transcripts",
          directory,
          "--no-example",
          "--windows",
          "4000"
        ])
        assert.strictEqual(code, 0, stderr)
        assert.match(
          stdout,
          /^context-compressor session economics, model mode: the chat-completions summariser at http:\/\/127\.0\.0\.1:\d+\/v1; 1 sessions/
        )
        const delimited = row(stdout, "delimited")
        const shared = row(stdout, "shared-prefix")
        const callsDelimited = Number(delimited[2]!.replaceAll(",", ""))
        const callsShared = Number(shared[2]!.replaceAll(",", ""))
        assert.isAbove(callsDelimited, 1)
        assert.isAbove(callsShared, 1)
        const received = yield* server.received
        // Every summariser request reached the server, the delimited replay's first.
        assert.strictEqual(received.length, callsDelimited + callsShared)
        const messages = (n: number) =>
          (received[n]!.body as { readonly messages: ReadonlyArray<unknown> }).messages.length
        assert.isTrue(Array.from({ length: callsDelimited }, (_, n) => messages(n)).every((count) => count === 2))
        assert.isTrue(
          Array.from({ length: callsShared }, (_, n) => messages(callsDelimited + n)).some((count) => count > 2)
        )
        // The gate passed exactly the replies that were summaries, and the rate says so.
        const passed = (from: number, count: number) =>
          Array.from({ length: count }, (_, n) => from + n).filter(valid).length
        assert.strictEqual(delimited[4], `${passed(0, callsDelimited)}/${callsDelimited}`)
        assert.strictEqual(shared[4], `${passed(callsDelimited, callsShared)}/${callsShared}`)
        assert.strictEqual(delimited[5], `${((100 * passed(0, callsDelimited)) / callsDelimited).toFixed(1)}%`)
        // Summary lengths: chars/4 of the summaries the server gave back, shortest to longest.
        assert.match(delimited[7]!, /^\d+ \/ \d+ \/ \d+ \/ \d+$/)
        assert.match(stdout, /window 4,000: gate pass rate [\d.]+% delimited, [\d.]+% shared-prefix/)
      }),
    { timeout: 120_000 }
  )
})
