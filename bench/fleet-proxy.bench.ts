/**
 * A fleet of proxies: 4 `context-compressor proxy --database-url` workers (real
 * processes, from the sources through tsx) on one throwaway PostgreSQL, behind
 * a round-robin balancer written here (nothing sticky: each request goes to
 * the next live worker; a worker that refuses the connection is skipped), in
 * front of a fake upstream on 127.0.0.1 that reports a provider's token count
 * (a token per 4 characters), streams half of the answers in three chunks,
 * and answers some requests with a `context_recall` call of a handle the
 * compacted block lists. 64 sessions are replayed from `../shared/transcripts/`
 * (each recorded run many times under its own session id and first words),
 * each as 4 requests of its growing history at a 16k window, 16 sessions at a
 * time. Once 40% of the requests are answered, one worker is killed with
 * SIGKILL while it relays a stream, and started again.
 *
 * The same requests go, through the same balancer, to one worker on its
 * folder's SQLite files (the baseline), in the same run. Reported: requests
 * lost (no complete answer after the client's one retry) and answered twice
 * (an attempt the upstream got more than once: the balancer passes a request
 * on to the next worker only when a worker refuses the connection, never once
 * it was sent; a cut answer is retried by the client under a new attempt):
 * both must be 0; compactions
 * saved, fleet against one worker (must be equal); recall calls answered;
 * p50 and p99 latency per request, fleet against one worker, and one worker
 * on PostgreSQL against one on SQLite (the database's share, apart from the
 * fleet's processes sharing the machine's cores); peak resident memory per
 * worker. Linux (`/proc`) only.
 *
 * Run: `nice -n 10 npx tsx bench/fleet-proxy.bench.ts` (`--sessions 64`,
 * `--requests 4`). Skips, saying why, without PostgreSQL or the transcripts.
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as SqliteClient from "@effect/sql-sqlite-node/SqliteClient"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { type ChildProcess, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { hasTranscripts, transcriptsDirectory } from "../test/openai.js"
import * as PostgresCluster from "../test/support/PostgresCluster.js"
import { argValue } from "./generate.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const sessions = Number(argValue("--sessions") ?? 64)
const requestsPerSession = Number(argValue("--requests") ?? 4)
const concurrency = 16
const window = 16_000
const recallTool = "context_recall"

// --- the upstream -------------------------------------------------------------------------

interface UpstreamStats {
  attempts: Map<string, number>
  recallCalls: number
  recallAnswered: number
}

const startUpstream = async () => {
  const stats: UpstreamStats = { attempts: new Map(), recallCalls: 0, recallAnswered: 0 }
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8")
      const body = JSON.parse(text) as { messages: Array<any>; stream?: boolean; tools?: Array<any> }
      const usage = Math.ceil(text.length / 4)
      const last = body.messages.at(-1)
      const followUp = last?.role === "tool" && String(last.tool_call_id).startsWith("bench-recall")
      if (followUp) {
        if (!String(last.content).startsWith(`${recallTool} failed`)) stats.recallAnswered++
      } else {
        const attempt = String(request.headers["x-bench-attempt"])
        stats.attempts.set(attempt, (stats.attempts.get(attempt) ?? 0) + 1)
      }
      const offered = body.tools?.some((tool) => tool?.function?.name === recallTool) === true
      const handle = offered && !followUp && request.headers["x-bench-recall"] === "1"
        ? /ctx_[A-Za-z0-9]{10,}/.exec(text)?.[0]
        : undefined
      if (handle !== undefined) {
        stats.recallCalls++
        response.writeHead(200, { "content-type": "application/json" })
        response.end(JSON.stringify({
          id: "chatcmpl-r",
          object: "chat.completion",
          created: 1,
          model: "bench",
          choices: [{
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [{
                id: "bench-recall-1",
                type: "function",
                function: { name: recallTool, arguments: JSON.stringify({ handle }) }
              }]
            },
            finish_reason: "tool_calls"
          }],
          usage: { prompt_tokens: usage, completion_tokens: 5, total_tokens: usage + 5 }
        }))
        return
      }
      if (body.stream === true) {
        response.writeHead(200, { "content-type": "text/event-stream" })
        const sse = (data: unknown) => `data: ${JSON.stringify(data)}\n\n`
        const parts = [
          sse({
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "bench",
            choices: [{ index: 0, delta: { role: "assistant", content: "working" }, finish_reason: null }]
          }),
          sse({
            id: "c",
            object: "chat.completion.chunk",
            created: 1,
            model: "bench",
            choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
            usage: { prompt_tokens: usage, completion_tokens: 1, total_tokens: usage + 1 }
          }),
          "data: [DONE]\n\n"
        ]
        let i = 0
        const next = () => {
          if (response.destroyed) return
          response.write(parts[i++])
          if (i < parts.length) setTimeout(next, 15)
          else response.end()
        }
        next()
        return
      }
      response.writeHead(200, { "content-type": "application/json" })
      response.end(JSON.stringify({
        id: "c",
        object: "chat.completion",
        created: 1,
        model: "bench",
        choices: [{ index: 0, message: { role: "assistant", content: "working" }, finish_reason: "stop" }],
        usage: { prompt_tokens: usage, completion_tokens: 1, total_tokens: usage + 1 }
      }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stats,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// --- the workers --------------------------------------------------------------------------

interface Worker {
  base: string
  child: ChildProcess
  peakKb: number
  inFlightStreams: number
}

const startWorker = (args: ReadonlyArray<string>): Promise<Worker> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", NodePath.join(root, "src/apps/cli/bin.ts"), "proxy", ...args],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] }
    )
    let stderr = ""
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
      const match = /^proxying (http:\/\/\S+) -> /m.exec(stderr)
      if (match !== null && stderr.length - chunk.length < match.index + match[0].length) {
        resolve({ base: match[1]!, child, peakKb: 0, inFlightStreams: 0 })
      }
    })
    child.once("exit", (code, signal) =>
      reject(new Error(`worker exited (${code ?? signal}): ${stderr.trim().split("\n").slice(-3).join(" / ")}`)))
  })

const residentKb = (pid: number | undefined): number => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(Fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  } catch {
    return 0
  }
}

// --- the balancer -------------------------------------------------------------------------

const startBalancer = async (workers: Array<Worker | undefined>) => {
  let next = 0
  const server = Http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const body = Buffer.concat(chunks)
      const streamed = request.headers["x-bench-stream"] === "1"
      const attempt = (tries: number): void => {
        const live = workers.filter((worker): worker is Worker => worker !== undefined)
        if (tries >= workers.length || live.length === 0) {
          response.writeHead(502).end("no worker")
          return
        }
        const worker = workers[next++ % workers.length]
        if (worker === undefined) return attempt(tries + 1)
        const upstream = Http.request(`${worker.base}${request.url}`, {
          method: request.method,
          headers: request.headers
        })
        let answered = false
        if (streamed) worker.inFlightStreams++
        const done = () => {
          if (streamed) worker.inFlightStreams--
        }
        upstream.on("response", (from) => {
          answered = true
          response.writeHead(from.statusCode ?? 502, from.headers)
          from.pipe(response)
          from.on("error", () => response.destroy())
          from.on("aborted", () => response.destroy())
          from.on("close", done)
        })
        // A worker that refuses the connection (down) never got the request: the next one takes it. Past the
        // connection a request is never sent twice (a POST is not idempotent): the client gets the failure.
        upstream.on("error", (error: NodeJS.ErrnoException) => {
          if (answered) return void response.destroy()
          done()
          if (error.code === "ECONNREFUSED") attempt(tries + 1)
          else response.writeHead(502).end(`worker failed: ${error.code ?? error.message}`)
        })
        upstream.end(body)
      }
      attempt(0)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

// --- the sessions -------------------------------------------------------------------------

interface Request {
  readonly session: string
  readonly index: number
  readonly messages: ReadonlyArray<unknown>
  readonly stream: boolean
  readonly recall: boolean
}

const plan = (): Array<Array<Request>> => {
  const runs = Fs.readdirSync(transcriptsDirectory).filter((name) => name.endsWith(".json")).sort()
    .map((name) => JSON.parse(Fs.readFileSync(NodePath.join(transcriptsDirectory, name), "utf8")) as Array<any>)
  return Array.from({ length: sessions }, (_, s) => {
    const run = runs[s % runs.length]!
    // Its own first words: the sessions share no summary through the cache.
    const messages = run.map((message, i) =>
      i === 1 && typeof message.content === "string"
        ? { ...message, content: `[bench session ${s}] ${message.content}` }
        : message
    )
    return Array.from({ length: requestsPerSession }, (_, r) => ({
      session: `bench-${s}`,
      index: r,
      messages: messages.slice(0, Math.round(messages.length * (0.35 + (0.65 * (r + 1)) / requestsPerSession))),
      stream: (s + r) % 2 === 0,
      recall: r >= 2 && (s + r) % 3 === 0
    }))
  })
}

interface Outcome {
  readonly latencies: Array<number>
  readonly lost: number
  readonly retried: number
  readonly compactedHeaders: number
}

const send = (balancer: string, request: Request, attempt: string) =>
  new Promise<{ readonly ok: boolean; readonly report: string; readonly ms: number }>((resolve) => {
    const started = performance.now()
    const body = JSON.stringify({
      model: "bench",
      messages: request.messages,
      ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {})
    })
    const outbound = Http.request(`${balancer}/v1/chat/completions`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-session-id": request.session,
        "x-bench-attempt": attempt,
        "x-bench-stream": request.stream ? "1" : "0",
        "x-bench-recall": request.recall ? "1" : "0"
      }
    })
    outbound.on("response", (response) => {
      let text = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk))
      response.on("end", () => {
        const complete = response.statusCode === 200 &&
          (request.stream ? text.includes("[DONE]") : text.includes("\"finish_reason\""))
        resolve({
          ok: complete,
          report: String(response.headers["x-context-compressor"] ?? ""),
          ms: performance.now() - started
        })
      })
      response.on("error", () => resolve({ ok: false, report: "", ms: 0 }))
      response.on("aborted", () => resolve({ ok: false, report: "", ms: 0 }))
    })
    outbound.on("error", () => resolve({ ok: false, report: "", ms: 0 }))
    outbound.end(body)
  })

const replay = async (
  balancer: string,
  work: Array<Array<Request>>,
  progress: (done: number) => void
): Promise<Outcome> => {
  const outcome = { latencies: [] as Array<number>, lost: 0, retried: 0, compactedHeaders: 0 }
  let done = 0
  let cursor = 0
  const lane = async () => {
    while (cursor < work.length) {
      const requests = work[cursor++]!
      for (const request of requests) {
        let answer = await send(balancer, request, `${request.session}-${request.index}-0`)
        // The client's one retry, as an SDK makes it, when its answer was cut.
        if (!answer.ok) {
          outcome.retried++
          answer = await send(balancer, request, `${request.session}-${request.index}-1`)
        }
        if (!answer.ok) outcome.lost++
        else {
          outcome.latencies.push(answer.ms)
          if (answer.report.startsWith("compacted;")) outcome.compactedHeaders++
        }
        progress(++done)
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane))
  return outcome
}

/** Rows of one query on a database, the client opened and closed around it. */
const query = <A extends object>(
  client: Layer.Layer<SqlClient.SqlClient, unknown>,
  statement: string
): Promise<ReadonlyArray<A>> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<A>(statement)).pipe(
      Effect.provide(Layer.orDie(client)),
      Effect.provide(Reactivity.layer),
      Effect.orDie
    )
  )

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? Number.NaN
}

