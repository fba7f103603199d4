/**
 * A burst against `serve`: 200 clients each POST `/v1/compact` at the same
 * moment, each with a distinct history of 200 messages (the deterministic
 * sessions of `bench/sessions.ts`, one seed per client, as OpenAI chat
 * messages) in a window of 32,000 tokens, so that each one compacts. The
 * server is the real one (`HttpServer.layerNode` on 127.0.0.1, port 0, a
 * fresh folder, the offline summariser, the default limits: 4 compactions at
 * once, 256 waiting, 30 s of wait), in this process; each client is a
 * `node:http` request of its own connection, its body encoded beforehand.
 *
 * What it measures: how many of the burst are answered 200 (and how many
 * 503), the time until the last answer (the drain), each client's time to
 * its answer and the wait the server says it spent in the queue
 * (`Server-Timing: queue;dur=MS`), p50 and p99. The baseline, in the same
 * run, is the same 200 requests sent one by one to another fresh server:
 * their total time and their times to an answer. The ratios say what the
 * burst costs against the same work sent politely.
 *
 * Bounded: every request gives up after `--timeout` seconds of silence
 * (default 120), and the whole run stops after five times that. Run: `npx tsx bench/burst.bench.ts` (`--clients N`,
 * `--messages N` for another burst).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as Server from "../src/apps/http/HttpServer.js"
import { argValue } from "./generate.js"
import { toOpenAI } from "./recorded.js"
import { session } from "./sessions.js"
import { elapsedMs, formatCount, formatMs, now, printTable } from "./timing.js"

const clients = Number(argValue("--clients") ?? "200") || 200
const messages = Number(argValue("--messages") ?? "200") || 200
const timeoutMs = (Number(argValue("--timeout") ?? "120") || 120) * 1_000
const window = 32_000

interface Started {
  readonly port: number
  readonly close: () => Promise<void>
}

/** `serve` as shipped on a fresh folder. */
const start = async (): Promise<Started> => {
  const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-bench-burst-"))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(Server.layerNode({ port: 0, directory, env: () => ({}) }), scope)
  )
  const address = Context.get(context, HttpServer.HttpServer).address
  if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
  return {
    port: address.port,
    close: async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      Fs.rmSync(directory, { recursive: true, force: true })
    }
  }
}

interface Answer {
  readonly status: number
  /** From the request's start to the end of its answer. */
  readonly ms: number
  /** What the server says it waited in the queue (`Server-Timing`), when it did. */
  readonly queueMs: number | undefined
  readonly retryAfter: string | undefined
}

/** One POST on a connection of its own; a client that gives up or fails is status 0. */
const post = (port: number, body: Buffer): Promise<Answer> =>
  new Promise((resolve) => {
    const began = now()
    const outgoing = Http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/v1/compact",
        agent: false,
        timeout: timeoutMs,
        headers: { "content-type": "application/json", "content-length": body.length }
      },
      (response) => {
        response.resume()
        response.on("end", () => {
          const timing = /queue;dur=(\d+)/.exec(String(response.headers["server-timing"] ?? ""))
          resolve({
            status: response.statusCode ?? 0,
            ms: elapsedMs(began),
            queueMs: timing === null ? undefined : Number(timing[1]),
            retryAfter: response.headers["retry-after"] as string | undefined
          })
        })
      }
    )
    outgoing.on("timeout", () => outgoing.destroy(new Error("timed out")))
    outgoing.on("error", () => resolve({ status: 0, ms: elapsedMs(began), queueMs: undefined, retryAfter: undefined }))
    outgoing.end(body)
  })

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

interface Phase {
  readonly answers: ReadonlyArray<Answer>
  readonly totalMs: number
}

/** The bodies sent at once to a fresh server. */
const burst = async (bodies: ReadonlyArray<Buffer>): Promise<Phase> => {
  const server = await start()
  try {
    await post(server.port, warmUp)
    const began = now()
    const answers = await Promise.all(bodies.map((body) => post(server.port, body)))
    return { answers, totalMs: elapsedMs(began) }
  } finally {
    await server.close()
  }
}

