// An application of the packed package (test/package/Pack.test.ts): `node app.mjs <face>` runs every
// check of checks/ through one face's entries and prints what each gave as one JSON object. The face
// is `effect4` (context-compressor/effect4, /effect4/<subpath>) or `effect3` (context-compressor,
// /<subpath>): a check loads the package with `load(subpath)` only, so the same check runs through
// either face with only the import paths changed. A check is a module of checks/ exporting
// `run(load)` (its answer, as JSON), `expected` (what the test holds that answer to) and, when it
// runs on one face only, `faces` (`["effect4"]`); adding one is adding its file. The app prints
// `{ node, effect, checks: { <file's name>: { result } | { error } } }`, or, when the face's root
// entry refuses to load, `{ node, effect, refused, lines }` (the refusal's first line, its count).
import { readdirSync } from "node:fs"
import { createRequire } from "node:module"

const face = process.argv[2]
const entry = (subpath) =>
  face === "effect4"
    ? (subpath === "" ? "context-compressor/effect4" : `context-compressor/effect4/${subpath}`)
    : (subpath === "" ? "context-compressor" : `context-compressor/${subpath}`)
const load = (subpath) => import(entry(subpath))

const about = {
  node: process.version,
  effect: createRequire(`${process.cwd()}/`)("effect/package.json").version
}
try {
  await load("")
} catch (error) {
  const lines = String(error.message).split("\n")
  process.stdout.write(JSON.stringify({ ...about, refused: lines[0], lines: lines.length }))
  process.exit(0)
}
const checks = {}
const files = readdirSync(new URL("./checks/", import.meta.url)).filter((name) => name.endsWith(".mjs")).sort()
for (const file of files) {
  const check = await import(`./checks/${file}`)
  if (check.faces !== undefined && !check.faces.includes(face)) continue
  try {
    checks[file.replace(/\.mjs$/, "")] = { result: await check.run(load) }
  } catch (error) {
    checks[file.replace(/\.mjs$/, "")] = { error: String(error?.stack ?? error) }
  }
}
process.stdout.write(JSON.stringify({ ...about, checks }))