// --- the run ------------------------------------------------------------------------------

const main = async () => {
  if (!hasTranscripts()) return console.log(`fleet-proxy: skipped, no recorded runs in ${transcriptsDirectory}`)
  const available = PostgresCluster.availability()
  if (!available.available) return console.log(`fleet-proxy: skipped: ${available.reason}`)
  const work = plan()
  const total = work.length * requestsPerSession
  const cluster = await PostgresCluster.start()
  const folders: Array<string> = []
  const folder = () => {
    const dir = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-fleet-proxy-"))
    folders.push(dir)
    return dir
  }
  const children: Array<ChildProcess> = []
  const started = Date.now()
  try {
    // The baseline: one worker on its folder's SQLite files.
    const upstreamOne = await startUpstream()
    const alone = await startWorker([
      "--upstream",
      upstreamOne.url,
      "--port",
      "0",
      "--window",
      String(window),
      "--recall",
      "--dir",
      folder()
    ])
    children.push(alone.child)
    const aloneDir = folders.at(-1)!
    const aloneSampler = setInterval(() => (alone.peakKb = Math.max(alone.peakKb, residentKb(alone.child.pid))), 100)
    const balancerOne = await startBalancer([alone])
    const one = await replay(balancerOne.url, work, () => {})
    clearInterval(aloneSampler)
    const aloneCompactions = Number(
      (await query<{ n: unknown }>(
        SqliteClient.layer({ filename: NodePath.join(aloneDir, "state.db") }),
        "SELECT COALESCE(SUM(compactions), 0) AS n FROM compaction_state"
      ))[0]!.n
    )
    await balancerOne.close()
    await upstreamOne.close()
    console.error(`fleet-proxy: one worker done in ${((Date.now() - started) / 1000).toFixed(0)} s`)

    // One worker on PostgreSQL: what the database costs, apart from the processes sharing the machine's cores.
    await query(PgClient.layer({ url: Redacted.make(cluster.url) }), "CREATE DATABASE single_worker")
    const singleUrl = new URL(cluster.url)
    singleUrl.pathname = "/single_worker"
    const upstreamPg = await startUpstream()
    const alonePg = await startWorker([
      "--upstream",
      upstreamPg.url,
      "--port",
      "0",
      "--window",
      String(window),
      "--recall",
      "--dir",
      folder(),
      "--database-url",
      singleUrl.toString()
    ])
    children.push(alonePg.child)
    const balancerPg = await startBalancer([alonePg])
    const onePg = await replay(balancerPg.url, work, () => {})
    alonePg.child.kill("SIGKILL")
    await balancerPg.close()
    await upstreamPg.close()

    // The fleet: 4 workers on one database.
    const upstream = await startUpstream()
    const args = (
      dir: string
    ) => [
      "--upstream",
      upstream.url,
      "--port",
      "0",
      "--window",
      String(window),
      "--recall",
      "--dir",
      dir,
      "--database-url",
      cluster.url
    ]
    const workers: Array<Worker | undefined> = []
    // The first starts alone (it migrates the new database), the rest at once.
    workers.push(await startWorker(args(folder())))
    workers.push(...await Promise.all([1, 2, 3].map(() => startWorker(args(folder())))))
    for (const worker of workers) children.push(worker!.child)
    const peaks = workers.map(() => 0)
    const sampler = setInterval(
      () => workers.forEach((worker, i) => (peaks[i] = Math.max(peaks[i]!, residentKb(worker?.child.pid)))),
      100
    )
    const balancer = await startBalancer(workers)
    let killed: { at: number; downMs: number } | undefined
    let killing = false
    let restarting: Promise<void> | undefined
    const fleet = await replay(balancer.url, work, (done) => {
      if (killing || done < total * 0.4) return
      const victim = workers[1]
      if (victim === undefined || victim.inFlightStreams === 0) return
      killing = true
      const at = Date.now()
      victim.child.kill("SIGKILL")
      workers[1] = undefined
      restarting = startWorker(args(folder())).then((restarted) => {
        children.push(restarted.child)
        workers[1] = restarted
        killed = { at: done, downMs: Date.now() - at }
      }, (error) => console.error(`fleet-proxy: the restarted worker did not start: ${error}`))
    })
    await restarting
    clearInterval(sampler)
    const database = PgClient.layer({ url: Redacted.make(cluster.url) })
    const fleetCompactions = Number(
      (await query<{ n: unknown }>(database, "SELECT COALESCE(SUM(compactions), 0) AS n FROM compaction_state"))[0]!.n
    )
    const archived = (await query<{ messages: unknown; entries: unknown; bytes: unknown }>(
      database,
      "SELECT COUNT(*) AS messages, COUNT(DISTINCT session_id || ' ' || entry) AS entries, COALESCE(SUM(bytes), 0) AS bytes FROM transcript_archive"
    ))[0]!
    await balancer.close()
    await upstream.close()

    const twice = [...upstream.stats.attempts.values()].filter((count) => count > 1).length
    const ratio = (a: number, b: number) => (a / b).toFixed(2)
    const result = {
      requests: total,
      sessions: work.length,
      lost: fleet.lost,
      answeredTwice: twice,
      clientRetries: fleet.retried,
      compactions: {
        fleet: fleetCompactions,
        oneWorker: aloneCompactions,
        equal: fleetCompactions === aloneCompactions
      },
      recall: {
        calls: upstream.stats.recallCalls,
        answered: upstream.stats.recallAnswered,
        oneWorkerAnswered: upstreamOne.stats.recallAnswered
      },
      latencyMs: {
        fleet: { p50: +percentile(fleet.latencies, 50).toFixed(1), p99: +percentile(fleet.latencies, 99).toFixed(1) },
        oneWorker: { p50: +percentile(one.latencies, 50).toFixed(1), p99: +percentile(one.latencies, 99).toFixed(1) },
        oneWorkerPg: {
          p50: +percentile(onePg.latencies, 50).toFixed(1),
          p99: +percentile(onePg.latencies, 99).toFixed(1)
        },
        onePgRatio: {
          p50: +ratio(percentile(onePg.latencies, 50), percentile(one.latencies, 50)),
          p99: +ratio(percentile(onePg.latencies, 99), percentile(one.latencies, 99))
        },
        ratio: {
          p50: +ratio(percentile(fleet.latencies, 50), percentile(one.latencies, 50)),
          p99: +ratio(percentile(fleet.latencies, 99), percentile(one.latencies, 99))
        }
      },
      peakRssMb: {
        fleetWorkers: peaks.map((kb) => +(kb / 1024).toFixed(0)),
        oneWorker: +(alone.peakKb / 1024).toFixed(0)
      },
      archive: {
        messages: Number(archived.messages),
        entries: Number(archived.entries),
        mb: +(Number(archived.bytes) / 1_048_576).toFixed(1)
      },
      killed: killed ?? "no stream was in flight on worker 1 after 40% of the requests",
      seconds: Math.round((Date.now() - started) / 1000)
    }
    console.log(
      `fleet-proxy: ${total} requests of ${work.length} sessions, 4 workers on PostgreSQL against 1 on SQLite, one worker SIGKILLed mid-stream and restarted`
    )
    console.log(
      `  lost ${result.lost}, answered twice ${result.answeredTwice} (client retries after the kill: ${result.clientRetries})`
    )
    console.log(
      `  compactions saved: fleet ${fleetCompactions}, one worker ${aloneCompactions} (${
        result.compactions.equal ? "equal" : "NOT EQUAL"
      })`
    )
    console.log(
      `  recall calls answered: ${upstream.stats.recallAnswered}/${upstream.stats.recallCalls} (one worker: ${upstreamOne.stats.recallAnswered}/${upstreamOne.stats.recallCalls})`
    )
    console.log(
      `  latency per request: p50 ${result.latencyMs.fleet.p50} ms vs ${result.latencyMs.oneWorker.p50} ms (×${result.latencyMs.ratio.p50}), p99 ${result.latencyMs.fleet.p99} ms vs ${result.latencyMs.oneWorker.p99} ms (×${result.latencyMs.ratio.p99})`
    )
    console.log(
      `  one worker on PostgreSQL against one on SQLite: p50 ×${result.latencyMs.onePgRatio.p50}, p99 ×${result.latencyMs.onePgRatio.p99} (lost ${onePg.lost}, compacted headers ${onePg.compactedHeaders} vs ${one.compactedHeaders})`
    )
    console.log(
      `  peak RSS per worker: ${
        result.peakRssMb.fleetWorkers.join(", ")
      } MB (one worker alone: ${result.peakRssMb.oneWorker} MB)`
    )
    console.log(
      `  archive in the database: ${result.archive.messages} messages in ${result.archive.entries} entries, ${result.archive.mb} MB`
    )
    console.log(JSON.stringify(result))
  } finally {
    for (const child of children) child.kill("SIGKILL")
    await cluster.stop()
    for (const dir of folders) Fs.rmSync(dir, { recursive: true, force: true })
  }
}

await main()
