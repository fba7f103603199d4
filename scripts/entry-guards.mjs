/**
 * Writes the Effect entry points' guards, `dist/entry/<entry>.js`, which the
 * package's `exports` name for `.`, `./adapters`, `./effect-ai`, `./http`,
 * `./rules`, `./services` and `./layers`. Those entry points are built on
 * Effect 3 and take Effect from the application (optional peers: an
 * application that only uses the Promise API, the AI SDK helpers or the
 * program needs none). A guard checks, before it loads its module, that
 * effect 3 is installed, and turns a missing peer into one line naming what
 * to install, instead of a failure deep in Effect's files (effect 4 has no
 * `effect/Either`). It loads the module with `import()` and exports its names,
 * read here from the built module, so that nothing is linked before the check.
 * An entry imported beside the other Effect names the entry to import instead
 * (`context-compressor/layers` on Effect 4: `context-compressor/effect4/layers`).
 * A refusal is one line and carries no stack: uncaught, node prints the line
 * (in brackets, after its own frame) and none of the guard's frames.
 *
 * Run by `npm run build` (through bundle-cli.mjs), after tsc.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** Each guarded Effect 3 entry point: its name in `exports`, its guard's file, and the module it loads. */
export const entries = [
  { entry: "context-compressor", file: "index", module: "../src/face/index.js" },
  { entry: "context-compressor/adapters", file: "adapters", module: "../src/face/adapters/index.js" },
  { entry: "context-compressor/effect-ai", file: "effect-ai", module: "../src/apps/effect-ai/index.js" },
  { entry: "context-compressor/http", file: "http", module: "../src/apps/http/index.js" },
  { entry: "context-compressor/rules", file: "rules", module: "../src/face/rules/index.js" },
  { entry: "context-compressor/services", file: "services", module: "../src/face/services/index.js" },
  { entry: "context-compressor/layers", file: "layers", module: "../src/face/layers/index.js" }
]

/**
 * The Effect 4 entry points (docs/effect4.md), each the Effect 3 entry's subpath under `src/effect4/`:
 * `context-compressor/effect4/<subpath>`, guarded by `dist/entry/effect4-<subpath>.js`, loading
 * `dist/effect4/src/effect4/<subpath>/index.js` (the Effect 4 build's folder), and refusing Effect 3 by naming the Effect 3 entry. A new one
 * (services, layers, adapters) is one more subpath here and its `exports` in package.json.
 */
export const effect4Subpaths = ["", "rules", "services", "layers", "adapters", "effect-ai", "http"]

export const effect4Entries = effect4Subpaths.map((subpath) => ({
  entry: subpath === "" ? "context-compressor/effect4" : `context-compressor/effect4/${subpath}`,
  file: subpath === "" ? "effect4" : `effect4-${subpath}`,
  module: subpath === "" ? "../effect4/src/effect4/index.js" : `../effect4/src/effect4/${subpath}/index.js`,
  instead: subpath === "" ? "context-compressor" : `context-compressor/${subpath}`
}))

/**
 * The names a built module of the Effect 4 face exports, read from its text: it cannot be imported
 * here, where `effect` is the package's Effect 3. Its index modules export namespaces
 * (`export * as X`), constants and lists of names, or re-export another index (`export * from`),
 * whose names are read the same way.
 */
