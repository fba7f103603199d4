/**
 * The latency the proxy adds to a chat request: the same requests sent to a
 * fake upstream on 127.0.0.1 directly and through `proxy` (production engine:
 * SQLite in a temporary folder, o200k_base, the offline summariser), in the
 * same run. Three shapes: a short conversation (no compaction), a 371-message
 * agent session growing by one turn per request (compacted once, then rebuilt
 * from the saved state), and the same session streamed.
 *
 * Run with `npx tsx bench/proxy.bench.ts`.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Proxy from "../src/apps/http/Proxy.js"
import * as FakeUpstream from "../test/support/FakeUpstream.js"
import { elapsedMs, formatMs, median, now, printTable } from "./timing.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const session: ReadonlyArray<unknown> = JSON.parse(
  Fs.readFileSync(NodePath.join(root, "examples/session/agent-session.json"), "utf8")
)
const rounds = 30

const request = async (base: string, messages: ReadonlyArray<unknown>, stream: boolean, sessionId: string) => {
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-bench", [Proxy.sessionHeader]: sessionId },
    body: JSON.stringify({ model: "gpt-bench", messages, ...(stream ? { stream: true } : {}) })
  })
  await response.text()
  if (response.status !== 200) throw new Error(`status ${response.status}`)
  return response.headers.get(Proxy.reportHeader) ?? ""
}

const program = Effect.gen(function*() {
  const fake = yield* Effect.acquireRelease(
    Effect.promise(() => FakeUpstream.start()),
    (f) => Effect.promise(() => f.close())
  )
  const directory = yield* Effect.acquireRelease(
    Effect.sync(() => Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-proxy-bench-"))),
    (dir) => Effect.sync(() => Fs.rmSync(dir, { recursive: true, force: true }))
  )
  const context = yield* Layer.build(
    Proxy.layerNode({ upstream: fake.url, port: 0, directory, env: () => ({}), window: 32_000 })
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  const proxied = `http://127.0.0.1:${address.port}`

  const shapes: ReadonlyArray<
    { readonly name: string; readonly messages: (round: number) => ReadonlyArray<unknown>; readonly stream: boolean }
  > = [
    { name: "short conversation (6 messages), not compacted", messages: () => session.slice(0, 6), stream: false },
    {
      name: "agent session 300-330 messages, compacted",
      messages: (round) => session.slice(0, 300 + round),
      stream: false
    },
    {
      name: "agent session 300-330 messages, compacted, streamed",
      messages: (round) => session.slice(0, 300 + round),
      stream: true
    }
  ]
  const rows: Array<Array<string>> = []
  for (const [index, shape] of shapes.entries()) {
    const direct: Array<number> = []
    const through: Array<number> = []
    let compacted = 0
    yield* Effect.promise(async () => {
      // one warm-up each, then alternate so that both see the same machine
      await request(fake.url, shape.messages(0), shape.stream, `warm-${index}`)
      await request(proxied, shape.messages(0), shape.stream, `warm-${index}`)
      for (let round = 0; round < rounds; round++) {
        const messages = shape.messages(round)
        let start = now()
        await request(fake.url, messages, shape.stream, `s-${index}`)
        direct.push(elapsedMs(start))
        start = now()
        const report = await request(proxied, messages, shape.stream, `s-${index}`)
        through.push(elapsedMs(start))
        if (report.startsWith("compacted")) compacted++
      }
    })
    const [d, p] = [median(direct), median(through)]
    rows.push([shape.name, formatMs(d), formatMs(p), formatMs(p - d), `${(p / d).toFixed(1)}×`, String(compacted)])
  }
  console.log(
    `\nproxy: ${rounds} requests per shape to a fake upstream on 127.0.0.1, direct and through the proxy (medians, same run)\n`
  )
  printTable(["request", "direct ms", "proxied ms", "added ms", "ratio", "compactions"], rows)
})

Effect.runPromise(Effect.scoped(program).pipe(Logger.withMinimumLogLevel(LogLevel.Warning))).catch((error) => {
  console.error(error)
  process.exit(1)
})
