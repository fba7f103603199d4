/**
 * A program that prints, as one JSON document on stdout, the built-in policies as data (their
 * Schema encoding) and the Effect 3 face's reductions of every example envelope and every shared
 * fixture (`../shared/fixtures`, when present) at two caps. The Effect 4 suite
 * (`test-effect4/test/reduce.test.ts`) runs it, as a process of its own on this package's Effect
 * 3, and checks that the shared core on Effect 4 reduces the same inputs over the same policies to
 * the same bytes.
 */
import * as Schema from "effect/Schema"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import * as Reduce from "../../src/face/engine/Reduce.js"
import * as Policy from "../../src/face/models/Policy.js"
import { builtInPolicies } from "../../src/face/rules/index.js"
import { sharedFixturesDirectory } from "../openai.js"

const repository = fileURLToPath(new URL("../..", import.meta.url))

const jsonFilesIn = (directory: string): ReadonlyArray<string> =>
  existsSync(directory)
    ? readdirSync(directory).filter((name) => name.endsWith(".json")).sort().map((name) => join(directory, name))
    : []

const inputs = [
  ...jsonFilesIn(join(repository, "examples/envelopes")),
  ...jsonFilesIn(sharedFixturesDirectory)
]

const cases = inputs.flatMap((file) =>
  [Reduce.defaultCap, 2_000].map((cap) => {
    const input = readFileSync(file, "utf8")
    const reduction = Reduce.reduce(input, { policies: builtInPolicies, cap })
    return { file: relative(repository, file), cap, input, text: reduction.text, report: reduction.report }
  })
)

process.stdout.write(
  JSON.stringify({ policies: builtInPolicies.map((policy) => Schema.encodeSync(Policy.Policy)(policy)), cases })
)
