/**
 * A throwaway PostgreSQL server for the tests and the fleet bench: `initdb`
 * in a temporary directory (trust authentication, no fsync), the server on
 * 127.0.0.1 at a free port with its socket in that directory, stopped and
 * removed by `stop`. The binaries are looked up on PATH, then in
 * /usr/lib/postgresql/<version>/bin (where Debian's `postgresql` package puts
 * them). Since initdb and the server refuse to run as root, a root process
 * runs them as the `postgres` system user (which that package creates).
 */
import { execFileSync, spawn } from "node:child_process"
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"

/** A running server. */
export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, no password. */
  readonly url: string
  readonly port: number
  readonly directory: string
  readonly stop: () => Promise<void>
}

/** The directory holding `initdb` and `postgres`, or why there is none. */
export const findBinaries = (): { readonly bin: string } | { readonly missing: string } => {
  const candidates = [
    ...(process.env["PATH"] ?? "").split(delimiter).filter((dir) => dir !== ""),
    ...(existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
        .filter((version) => /^\d+$/.test(version))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`)
      : [])
  ]
  const bin = candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "postgres")))
  return bin === undefined
    ? {
      missing:
        "PostgreSQL's initdb and postgres are not on PATH nor in /usr/lib/postgresql/*/bin (Debian: apt-get install postgresql)"
    }
    : { bin }
}

/** The user and group to run the server as when this process is root, or why there is none. */
const serverUser = (): { readonly uid: number; readonly gid: number } | { readonly missing: string } | undefined => {
  if (process.getuid?.() !== 0) return undefined
  try {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    return { uid, gid }
  } catch {
    return {
      missing: "running as root, and there is no postgres user to run initdb and the server as (they refuse root)"
    }
  }
}

/** Whether a server can be started here, and if not why. */
export const availability = (): { readonly available: true } | {
  readonly available: false
  readonly reason: string
} => {
  const binaries = findBinaries()
  if ("missing" in binaries) return { available: false, reason: binaries.missing }
  const user = serverUser()
  if (user !== undefined && "missing" in user) return { available: false, reason: user.missing }
  return { available: true }
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(
        () => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port")))
      )
    })
  })

const run = (
  command: string,
  args: ReadonlyArray<string>,
  as: { readonly uid: number; readonly gid: number } | undefined
) =>
  new Promise<void>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"], ...as })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    child.once("error", reject)
    child.once(
      "exit",
      (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}: ${stderr.trim()}`)))
    )
  })

/**
 * Creates and starts a server; rejects with the reason when it cannot.
 * Settings trade durability for speed: a test server loses nothing it needs
 * on a crash.
 */
export const start = async (options: { readonly maxConnections?: number } = {}): Promise<Cluster> => {
  const binaries = findBinaries()
  if ("missing" in binaries) throw new Error(binaries.missing)
  const user = serverUser()
  if (user !== undefined && "missing" in user) throw new Error(user.missing)
  const directory = mkdtempSync(join(tmpdir(), "context-compressor-pg-"))
  const remove = () => rmSync(directory, { recursive: true, force: true })
  try {
    if (user !== undefined) chownSync(directory, user.uid, user.gid)
    const data = join(directory, "data")
    await run(join(binaries.bin, "initdb"), [
      "-D",
      data,
      "-A",
      "trust",
      "-U",
      "postgres",
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync"
    ], user)
    for (let attempt = 1;; attempt++) {
      const port = await freePort()
      const server = spawn(
        join(binaries.bin, "postgres"),
        [
          "-D",
          data,
          "-p",
          String(port),
          "-k",
          directory,
          "-c",
          "listen_addresses=127.0.0.1",
          "-c",
          `max_connections=${options.maxConnections ?? 300}`,
          "-c",
          "fsync=off",
          "-c",
          "synchronous_commit=off",
          "-c",
          "full_page_writes=off"
        ],
        { stdio: ["ignore", "ignore", "pipe"], ...user }
      )
      let log = ""
      const ready = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 30_000)
        server.stderr.setEncoding("utf8").on("data", (chunk: string) => {
          log += chunk
          if (log.includes("database system is ready to accept connections")) {
            clearTimeout(timer)
            resolve(true)
          }
        })
        server.once("exit", () => {
          clearTimeout(timer)
          resolve(false)
        })
      })
      if (ready) {
        const exited = new Promise<void>((
          resolve
        ) => (server.exitCode !== null ? resolve() : server.once("exit", () => resolve())))
        // A runner that ends without calling stop (a crashed worker pool) takes its server with it.
        const orphaned = () => server.kill("SIGKILL")
        process.once("exit", orphaned)
        return {
          url: `postgres://postgres@127.0.0.1:${port}/postgres`,
          port,
          directory,
          stop: async () => {
            // SIGINT: the fast shutdown (clients disconnected, no waiting for them).
            server.kill("SIGINT")
            // The wait's timer is cleared once the server is gone: left running, it held the test
            // runner's process 10 s past every run.
            let timer: ReturnType<typeof setTimeout> | undefined
            await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 10_000)))])
            clearTimeout(timer)
            if (server.exitCode === null) server.kill("SIGKILL")
            process.off("exit", orphaned)
            remove()
          }
        }
      }
      server.kill("SIGKILL")
      // Another process may have taken the port between the probe and the server's bind.
      if (attempt >= 3 || !log.includes("could not bind")) {
        throw new Error(`postgres did not start: ${log.trim().split("\n").slice(-3).join(" / ")}`)
      }
    }
  } catch (error) {
    remove()
    throw error
  }
}
