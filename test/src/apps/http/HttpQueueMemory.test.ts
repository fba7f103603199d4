/**
 * The compaction queue of `serve` bounds its memory: past its bound a request
 * is refused (503 with `Retry-After`) before its body is read, so that a
 * burst of large transcripts costs the bodies of the places, not of the
 * burst. Measured on the real executable, in its own process: the peak of
 * its resident memory while the burst is answered.
 */
import * as Compat from "#compat"
import { it } from "#test-compat"
import { assert, describe } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Program from "../../../support/Program.js"

const burst = 30
const bodyMiB = 8

/** A compaction request of about `bodyMiB` MiB, of its own session. */
const largeBody = (session: number): string => {
  const messages: Array<unknown> = [{ role: "system", content: "You are a coding agent." }]
  let size = 0
  for (let turn = 0; size < bodyMiB * 1_048_576; turn++) {
    const content = `session ${session} turn ${turn}: ` +
      "the parser drops the last token of a quoted string; ".repeat(80)
    size += content.length + 40
    messages.push({ role: turn % 2 === 0 ? "user" : "assistant", content })
  }
  return JSON.stringify({ transcript: messages, window: 200_000, sessionId: `memory-${session}` })
}

/** The resident memory of process `pid`, in bytes. */
const residentBytes = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)\s+kB/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1_024

/** `serve` on a free port with `args`, for as long as the scope lasts: its process id and port. */
const serve = (args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const directory = yield* Effect.acquireRelease(
      Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-memory-"))),
      (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
    )
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => Program.spawnExecutable(["serve", "--port", "0", "--dir", directory, ...args])),
      (child) => Effect.sync(() => child.kill("SIGKILL"))
    )
    child.stdin.end()
    const port = yield* Compat.callback<number, Error>((resume) => {
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk
        const listening = /listening on http:\/\/[^\s:]+:(\d+)/.exec(stderr)
        if (listening !== null) resume(Effect.succeed(Number(listening[1])))
      })
      child.on("exit", () => resume(Effect.fail(new Error(`serve ended: ${stderr}`))))
    })
    return { pid: child.pid!, port }
  })

/** One small compaction on a connection of its own (not left idle in fetch's pool): the server's code loaded and warm. */
const warmUp = (port: number) =>
  Effect.promise(() =>
    new Promise<void>((resolve, reject) => {
      const request = Http.request(
        { host: "127.0.0.1", port, path: "/v1/compact", method: "POST", agent: false },
        (response) => response.resume().on("end", () => resolve())
      )
      request.on("error", reject)
      request.end(JSON.stringify({ transcript: [{ role: "user", content: "hello" }] }))
    })
  )

describe("serve: the queue bounds memory", () => {
  it.scopedLive(
    `${burst} concurrent ${bodyMiB} MiB transcripts against 1 running and 2 waiting: the others get 503 with Retry-After unread, and the server's memory grows by less than the bodies sent`,
    () =>
      Effect.gen(function*() {
        const { pid, port } = yield* serve(["--max-compactions", "1", "--max-queue", "2"])
        const bodies = Array.from({ length: burst }, (_, session) => largeBody(session))
        const sentBytes = bodies.reduce((sum, body) => sum + body.length, 0)
        yield* warmUp(port)
        const before = residentBytes(pid)
        let peak = before
        const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(pid))), 10)
        const answers = yield* Effect.promise(() =>
          Promise.all(bodies.map(async (body) => {
            const response = await fetch(`http://127.0.0.1:${port}/v1/compact`, { method: "POST", body })
            const text = await response.text()
            return { status: response.status, retryAfter: response.headers.get("retry-after"), text }
          }))
        ).pipe(Effect.ensuring(Effect.sync(() => clearInterval(sampler))))
        const refused = answers.filter((answer) => answer.status === 503)
        const answered = answers.filter((answer) => answer.status === 200)
        assert.strictEqual(answered.length + refused.length, burst, JSON.stringify(answers.map((a) => a.status)))
        assert.isAtLeast(answered.length, 3, "the running one and the two waiting are answered")
        assert.isAtLeast(refused.length, burst - 3 - 3)
        for (const answer of refused) {
          assert.isAtLeast(Number(answer.retryAfter), 1, `Retry-After: ${answer.retryAfter}`)
          assert.strictEqual(JSON.parse(answer.text)._tag, "Busy")
        }
        const grownBytes = peak - before
        // Reading every body of the burst and parsing it grew it by several times the bytes sent (1,364 MB for 30 ×
        // 14.3 MiB); holding the three of the places, by less than the bytes sent.
        assert.isBelow(
          grownBytes,
          sentBytes,
          `resident memory grew by ${Math.round(grownBytes / 1_048_576)} MiB for ${
            Math.round(sentBytes / 1_048_576)
          } MiB sent`
        )
      }),
    180_000
  )
})
