/**
 * The vendored o200k_base vocabulary (`dist/vendor/o200k_base.js`, built by
 * scripts/vendor-tokenizer.mjs) counts exactly as gpt-tokenizer does: built
 * here into a temporary file and compared, text by text, by a plain `node`
 * process (the test runner would transform the 3 MB module before importing
 * it): every message of the recorded runs (skipped where
 * /work/shared/transcripts is not), and generated text with special-token
 * markers, counted as the tokenizer layer counts them.
 */
import { assert, beforeAll, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { execFile } from "node:child_process"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { vendorTokenizer } from "../../../../scripts/vendor-tokenizer.mjs"
import * as Transcript from "../../../../src/face/models/Transcript.js"
import * as OpenAi from "../../../openai.js"

const repo = fileURLToPath(new URL("../../../../", import.meta.url))

/** Counts each text with both encodings in a plain node process: `[vendored, original]` per text. */
const compare = (
  vendoredFile: string,
  texts: ReadonlyArray<string>
): Promise<ReadonlyArray<readonly [number, number]>> =>
  new Promise((resolve, reject) => {
    const script = `
      import * as Original from "gpt-tokenizer/encoding/o200k_base"
      const vendored = await import(${JSON.stringify(pathToFileURL(vendoredFile).href)})
      const plainText = { disallowedSpecial: new Set() }
      let input = ""
      for await (const chunk of process.stdin) input += chunk
      const texts = JSON.parse(input)
      process.stdout.write(JSON.stringify(texts.map((text) => [vendored.countTokens(text, plainText), Original.countTokens(text, plainText)])))
    `
    const child = execFile(process.execPath, ["--input-type=module", "-e", script], {
      cwd: repo,
      maxBuffer: 64 * 1024 * 1024
    }, (error, stdout, stderr) =>
      error === null
        ? resolve(JSON.parse(stdout) as ReadonlyArray<readonly [number, number]>)
        : reject(new Error(`${error.message}: ${stderr}`)))
    child.stdin!.end(JSON.stringify(texts))
  })

describe("the vendored o200k_base vocabulary", () => {
  let file = ""
  beforeAll(async () => {
    const directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-vendor-"))
    file = NodePath.join(directory, "o200k_base.js")
    await vendorTokenizer(file)
    return () => Fs.rmSync(directory, { recursive: true, force: true })
  }, 60_000)

  it.skipIf(!OpenAi.hasTranscripts())("counts every message of the recorded runs as gpt-tokenizer does", async () => {
    const texts: Array<string> = []
    for (const name of Fs.readdirSync(OpenAi.transcriptsDirectory).filter((file) => file.endsWith(".json")).sort()) {
      const recorded = JSON.parse(
        Fs.readFileSync(NodePath.join(OpenAi.transcriptsDirectory, name), "utf8")
      ) as ReadonlyArray<unknown>
      for (const message of OpenAi.fromOpenAI(recorded)) texts.push(Transcript.text(message))
    }
    const counts = await compare(file, texts)
    assert.strictEqual(counts.length, texts.length)
    assert.isAbove(texts.length, 100)
    counts.forEach(([vendored, original], index) => assert.strictEqual(vendored, original, `message ${index}`))
    assert.isAbove(counts.reduce((sum, [count]) => sum + count, 0), 10_000)
  })

  it("counts generated text, special-token markers included, as gpt-tokenizer does", async () => {
    const samples = fc.sample(
      fc.tuple(fc.string({ unit: "grapheme", maxLength: 300 }), fc.constantFrom("", "<|endoftext|>", "<|im_start|>"))
        .map(([text, marker]) => `${text}${marker}${text}`),
      { numRuns: 300, seed: 25 }
    )
    const counts = await compare(file, samples)
    counts.forEach(([vendored, original], index) =>
      assert.strictEqual(vendored, original, JSON.stringify(samples[index]))
    )
  })
})
