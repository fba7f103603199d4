/**
 * A program that prints, as one JSON document on stdout, what the Effect 3 face's `Json` gives for
 * every example envelope, every shared fixture (`../shared/fixtures`, when present) and a few texts
 * of exact numbers: the text, `Json.stringify` of its `Json.parse` (compact and indented by 2), or
 * the parse's failure. The Effect 4 suite (`test-effect4/test/json.test.ts`) runs it, as a process
 * of its own on this package's Effect 3, and checks that `context-compressor/effect4`'s `Json` gives
 * the same.
 */
import * as Either from "effect/Either"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as Json from "../../src/face/models/Json.js"
import { sharedFixturesDirectory } from "../openai.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

const jsonFilesIn = (directory: string): ReadonlyArray<string> =>
  existsSync(directory)
    ? readdirSync(directory).filter((name) => name.endsWith(".json")).sort().map((name) => join(directory, name))
    : []

/** Texts whose numbers a double does not hold, and one that is not JSON. */
export const exactTexts: ReadonlyArray<string> = [
  "{\"id\":12345678901234567890,\"big\":1e400,\"long\":0.12345678901234567890123,\"zero\":-0,\"small\":1}",
  "[-12345678901234567890,[2e-400,{\"__proto__\":90071992547409931}]]",
  "{\"open\":"
]

const inputs = [
  ...[...jsonFilesIn(join(repository, "examples/envelopes")), ...jsonFilesIn(sharedFixturesDirectory)]
    .map((file) => ({ name: relative(repository, file), text: readFileSync(file, "utf8") })),
  ...exactTexts.map((text, k) => ({ name: `exact ${k}`, text }))
]

const cases = inputs.map(({ name, text }) => {
  const parsed = Json.parse(text)
  return Either.isRight(parsed)
    ? { name, text, compact: Json.stringify(parsed.right), indented: Json.stringify(parsed.right, 2) }
    : { name, text, failure: parsed.left.reason }
})

process.stdout.write(JSON.stringify(cases))
