/**
 * Which words and argument values name files: a path's shape, known
 * extensions, the argument keys that name files outright or may.
 *
 * @since 0.1.0
 */
import { walk } from "./ToolResultRead.js"

const knownExtension =
  /\.(?:py|pyi|ipynb|ts|tsx|mts|cts|js|jsx|mjs|cjs|json|jsonl|md|mdx|rst|txt|ya?ml|toml|ini|cfg|conf|env|sh|bash|zsh|fish|ps1|rs|go|java|kt|kts|scala|swift|c|h|cc|cpp|cxx|hpp|hh|cs|fs|rb|php|pl|lua|r|dart|ex|exs|erl|hs|ml|zig|nim|sql|graphql|proto|html?|css|scss|sass|less|vue|svelte|xml|csv|tsv|log|patch|diff|lock|gradle|tf|dockerfile|png|jpe?g|gif|svg|webp|pdf|zip|gz|tgz|tar|mp3|mp4|wav|parquet|db|sqlite|pkl|pt|bin|wasm)$/i

const pathCharacters = /^[\w.\-~+@%=/]+$/

/**
 * Whether a word looks like a file path: path characters only, and either a
 * directory part with a file extension at the end or a known file extension.
 * Directories, options, URLs and dotted identifiers (`django.db.models`) do not.
 *
 * @since 0.1.0
 * @category file paths
 */
export const looksLikeFilePath = (word: string): boolean => {
  if (word.length < 2 || word.length > 300 || word.startsWith("-") || word.endsWith("/") || word.includes("://")) {
    return false
  }
  if (!pathCharacters.test(word)) return false
  const slash = word.lastIndexOf("/")
  const base = word.slice(slash + 1)
  if (base === "" || base === "." || base === "..") return false
  if (slash === -1) {
    return knownExtension.test(base) ||
      /^(?:Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile)$/.test(base)
  }
  return /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(base) ||
    /^(?:Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile|README|LICENSE)$/.test(base)
}

/**
 * One name for one file as the working state keys it: a leading `./` and
 * inner `/./` dropped (`./pkg/mod.py` is git's `pkg/mod.py`). Nothing else is
 * resolved: `..`, absolute paths and symbolic links are as named.
 *
 * @since 0.1.0
 * @category file paths
 */
export const normalPath = (path: string): string => {
  let out = path
  while (out.startsWith("./") && out.length > 2) out = out.slice(2).replace(/^\/+/, "")
  while (out.includes("/./")) out = out.replaceAll("/./", "/")
  return out === "" ? path : out
}

/** Keys whose value names a file outright. */
const fileKeys: ReadonlySet<string> = new Set([
  "path",
  "file",
  "file_path",
  "filepath",
  "filePath",
  "filename",
  "file_name",
  "fileName",
  "target_file",
  "targetFile",
  "new_path",
  "newPath",
  "old_path",
  "source_path",
  "dest_path",
  "notebook_path"
])
/** Keys whose value may name a file, taken only when it looks like one. */
const looseFileKeys: ReadonlySet<string> = new Set([
  "target",
  "destination",
  "dest",
  "output",
  "output_path",
  "outputPath",
  "out",
  "to",
  "from",
  "source"
])
/** Keys holding lists of files. */
const fileListKeys: ReadonlySet<string> = new Set(["paths", "files", "file_paths", "filePaths", "filenames"])

export const isKeyedPath = (text: string): boolean =>
  text.length > 0 && text.length <= 500 && !/[\n\r\t]/.test(text) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) &&
  text.trim() === text

/** File paths named under file keys of parsed tool-call arguments. */
export const argumentPaths = (args: unknown): ReadonlyArray<string> => {
  const found: Array<string> = []
  walk(args, (key, node, parent) => {
    if (Array.isArray(parent)) {
      return
    }
    if (typeof node === "string") {
      if (fileKeys.has(key) && isKeyedPath(node)) found.push(node)
      else if (looseFileKeys.has(key) && looksLikeFilePath(node)) found.push(node)
    } else if (Array.isArray(node) && fileListKeys.has(key)) {
      for (const item of node) if (typeof item === "string" && isKeyedPath(item)) found.push(item)
    }
  })
  return found
}