/** The bodies sent one after another to a fresh server. */
const oneByOne = async (bodies: ReadonlyArray<Buffer>): Promise<Phase> => {
  const server = await start()
  try {
    await post(server.port, warmUp)
    const began = now()
    const answers: Array<Answer> = []
    for (const body of bodies) answers.push(await post(server.port, body))
    return { answers, totalMs: elapsedMs(began) }
  } finally {
    await server.close()
  }
}

const bodyOf = (seed: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      transcript: toOpenAI(session(messages, undefined, seed)),
      format: "openai",
      window,
      sessionId: `burst-${seed}`
    }),
    "utf8"
  )

/** A request that warms the routes and the engine of each server before it is measured. */
const warmUp = bodyOf(0x5eed)

const main = async () => {
  const bodies = Array.from({ length: clients }, (_, client) => bodyOf(client + 1))
  const bytes = bodies.reduce((sum, body) => sum + body.length, 0)
  console.log(
    `context-compressor burst: ${clients} clients each POST /v1/compact at once, a distinct history of ${messages} OpenAI chat messages each ` +
      `(${(bytes / clients / 1e3).toFixed(0)} kB a body), window ${
        formatCount(window)
      }, offline summariser; serve as shipped ` +
      `(${Server.defaultLimits.maxCompactions} at once, ${Server.defaultLimits.maxQueue} waiting, ${
        Server.defaultLimits.queueTimeoutMs / 1_000
      } s of wait), in this process. ` +
      `Baseline: the same ${clients} sent one by one to a fresh server, in the same run.`
  )
  const polite = await oneByOne(bodies)
  const rushed = await burst(bodies)
  const row = (label: string, phase: Phase) => {
    const ok = phase.answers.filter((answer) => answer.status === 200)
    const busy = phase.answers.filter((answer) => answer.status === 503)
    const times = phase.answers.map((answer) => answer.ms)
    const waits = ok.flatMap((answer) => (answer.queueMs === undefined ? [] : [answer.queueMs]))
    return {
      label,
      ok: ok.length,
      busy: busy.length,
      failed: phase.answers.length - ok.length - busy.length,
      totalMs: phase.totalMs,
      p50: percentile(times, 50),
      p99: percentile(times, 99),
      wait50: percentile(waits, 50),
      wait99: percentile(waits, 99),
      retryAfter: busy.map((answer) => answer.retryAfter ?? "none")
    }
  }
  const rows = [row("one by one (baseline)", polite), row(`${clients} at once`, rushed)]
  printTable(
    [
      "run",
      "200",
      "503",
      "failed",
      "drain ms",
      "answer p50 ms",
      "answer p99 ms",
      "queue wait p50 ms",
      "queue wait p99 ms"
    ],
    rows.map((
      r
    ) => [
      r.label,
      String(r.ok),
      String(r.busy),
      String(r.failed),
      formatMs(r.totalMs),
      formatMs(r.p50),
      formatMs(r.p99),
      formatMs(r.wait50),
      formatMs(r.wait99)
    ])
  )
  const [base, load] = [rows[0]!, rows[1]!]
  console.log("")
  console.log(`answered 200: ${load.ok} of ${clients} at once, ${base.ok} of ${clients} one by one`)
  console.log(`drain of the burst / total one by one: ${(load.totalMs / base.totalMs).toFixed(2)}x`)
  console.log(
    `answer p50 at once / p50 one by one: ${(load.p50 / base.p50).toFixed(1)}x; p99: ${
      (load.p99 / base.p99).toFixed(1)
    }x`
  )
  console.log(`queue wait p99 / drain of the burst: ${(load.wait99 / load.totalMs).toFixed(2)}`)
  if (load.retryAfter.length > 0) console.log(`Retry-After of the 503s: ${[...new Set(load.retryAfter)].join(", ")}`)
}

const deadline = setTimeout(() => {
  console.error(`burst bench: stopped after ${(timeoutMs * 5) / 1_000} s`)
  process.exit(1)
}, timeoutMs * 5)
deadline.unref()

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  }
)
