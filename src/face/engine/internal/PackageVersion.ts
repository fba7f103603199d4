/**
 * The package's version, read from its own `package.json` (through the
 * package's `./package.json` export, so the same line works from the sources
 * and from the built `dist/`): what `--version` prints and what
 * `/v1/openapi.json` says. A `package.json` that cannot be read or holds no
 * version gives `"0.0.0"`.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import { createRequire } from "node:module"

const PackageJson = Schema.Struct({ version: Schema.String })

const read = (): unknown => {
  try {
    return createRequire(import.meta.url)("context-compressor/package.json")
  } catch {
    return undefined
  }
}

/**
 * The `version` of `context-compressor/package.json`.
 *
 * @since 0.1.0
 * @category constants
 */
export const version: string = Compat.matchResult(Compat.decodeUnknownResult(PackageJson)(read()), {
  onFailure: () => "0.0.0",
  onSuccess: (json) => json.version
})