const exportedNames = (path) => {
  const text = readFileSync(path, "utf8")
  return [
    ...Array.from(text.matchAll(/^export \* as (\w+) from/gm), (m) => m[1]),
    ...Array.from(text.matchAll(/^export (?:const|function|class) (\w+)/gm), (m) => m[1]),
    ...Array.from(text.matchAll(/^export \{([^}]*)\}/gm), (m) =>
      m[1].split(",").map((name) => name.replace(/\/\*[\s\S]*?\*\//g, "").trim().split(/\s+as\s+/).pop()).filter(Boolean)
    ).flat(),
    ...Array.from(text.matchAll(/^export \* from "([^"]+)"/gm), (m) => exportedNames(join(dirname(path), m[1]))).flat()
  ]
}

const guard = (peers) => `// Checks the Effect the application has before an Effect entry point loads (see scripts/entry-guards.mjs).
import { createRequire } from "node:module"

const require = createRequire(import.meta.url)
const peers = ${JSON.stringify(peers)}
const others = "context-compressor/promise, context-compressor/ai-sdk and the program carry their own Effect and need none"

/** A refusal: one line, its stack only that line (no frame of the guard's), its code not enumerable, so that node prints nothing else of it. */
const refuse = (message, code) => {
  const error = new Error(message)
  error.stack = \`Error: \${message}\`
  if (code !== undefined) Object.defineProperty(error, "code", { value: code, writable: true, configurable: true })
  return error
}

/** The package a module-not-found error names, when it names one (not a file of this package). */
const missingPackageOf = (error) => {
  if (error?.code !== "ERR_MODULE_NOT_FOUND" && error?.code !== "MODULE_NOT_FOUND") return undefined
  const named = /Cannot find (?:package|module) '([^']+)'/.exec(String(error.message))?.[1]
  if (named === undefined || named.startsWith(".") || named.startsWith("/") || named.startsWith("file:")) return undefined
  const parts = named.split("/")
  return named.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]
}

/** Loads an Effect 4 entry point once effect 4 is found; on Effect 3, names the Effect 3 entry to import. */
export const load4 = async (entry, instead, importModule) => {
  let version
  try {
    version = require("effect/package.json").version
  } catch {
    throw refuse(\`\${entry} needs effect 4, which is not installed: npm install effect@4 (on Effect 3, import \${instead})\`, "ERR_MODULE_NOT_FOUND")
  }
  if (!String(version).startsWith("4.")) {
    throw refuse(\`\${entry} needs effect 4, and effect \${version} is installed: on Effect 3, import \${instead} instead\`)
  }
  return importModule()
}

/** Loads an Effect 3 entry point once effect 3 is found; on Effect 4, names its Effect 4 entry (\`effect4\`) when it has one. */
export const load = async (entry, effect4, importModule) => {
  let version
  try {
    version = require("effect/package.json").version
  } catch {
    throw refuse(\`\${entry} needs effect 3, which is not installed: npm install effect@"\${peers.effect}" (\${others})\`, "ERR_MODULE_NOT_FOUND")
  }
  if (!String(version).startsWith("3.")) {
    throw refuse(effect4 === undefined
      ? \`\${entry} needs effect 3, and effect \${version} is installed: it has no Effect 4 entry yet (docs/effect4.md); \${others}\`
      : \`\${entry} needs effect 3, and effect \${version} is installed: on Effect 4, import \${effect4} instead (\${others})\`)
  }
  try {
    return await importModule()
  } catch (error) {
    const missing = missingPackageOf(error)
    if (missing === undefined) throw error
    const range = peers[missing]
    throw refuse(\`\${entry} needs the package \${missing}, which is not installed: npm install \${range === undefined ? missing : \`\${missing}@"\${range}"\`}\`, error.code)
  }
}
`

/** Writes the guards, reading each module's names from the built module. */
export const writeGuards = async () => {
  const manifest = JSON.parse(readFileSync(`${root}package.json`, "utf8"))
  const directory = `${root}dist/entry`
  rmSync(directory, { recursive: true, force: true })
  mkdirSync(directory, { recursive: true })
  // The range to install: the Effect 3 line of each (effect's peer range also admits an app on Effect 4).
  const ranges = Object.fromEntries(Object.entries(manifest.peerDependencies).map(([name, range]) => [name, range.split("||")[0].trim()]))
  writeFileSync(`${directory}/guard.js`, guard(ranges))
  for (const { entry, file, module } of entries) {
    const names = Object.keys(await import(pathToFileURL(`${directory}/${module}`).href))
    const effect4 = effect4Entries.find(({ instead }) => instead === entry)?.entry
    writeFileSync(
      `${directory}/${file}.js`,
      `// ${entry}: the module, loaded once effect 3 is found (see guard.js).\n` +
        `import { load as __load } from "./guard.js"\n` +
        `const __module = await __load(${JSON.stringify(entry)}, ${JSON.stringify(effect4)}, () => import(${JSON.stringify(module)}))\n` +
        `export const { ${names.join(", ")} } = __module\n`
    )
  }
  for (const { entry, file, instead, module } of effect4Entries) {
    const names = exportedNames(`${directory}/${module}`)
    writeFileSync(
      `${directory}/${file}.js`,
      `// ${entry}: the module, loaded once effect 4 is found (see guard.js).\n` +
        `import { load4 as __load } from "./guard.js"\n` +
        `const __module = await __load(${JSON.stringify(entry)}, ${JSON.stringify(instead)}, () => import(${JSON.stringify(module)}))\n` +
        `export const { ${names.join(", ")} } = __module\n`
    )
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await writeGuards()
