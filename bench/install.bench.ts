/**
 * Install-size benchmark: what `npm install context-compressor` puts on a
 * Promise-API user's disk, against the install of the same package with what
 * it required until issue 25 (effect and the seven @effect packages it took
 * as peers, better-sqlite3 and gpt-tokenizer as dependencies), measured in
 * the same run from the same tarball.
 *
 * The package is packed from the built `dist/` (`--no-build` uses the one in
 * place) and installed with `npm install --ignore-scripts --prefer-offline`
 * into fresh applications: one with nothing else (a Promise-API or AI SDK
 * user: the package, its one dependency smol-toml), one with the old set at
 * the versions this repository pins. The figures are the bytes of the files
 * under `node_modules` (as `du -s --apparent-size` counts them), the space
 * they take on disk (their blocks, as `du -s` counts them: more, a small file
 * taking a whole block) and the number of packages; the ratio is the
 * Promise-API user's files to the old install's. With `--built`, the old set
 * is installed a second time with its install scripts, as the registry install
 * issue 25 measured (152 MB, 78 packages): better-sqlite3's native module is
 * then downloaded or, where no prebuilt binary is reachable, compiled (a
 * minute or more), and its build folder counts.
 *
 * Run: `npm run -s bench` runs it; alone: `npx tsx bench/install.bench.ts`
 * (`--no-build` to use the built `dist/` in place, `--built` for the old set's
 * install with its scripts).
 */
import { spawnSync } from "node:child_process"
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { printTable } from "./timing.js"

const root = fileURLToPath(new URL("..", import.meta.url))
const argv = process.argv.slice(2)

const npm = (args: ReadonlyArray<string>, cwd: string): string => {
  const ran = spawnSync("npm", args, { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 })
  if (ran.status !== 0) {
    process.stderr.write(`npm ${args.join(" ")} failed: ${ran.stderr}\n`)
    process.exit(1)
  }
  return ran.stdout
}

if (!argv.includes("--no-build")) {
  process.stderr.write("building dist/ (npm run build)…\n")
  npm(["run", "-s", "build"], root)
}

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  readonly devDependencies: Record<string, string>
}
/** What the package required until issue 25, at the versions this repository pins. */
const before = [
  "effect",
  "@effect/platform",
  "@effect/platform-node",
  "@effect/experimental",
  "@effect/sql",
  "@effect/sql-sqlite-node",
  "@effect/cli",
  "better-sqlite3",
  "gpt-tokenizer"
].map((name) => `${name}@${manifest.devDependencies[name]}`)

/** Bytes of the files under a folder, the bytes of their blocks on disk, and the packages (folders under node_modules). */
const measure = (directory: string): { bytes: number; disk: number; packages: number } => {
  let bytes = 0
  let disk = 0
  let packages = 0
  const walk = (path: string, inModules: boolean) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name)
      const info = lstatSync(full)
      if (info.isSymbolicLink()) continue
      disk += info.blocks * 512
      if (info.isDirectory()) {
        const isPackage = inModules && !name.startsWith("@") && !name.startsWith(".")
        if (isPackage) packages++
        walk(full, name === "node_modules" || (inModules && name.startsWith("@")))
      } else bytes += info.size
    }
  }
  walk(join(directory, "node_modules"), true)
  return { bytes, disk, packages }
}

const work = mkdtempSync(join(tmpdir(), "context-compressor-install-"))
try {
  const packed = JSON.parse(
    npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], root)
  ) as ReadonlyArray<{ readonly filename: string; readonly unpackedSize: number }>
  const tarball = join(work, packed[0]!.filename)
  const install = (name: string, extra: ReadonlyArray<string>, scripts = false) => {
    const app = join(work, name)
    mkdirSync(app)
    writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true }))
    npm([
      "install",
      ...(scripts ? [] : ["--ignore-scripts"]),
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--loglevel=error",
      tarball,
      ...extra
    ], app)
    return measure(app)
  }
  const promiseUser = install("promise-user", [])
  const old = install("before-issue-25", before)
  const built = argv.includes("--built") ? install("before-issue-25-built", before, true) : undefined
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
  console.log(
    `install size (npm install --ignore-scripts; the package itself unpacks to ${mb(packed[0]!.unpackedSize)})`
  )
  printTable(["install", "files", "on disk", "packages", "ratio"], [
    ...(built === undefined ? [] : [[
      "before issue 25, with install scripts (better-sqlite3 built)",
      mb(built.bytes),
      mb(built.disk),
      String(built.packages),
      `${(built.bytes / old.bytes).toFixed(2)}×`
    ]]),
    [
      "before issue 25: + effect, @effect/* peers, better-sqlite3, gpt-tokenizer",
      mb(old.bytes),
      mb(old.disk),
      String(old.packages),
      "1.00×"
    ],
    [
      "a Promise-API or AI SDK user: context-compressor alone",
      mb(promiseUser.bytes),
      mb(promiseUser.disk),
      String(promiseUser.packages),
      `${(promiseUser.bytes / old.bytes).toFixed(3)}×`
    ]
  ])
  console.log(
    `(files: du -s --apparent-size; on disk: du -s. Issue 25 measured the old install from the registry at 152 MB, 78 packages, better-sqlite3 built)`
  )
} finally {
  rmSync(work, { recursive: true, force: true })
}
