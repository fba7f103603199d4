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
 * under `node_modules` (as `du --apparent-size` counts them) and the number
 * of packages; the ratio is the Promise-API user's to the old install's. The
 * issue measured 152 MB and 78 packages for the old install from the registry
 * (better-sqlite3's build included, which `--ignore-scripts` leaves out).
 *
 * Run: `npm run -s bench` runs it; alone: `npx tsx bench/install.bench.ts`.
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

/** Bytes of the files under a folder, and the packages (folders with a package.json under node_modules). */
const measure = (directory: string): { bytes: number; packages: number } => {
  let bytes = 0
  let packages = 0
  const walk = (path: string, inModules: boolean) => {
    for (const name of readdirSync(path)) {
      const full = join(path, name)
      const info = lstatSync(full)
      if (info.isSymbolicLink()) continue
      if (info.isDirectory()) {
        const isPackage = inModules && !name.startsWith("@") && !name.startsWith(".")
        if (isPackage) packages++
        walk(full, name === "node_modules" || (inModules && name.startsWith("@")))
      } else bytes += info.size
    }
  }
  walk(join(directory, "node_modules"), true)
  return { bytes, packages }
}

const work = mkdtempSync(join(tmpdir(), "context-compressor-install-"))
try {
  const packed = JSON.parse(
    npm(["pack", "--ignore-scripts", "--json", "--pack-destination", work], root)
  ) as ReadonlyArray<{ readonly filename: string; readonly unpackedSize: number }>
  const tarball = join(work, packed[0]!.filename)
  const install = (name: string, extra: ReadonlyArray<string>) => {
    const app = join(work, name)
    mkdirSync(app)
    writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true }))
    npm([
      "install",
      "--ignore-scripts",
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
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`
  console.log(
    `install size (npm install --ignore-scripts; the package itself unpacks to ${mb(packed[0]!.unpackedSize)})`
  )
  printTable(["install", "size", "packages", "ratio"], [
    [
      "before issue 25: + effect, @effect/* peers, better-sqlite3, gpt-tokenizer",
      mb(old.bytes),
      String(old.packages),
      "1.00×"
    ],
    [
      "a Promise-API or AI SDK user: context-compressor alone",
      mb(promiseUser.bytes),
      String(promiseUser.packages),
      `${(promiseUser.bytes / old.bytes).toFixed(3)}×`
    ]
  ])
  console.log(`(issue 25 measured the old install from the registry at 152 MB, 78 packages, better-sqlite3 built)`)
} finally {
  rmSync(work, { recursive: true, force: true })
}
