/**
 * Generates the API reference of `docs/api/` from the doc comments of `src/`
 * (the face and the apps but the program) with @effect/docgen (`npm run docs`).
 *
 * docgen reads one source folder, takes its settings from `package.json` and
 * `docgen.json` in its working directory, and insists on a `homepage` in
 * `package.json`. So it runs in a throwaway directory holding those two files,
 * a copy of `src/` and a link to the dependencies, and its pages are
 * copied here; the repository itself is not touched outside `docs/api/`. It
 * typechecks and runs the examples too (but not those on classes, such as the
 * service tags: `test/docExamples.test.ts` runs every one).
 *
 *     npm run docs
 *
 * @since 0.1.0
 */
import { spawnSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"

const outputDirectory = dirname(fileURLToPath(import.meta.url))
const repository = join(outputDirectory, "..", "..")
const documentedFolders = ["src"] as const
/**
 * What is not importable (the core, the face's internals and the compat modules, which each build resolves for
 * itself), the program, whose reference is `docs/cli.md`, and the Effect 4 entries, which re-export the same
 * modules under the same names.
 */
const undocumented = [
  "src/core",
  "src/face/compat",
  "src/apps/http/compat",
  "src/apps/effect-ai/compat",
  "src/face/models/internal",
  "src/face/engine/internal",
  "src/face/layers/internal",
  "src/face/adapters/internal",
  "src/apps/cli",
  "src/effect4"
] as const

const packageJson = JSON.parse(readFileSync(join(repository, "package.json"), "utf8")) as {
  readonly name: string
  readonly homepage?: string
}

/** Every file under `directory` whose name ends with `suffix`, depth first, sorted. */
const filesUnder = (directory: string, suffix: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const path = join(directory, entry.name)
      if (entry.isDirectory()) return filesUnder(path, suffix)
      return entry.name.endsWith(suffix) ? [path] : []
    })

/**
 * The package's entry points as the examples import them (`context-compressor`, `context-compressor/layers`, …),
 * each mapped to its source in the repository: tsconfig.json's `paths`, made absolute. docgen would rewrite an
 * example's `from "context-compressor/<path>"` to `from "../../src/<path>"`, as if every entry point were a folder
 * of `src/`, and none is. So docgen is given another name for the project (it uses
 * the name for nothing else this script keeps), leaves the imports as written, and tsc and tsx resolve them through
 * these paths, to the modules at their real paths, as the typecheck and the tests do.
 */
const entryPointPaths = (): Record<string, ReadonlyArray<string>> => {
  const tsconfig = JSON.parse(readFileSync(join(repository, "tsconfig.json"), "utf8")) as {
    readonly compilerOptions: { readonly paths: Record<string, ReadonlyArray<string>> }
  }
  return Object.fromEntries(
    Object.entries(tsconfig.compilerOptions.paths).map(([name, targets]) => [
      name,
      targets.map((target) => join(repository, target))
    ])
  )
}

