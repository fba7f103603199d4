/**
 * Responsiveness of the server: how long the event loop of `serve` is
 * blocked while it answers one `POST /v1/compact` of a 50,000-message
 * transcript (OpenAI chat messages, the session of `bench/recorded.ts`), and
 * what that costs.
 *
 * The server is the real one (`HttpServer.layerNode` on 127.0.0.1, port 0, a
 * fresh folder each run, the offline summariser), in this process; the client
 * is `node:http` with the body encoded beforehand and the answer kept as
 * bytes, so that the client adds next to nothing to the loop. Meanwhile a
 * 1 ms `setInterval` probe records the longest gap between its ticks, and a
 * `GET /v1/settings/compaction` is due 20 ms after the last one was answered,
 * one at a time: the longest wait from when one was due to its answer is what
 * another client of the server waits at worst.
 *
 * Two servers in the same run, interleaved: the unsliced one (`sliceMs:
 * Infinity`, the offline summariser called in one go: nothing pauses), and
 * the server as shipped (pausing every `Compactor.defaultSliceMs`). The
 * baseline of the ratios is the native `JSON.parse` + `JSON.stringify` of the
 * same body, measured in the same run; the native `JSON.parse` of the body
 * alone is printed too: it is the one piece of the request that cannot be
 * cut (the exact reader `Json.parse` hands a body without inexact numbers to
 * it), so the longest stall of the sliced server is that plus a slice or so.
 *
 * Run: `npx tsx bench/responsive-http.bench.ts` (`--messages N` for another
 * length, `--runs N` for more samples; medians are printed).
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
import * as SummarizerOffline from "../layers/SummarizerOffline.js"
import * as Summarizer from "../services/Summarizer.js"
import * as Compactor from "../src/Compactor.js"
import * as Server from "../src/http/HttpServer.js"
import { argValue } from "./generate.js"
import { sessionOf, toOpenAI } from "./recorded.js"
import { elapsedMs, formatCount, formatMs, median, now, printTable } from "./timing.js"

const messages = Number(argValue("--messages") ?? "50000") || 50_000
const runs = Number(argValue("--runs") ?? "3") || 3
const window = 128_000

/** The offline summariser as it was before it paused: one synchronous call. */
const offlineInOneGo: Layer.Layer<Summarizer.Summarizer> = Layer.succeed(Summarizer.Summarizer, {
  summarize: (request) => Effect.sync(() => SummarizerOffline.summarize(request.span, request.instructions))
})

interface Started {
  readonly port: number
  readonly close: () => Promise<void>
}

/** A server on a fresh folder: sliced as shipped, or (`Infinity`) never pausing. */
const start = async (sliceMs: number): Promise<Started> => {
  const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-bench-http-"))
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(
    Layer.buildWithScope(
      Server.layerNode({
        port: 0,
        directory,
        env: () => ({}),
        maxBodyBytes: 512 * 1_048_576,
        requestTimeoutMs: 600_000,
        ...(Number.isFinite(sliceMs) ? {} : { sliceMs, summarizer: offlineInOneGo })
      }),
      scope
    )
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

/** One request; the answer's status and its body's length in bytes (not decoded). */
const request = (port: number, method: "GET" | "POST", path: string, body?: Buffer): Promise<{ readonly status: number; readonly bytes: number }> =>
  new Promise((resolve, reject) => {
    const outgoing = Http.request(
      { host: "127.0.0.1", port, method, path, agent: false, headers: body === undefined ? {} : { "content-type": "application/json", "content-length": body.length } },
      (response) => {
        let bytes = 0
        response.on("data", (chunk: Buffer) => void (bytes += chunk.length))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes }))
        response.on("error", reject)
      }
    )
    outgoing.on("error", reject)
    outgoing.end(body)
  })

interface Sample {
  readonly totalMs: number
  readonly longestGapMs: number
  readonly slowestGetMs: number
  readonly gets: number
  readonly answerBytes: number
}

