/**
 * The proxy's memory under load: the real `context-compressor proxy` (a
 * process of its own, production engine over a temporary folder) in front of
 * a fake upstream on 127.0.0.1, and 50 clients sending at once, each request a
 * new session of 150–371 messages of the example agent session (so sessions
 * accumulate, as a proxy in front of many agents sees them). Reports the
 * proxy's resident memory when idle (after one request) and its peak
 * (`VmHWM`) and final resident memory under load, as ratios to idle, with the
 * sessions and requests it served. Linux (`/proc`) only.
 *
 * Run: `npx tsx bench/proxy-load.bench.ts` (`--seconds 30` the time under load,
 * `--clients 50`).
 */
import { spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as FakeUpstream from "../test/support/FakeUpstream.js"
import { argValue } from "./generate.js"
import { formatCount, printTable } from "./timing.js"

const root = NodeUrl.fileURLToPath(new URL("..", import.meta.url))
const seconds = Number(argValue("--seconds") ?? "30") || 30
const clients = Number(argValue("--clients") ?? "50") || 50
const session: ReadonlyArray<unknown> = JSON.parse(
  Fs.readFileSync(NodePath.join(root, "examples/session/agent-session.json"), "utf8")
)

/** A line of /proc/PID/status in MiB (VmRSS, VmHWM). */
const statusMiB = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const line = Fs.readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`))
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? "NaN") / 1024
}

const main = async () => {
  if (!Fs.existsSync("/proc/self/status")) {
    console.log("proxy-load: skipped, /proc is needed to read the proxy's memory")
    return
  }
  const fake = await FakeUpstream.start()
  const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-proxy-load-"))
  const tsx = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href
  const child = spawn(process.execPath, [
    "--import",
    tsx,
    NodePath.join(root, "src/apps/cli/bin.ts"),
    "proxy",
    "--upstream",
    fake.url,
    "--port",
    "0",
    "--dir",
    directory,
    "--window",
    "32000"
  ], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"]
  })
  try {
    const base = await new Promise<string>((resolve, reject) => {
      let stderr = ""
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk
        const match = /^proxying (http:\/\/\S+) -> /m.exec(stderr)
        if (match !== null) resolve(match[1]!)
      })
      child.on("close", (code) => reject(new Error(`the proxy exited with ${code}: ${stderr}`)))
    })
    let sessions = 0
    let requests = 0
    let failures = 0
    const send = async (sessionId: string, length: number) => {
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer sk-bench", "x-session-id": sessionId },
        body: JSON.stringify({ model: "gpt-bench", messages: session.slice(0, length) })
      })
      await response.arrayBuffer()
      requests++
      if (response.status !== 200) failures++
    }
    await send("warm-up", 200)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const idle = statusMiB(child.pid!, "VmRSS")
    const deadline = Date.now() + seconds * 1_000
    const samples: Array<number> = []
    const sampler = setInterval(() => samples.push(statusMiB(child.pid!, "VmRSS")), 500)
    await Promise.all(Array.from({ length: clients }, async (_, client) => {
      for (let turn = 0; Date.now() < deadline; turn++) {
        sessions++
        await send(`client-${client}-session-${turn}`, 150 + ((client * 37 + turn * 53) % (session.length - 150)))
      }
    }))
    clearInterval(sampler)
    const peak = statusMiB(child.pid!, "VmHWM")
    const final = statusMiB(child.pid!, "VmRSS")
    console.log(
      `\nproxy-load: ${clients} clients for ${seconds} s against the real proxy (production engine, SQLite in a temporary folder), node ${process.version}`
    )
    console.log(
      "each request a new session of 150-371 messages; memory of the proxy's process (/proc), ratios to its idle resident memory\n"
    )
    printTable(
      ["measure", "MiB", "x idle"],
      [
        ["idle (after one request)", idle.toFixed(0), "1.00"],
        ["peak under load (VmHWM)", peak.toFixed(0), (peak / idle).toFixed(2)],
        [
          "median under load",
          (samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)] ?? NaN).toFixed(0),
          ((samples[Math.floor(samples.length / 2)] ?? NaN) / idle).toFixed(2)
        ],
        ["at the end", final.toFixed(0), (final / idle).toFixed(2)]
      ]
    )
    console.log(
      `\n${formatCount(sessions)} sessions, ${formatCount(requests)} requests (${
        formatCount(requests / seconds)
      }/s), ${failures} not 200`
    )
  } finally {
    child.kill("SIGINT")
    await fake.close()
    Fs.rmSync(directory, { recursive: true, force: true })
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