const runDocgen = (): number => {
  const staging = mkdtempSync(join(tmpdir(), "context-compressor-docgen-"))
  try {
    writeFileSync(
      join(staging, "package.json"),
      JSON.stringify({
        // Not the package's name: see entryPointPaths.
        name: `${packageJson.name}-api-reference`,
        // ES modules, as the package's, so that an example may await at its top level.
        type: "module",
        homepage: packageJson.homepage ?? `https://www.npmjs.com/package/${packageJson.name}`
      })
    )
    writeFileSync(
      join(staging, "docgen.json"),
      JSON.stringify({
        srcDir: "modules",
        exclude: undocumented.map((folder) => `modules/${folder}/**`),
        outDir: "out",
        enforceVersion: true,
        parseCompilerOptions: join(repository, "tsconfig.json"),
        // The examples import the package by its names, which `paths` maps to the sources.
        examplesCompilerOptions: {
          target: "ES2022",
          lib: ["ES2023"],
          module: "ESNext",
          moduleResolution: "Bundler",
          strict: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: true,
          noEmit: true,
          types: ["node"],
          paths: entryPointPaths()
        }
      })
    )
    // One source folder holding `src/`, so that a page's path names its folder (`src/face/index.ts`).
    mkdirSync(join(staging, "modules"))
    // Copies, not links: docgen's glob does not descend into the subfolders of a linked folder.
    for (const folder of documentedFolders) {
      cpSync(join(repository, folder), join(staging, "modules", folder), { recursive: true })
    }
    symlinkSync(join(repository, "node_modules"), join(staging, "node_modules"), "dir")
    mkdirSync(join(staging, "out"))
    const binaries = join(repository, "node_modules", ".bin")
    const result = spawnSync(join(binaries, "docgen"), [], {
      cwd: staging,
      stdio: "inherit",
      env: { ...process.env, PATH: `${binaries}:${process.env["PATH"] ?? ""}` }
    })
    if (result.error !== undefined) throw result.error
    if (result.status === 0) {
      // The pages of modules that moved or went away must not stay behind.
      rmSync(join(outputDirectory, "modules"), { recursive: true, force: true })
      cpSync(join(staging, "out"), outputDirectory, { recursive: true })
    }
    return result.status ?? 1
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/**
 * docgen writes each page's front matter as a paragraph that starts with a
 * blank line; the prettier 3 it formats with then reads the opening `---` as a
 * thematic break (`***`). Put the front matter back at the top of the page.
 */
const repairFrontMatter = (page: string): string =>
  page.replace(/^\*\*\*\n\n(title: .*\n(?:.*: .*\n)*?)---\n/, "---\n$1---\n")

/** The sections of the index: an entry point of the package each, and the folder its modules live in. */
const entryPoints: ReadonlyArray<readonly [entryPoint: string, folder: string]> = [
  ["", "src/face"],
  ["/adapters", "src/face/adapters"],
  ["/rules", "src/face/rules"],
  ["/services", "src/face/services"],
  ["/layers", "src/face/layers"],
  ["/effect-ai", "src/apps/effect-ai"],
  ["/http", "src/apps/http"],
  ["/promise", "src/apps/promise"],
  ["/ai-sdk", "src/apps/ai-sdk"]
]

/** The index of the reference: one link per module page, under the entry point that exports it. */
const readme = (pages: ReadonlyArray<string>): string => {
  const lines = [
    `# ${packageJson.name} API reference`,
    "",
    "Generated from the doc comments by `npm run docs` (@effect/docgen, see `generate.ts`); do not edit by hand.",
    "Each section is an entry point of the package; the core (`src/core/`) and the face's `internal/` folders are not importable and not listed; the Effect 4 entries (`context-compressor/effect4/…`) export the same modules under the same names.",
    ""
  ]
  const paths = pages.map((page) => relative(join(outputDirectory, "modules"), page))
  for (const [entryPoint, folder] of entryPoints) {
    lines.push(`## \`${packageJson.name}${entryPoint}\` (${folder}/)`, "")
    for (const path of paths) {
      // A page belongs to the deepest listed folder that holds it.
      const owner = entryPoints
        .map(([, candidate]) => candidate)
        .filter((candidate) => path.startsWith(`${candidate}/`))
        .sort((a, b) => b.length - a.length)[0]
      if (owner === folder) lines.push(`- [${path.replace(/\.md$/, "")}](modules/${path})`)
    }
    lines.push("")
  }
  return lines.join("\n")
}

const status = runDocgen()
if (status !== 0) {
  process.exitCode = status
} else {
  const pages = filesUnder(join(outputDirectory, "modules"), ".ts.md")
  for (const page of pages) writeFileSync(page, repairFrontMatter(readFileSync(page, "utf8")))
  // The GitHub-pages scaffolding docgen adds around the pages: this reference is read in the repository.
  for (const scaffolding of ["_config.yml", "index.md", join("modules", "index.md")]) {
    rmSync(join(outputDirectory, scaffolding), { force: true })
  }
  writeFileSync(join(outputDirectory, "README.md"), readme(pages))
  console.log(`docs/api: ${pages.length} module pages`)
}