/** One compaction on a fresh server, with the event loop probed and the settings asked for meanwhile. */
const measure = async (sliceMs: number, body: Buffer): Promise<Sample> => {
  const server = await start(sliceMs)
  try {
    // A first request, so that the routes and the engine are warm.
    await request(server.port, "GET", "/v1/settings/compaction")
    let last = performance.now()
    let longestGap = 0
    const probe = setInterval(() => {
      const at = performance.now()
      longestGap = Math.max(longestGap, at - last)
      last = at
    }, 1)
    await new Promise((resolve) => setTimeout(resolve, 5))
    let done = false
    let slowestGet = 0
    let gets = 0
    // Each GET is due 20 ms after the last answer: its wait counts from then, so that a stall while no GET was in flight counts too.
    const asking = (async () => {
      while (!done) {
        const due = performance.now() + 20
        await new Promise((resolve) => setTimeout(resolve, 20))
        await request(server.port, "GET", "/v1/settings/compaction")
        if (!done) {
          slowestGet = Math.max(slowestGet, performance.now() - due)
          gets++
        }
      }
    })()
    last = performance.now()
    longestGap = 0
    const began = now()
    const answer = await request(server.port, "POST", "/v1/compact", body)
    const totalMs = elapsedMs(began)
    longestGap = Math.max(longestGap, performance.now() - last)
    done = true
    clearInterval(probe)
    await asking
    if (answer.status !== 200) throw new Error(`POST /v1/compact answered ${answer.status}`)
    return { totalMs, longestGapMs: longestGap, slowestGetMs: slowestGet, gets, answerBytes: answer.bytes }
  } finally {
    await server.close()
  }
}

/** The baseline: the native parse and serialisation of the same body, and the parse alone. */
const native = (text: string): { readonly parseMs: number; readonly bothMs: number } => {
  const began = now()
  const parsed: unknown = JSON.parse(text)
  const parseMs = elapsedMs(began)
  JSON.stringify(parsed)
  return { parseMs, bothMs: elapsedMs(began) }
}

const main = async () => {
  const session = sessionOf(messages)
  const text = JSON.stringify({ transcript: toOpenAI(session.transcript), format: "openai", window })
  const body = Buffer.from(text, "utf8")
  console.log(
    `context-compressor HTTP responsiveness: POST /v1/compact of ${formatCount(session.transcript.length)} OpenAI chat messages (${session.source}), a body of ${
      (body.length / 1e6).toFixed(1)
    } MB, window ${formatCount(window)}, offline summariser, the server in this process; ${runs} runs each, medians`
  )
  const unsliced: Array<Sample> = []
  const sliced: Array<Sample> = []
  const baselines: Array<{ readonly parseMs: number; readonly bothMs: number }> = []
  for (let run = 0; run < runs; run++) {
    baselines.push(native(text))
    unsliced.push(await measure(Number.POSITIVE_INFINITY, body))
    sliced.push(await measure(Compactor.defaultSliceMs, body))
  }
  const parseMs = median(baselines.map((b) => b.parseMs))
  const baselineMs = median(baselines.map((b) => b.bothMs))
  const row = (label: string, samples: ReadonlyArray<Sample>) => {
    const totalMs = median(samples.map((s) => s.totalMs))
    const longestGapMs = median(samples.map((s) => s.longestGapMs))
    return [
      label,
      formatMs(longestGapMs),
      `${(longestGapMs / parseMs).toFixed(2)}x`,
      formatMs(median(samples.map((s) => s.slowestGetMs))),
      formatCount(median(samples.map((s) => s.gets))),
      formatMs(totalMs),
      `${(totalMs / baselineMs).toFixed(2)}x`
    ]
  }
  const unslicedMs = median(unsliced.map((s) => s.totalMs))
  const slicedMs = median(sliced.map((s) => s.totalMs))
  printTable(
    ["server", "longest stall ms", "stall / native parse", "slowest GET ms", "GETs answered", "total ms", "total / baseline"],
    [
      ["baseline: native JSON.parse + JSON.stringify of the body", "-", "-", "-", "-", formatMs(baselineMs), "1.00x"],
      ["native JSON.parse of the body alone (cannot be cut)", formatMs(parseMs), "1.00x", "-", "-", formatMs(parseMs), `${(parseMs / baselineMs).toFixed(2)}x`],
      row("unsliced (sliceMs: Infinity)", unsliced),
      row(`sliced (pauses every ${Compactor.defaultSliceMs} ms)`, sliced)
    ]
  )
  const stall = median(sliced.map((s) => s.longestGapMs))
  console.log(
    `sliced vs unsliced: total ${(slicedMs / unslicedMs).toFixed(2)}x; longest stall ${formatMs(stall)} ms = native parse ${formatMs(parseMs)} ms + ${formatMs(stall - parseMs)} ms; answer ${
      (median(sliced.map((s) => s.answerBytes)) / 1e6).toFixed(1)
    } MB`
  )
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
