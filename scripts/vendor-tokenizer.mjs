/**
 * Vendors the one vocabulary the package uses: `gpt-tokenizer`'s o200k_base
 * encoding (its byte-pair ranks and the encoder that reads them), bundled by
 * esbuild into one ES module, `dist/vendor/o200k_base.js`, which
 * `src/face/layers/TokenizerBpe.ts` imports as `#o200k_base` (the package's `imports`).
 * `gpt-tokenizer` itself is then a development dependency: installed, it is
 * 30 MB of every encoding in three module formats; vendored, one vocabulary.
 * The counts are the same code's (test/src/face/layers/TokenizerVendored.test.ts holds
 * them equal on the recorded runs).
 *
 * Run by `npm run build` (through bundle-cli.mjs); `vendorTokenizer(outfile)`
 * is what the test builds into a temporary file.
 */
import * as esbuild from "esbuild"
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))

/** The licence notice of the vendored code, as its MIT licence asks. */
const notice = () => {
  const require = createRequire(join(root, "package.json"))
  const manifest = require.resolve("gpt-tokenizer/package.json")
  const { version } = JSON.parse(readFileSync(manifest, "utf8"))
  const licence = readFileSync(join(dirname(manifest), "LICENSE"), "utf8").trim()
  return `/*! gpt-tokenizer@${version} (o200k_base only), vendored by context-compressor.\n${licence}\n*/`
}

/** Bundles the o200k_base encoding into `outfile`. */
export const vendorTokenizer = async (outfile) => {
  await esbuild.build({
    stdin: { contents: `export { countTokens, encode, decode } from "gpt-tokenizer/encoding/o200k_base"\nexport { O200K_TOKEN_SPLIT_REGEX } from "gpt-tokenizer/encodingParams/constants"`, resolveDir: root, loader: "js" },
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "node20",
    legalComments: "none",
    banner: { js: notice() },
    logLevel: "warning"
  })
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await vendorTokenizer(join(root, "dist/vendor/o200k_base.js"))
