/**
 * The working state's extraction (SPEC R2.8): what a span's tool calls and
 * results say about the files it wrote, the commands it ran, what failed and
 * which ids it holds. Pure and total; `WorkingState` wraps its fields in the
 * model's classes.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import type * as Schema from "effect/Schema"
import * as Boundary from "./Boundary.js"
import * as Clip from "./Clip.js"
import * as Cooperative from "./Cooperative.js"
import * as ShellLex from "./ShellLex.js"
import * as Envelope from "../Envelope.js"
import * as Json from "../Json.js"
import * as Reduce from "./Reduce.js"
import type * as Transcript from "../Transcript.js"
import type * as WorkingState from "./WorkingState.js"

/**
 * The fields of a working state, before the model's classes wrap them.
 *
 * @since 0.1.0
 * @category models
 */
export type Fields = Schema.Schema.Encoded<typeof WorkingState.WorkingState>

/**
 * @since 0.1.0
 * @category models
 */
export type CommandFields = Schema.Schema.Encoded<typeof WorkingState.Command>

/**
 * @since 0.1.0
 * @category models
 */
export type FailureFields = Schema.Schema.Encoded<typeof WorkingState.Failure>

/**
 * @since 0.1.0
 * @category models
 */
export type FileEditFields = Schema.Schema.Encoded<typeof WorkingState.FileEdit>

/**
 * @since 0.1.0
 * @category models
 */
export type StandingFields = Schema.Schema.Encoded<typeof WorkingState.Standing>

/**
 * How many recent commands the working state keeps.
 *
 * @since 0.1.0
 * @category constants
 */
export const recentCommandLimit = 20

/**
 * How many failures the working state keeps (the most recent).
 *
 * @since 0.1.0
 * @category constants
 */
export const failureLimit = 20

/**
 * How many entries a list of paths keeps (the most recent), so that the state
 * stays small enough to persist and render whatever the span.
 *
 * @since 0.1.0
 * @category constants
 */
export const pathLimit = 200

/**
 * How many protected ids the state keeps (the first seen).
 *
 * @since 0.1.0
 * @category constants
 */
export const protectedIdLimit = 2_000

/**
 * Whether nothing was extracted.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isEmpty = (state: Fields): boolean =>
  state.filesWritten.length === 0 && state.commands.length === 0 && state.artifacts.length === 0 &&
  state.toolsUsed.length === 0 && state.failures.length === 0 && state.unfinishedCalls.length === 0 &&
  state.protectedIds.length === 0 && state.filePaths.length === 0

/** Tool output past this many characters is only read at its head and tail. */
const scanChars = 8_000
/** Bounds of a walk over a parsed JSON value. */
const walkNodeLimit = 50_000
const walkDepthLimit = 64

/**
 * Parses text that looks like JSON (an object or an array); anything else,
 * and broken JSON, gives `undefined`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseJson = (text: string): Json.Json | undefined => {
  const start = text.trimStart().charCodeAt(0)
  if (start !== 123 && start !== 91) return undefined
  const parsed = Json.parse(text, { exactIntegers: false })
  return Either.isRight(parsed) ? parsed.right : undefined
}

/**
 * The agentic-workspace/v1 envelope a tool result holds, if any.
 *
 * @since 0.1.0
 * @category parsing
 */
export const envelopeOf = (content: string): Envelope.Envelope | undefined =>
  content.includes(Envelope.protocol) ? readToolResult(content).envelope : undefined

/**
 * A tool result as the working state reads it: its text, its parsed JSON and
 * its agentic-workspace/v1 envelope, the paths the envelope declares omitted
 * (`retention.omit_when_summarizing`) removed from all three (SPEC R1.2), so
 * that no declared omission reaches the working state or a summary made from it.
 *
 * @since 0.1.0
 * @category parsing
 */
export const readToolResult = (content: string): {
  readonly content: string
  readonly parsed: Json.Json | undefined
  readonly envelope: Envelope.Envelope | undefined
} => {
  const parsed = parseJson(content)
  if (parsed === undefined || !content.includes(Envelope.protocol) || !Envelope.isEnvelope(parsed)) return { content, parsed, envelope: undefined }
  const stripped = Reduce.withoutDeclaredOmissions(parsed)
  if (stripped === parsed) return { content, parsed, envelope: parsed }
  return { content: Json.stringify(stripped), parsed: stripped, envelope: stripped as Envelope.Envelope }
}

const scanWindow = (text: string): string =>
  text.length <= 2 * scanChars ? text : text.slice(0, scanChars) + "\n" + text.slice(text.length - scanChars)

const asString = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const asExitCode = (value: unknown): number | null => {
  if (typeof value === "number" && Number.isSafeInteger(value)) return value
  if (typeof value === "string" && /^-?\d{1,9}$/.test(value.trim())) return Number(value.trim())
  return null
}

/** Visits every node of a JSON value with its key, bounded in depth and count. */
const walk = (value: unknown, visit: (key: string, node: unknown, parent: unknown) => void): void => {
  const stack: Array<{ key: string; node: unknown; parent: unknown; depth: number }> = [{ key: "", node: value, parent: undefined, depth: 0 }]
  let visited = 0
  while (stack.length > 0 && visited < walkNodeLimit) {
    const { depth, key, node, parent } = stack.pop()!
    visited++
    visit(key, node, parent)
    if (typeof node !== "object" || node === null || depth >= walkDepthLimit) continue
    if (Array.isArray(node)) {
      for (let i = node.length - 1; i >= 0; i--) stack.push({ key: String(i), node: node[i], parent: node, depth: depth + 1 })
    } else {
      const keys = Object.keys(node)
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push({ key: keys[i]!, node: (node as Record<string, unknown>)[keys[i]!], parent: node, depth: depth + 1 })
      }
    }
  }
}

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
  if (word.length < 2 || word.length > 300 || word.startsWith("-") || word.endsWith("/") || word.includes("://")) return false
  if (!pathCharacters.test(word)) return false
  const slash = word.lastIndexOf("/")
  const base = word.slice(slash + 1)
  if (base === "" || base === "." || base === "..") return false
  if (slash === -1) return knownExtension.test(base) || /^(?:Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile)$/.test(base)
  return /\.[A-Za-z][A-Za-z0-9]{0,9}$/.test(base) || /^(?:Makefile|Dockerfile|Containerfile|Gemfile|Rakefile|Procfile|Justfile|README|LICENSE)$/.test(base)
}

/** Keys whose value names a file outright. */
const fileKeys = new Set([
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
const looseFileKeys = new Set(["target", "destination", "dest", "output", "output_path", "outputPath", "out", "to", "from", "source"])
/** Keys holding lists of files. */
const fileListKeys = new Set(["paths", "files", "file_paths", "filePaths", "filenames"])

const isKeyedPath = (text: string): boolean =>
  text.length > 0 && text.length <= 500 && !/[\n\r\t]/.test(text) && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text) && text.trim() === text

/** File paths named under file keys of parsed tool-call arguments. */
const argumentPaths = (args: unknown): ReadonlyArray<string> => {
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

const patchTool = /patch|diff|apply/i

/** Files named by patch text: `*** Add File:` / `*** Update File:` / `*** Move to:` and unified-diff `+++` lines. */
const patchPaths = (text: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  for (const match of text.matchAll(/^\*\*\* (?:Add File|Update File|Move to): (.+)$/gm)) found.push(match[1]!.trim())
  for (const match of text.matchAll(/^\+\+\+ (?:b\/)?([^\t\n]+)/gm)) {
    const path = match[1]!.trim()
    if (path !== "/dev/null") found.push(path)
  }
  return found.filter(isKeyedPath)
}


const sedInPlaceFiles = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  let inPlace = false
  let scriptGiven = false
  const positional: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--in-place" || arg.startsWith("--in-place=") || /^-[A-Za-z]*i/.test(arg) && !arg.startsWith("--")) {
      inPlace = true
      continue
    }
    if (arg === "-e" || arg === "--expression" || arg === "-f" || arg === "--file") {
      scriptGiven = true
      i++
      continue
    }
    if (arg.startsWith("--expression=") || arg.startsWith("--file=") || /^-[A-Za-z]*[ef]./.test(arg)) {
      scriptGiven = true
      continue
    }
    if (arg.startsWith("-") && arg !== "-") continue
    positional.push(arg)
  }
  if (!inPlace) return []
  return scriptGiven ? positional : positional.slice(1)
}

/** The sed script, which is not a path even when it has slashes. */
const sedScript = (args: ReadonlyArray<string>): string | undefined => {
  if (args.some((arg) => arg === "-e" || arg === "-f" || arg.startsWith("--expression") || arg.startsWith("--file"))) return undefined
  return args.find((arg) => !arg.startsWith("-"))
}

const isWritableTarget = (path: string): boolean =>
  path.length > 0 && path.length <= 500 && !path.startsWith("/dev/") && !path.startsWith("/proc/") && !path.startsWith("&") &&
  !path.startsWith("=") && !path.startsWith("-") && !/[$`\n]/.test(path)

/**
 * A file a command or tool wrote, and how.
 *
 * @since 0.1.0
 * @category models
 */
export interface Touch {
  readonly path: string
  readonly action: WorkingState.EditAction
  readonly via: string
}

const perlInPlaceFiles = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  let inPlace = false
  let scriptGiven = false
  const positional: Array<string> = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (/^-[A-Za-z]*i/.test(arg) && !arg.startsWith("--")) {
      inPlace = true
      if (/^-[A-Za-z]*e$/.test(arg)) {
        scriptGiven = true
        i++
      }
      continue
    }
    if (arg === "-e" || arg === "-E" || /^-[A-Za-z]*e$/.test(arg)) {
      scriptGiven = true
      i++
      continue
    }
    if (arg.startsWith("-")) continue
    positional.push(arg)
  }
  if (!inPlace) return []
  return scriptGiven ? positional : positional.slice(1)
}

const quotedPath = String.raw`[rbuRBU]?(['"])([^'"\n]{1,300})\1`
const pythonOpen = new RegExp(String.raw`\bopen\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*,\s*(?:mode\s*=\s*)?[rbuRBU]?(['"])([^'"]{1,5})\4`, "g")
const pythonPathWrite = new RegExp(String.raw`\bPath\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*\)\.write_(text|bytes)\(`, "g")
const pythonVariableWrite = /\b([A-Za-z_]\w*)\.write_(?:text|bytes)\(/g
const pythonAssignment = /^\s*([A-Za-z_]\w*)\s*=\s*(?:Path\(\s*)?[rbuRBU]?(['"])([^'"\n]{1,300})\2/gm

/**
 * The files a Python script opens for writing: `open("f", "w")` (also `a`,
 * `x`, `r+`, binary), `Path("f").write_text(…)`, and either of them through a
 * variable assigned a string literal in the script.
 *
 * @since 0.1.0
 * @category shell
 */
export const pythonWrites = (script: string): ReadonlyArray<{ readonly path: string; readonly whole: boolean }> => {
  const text = script.length > 100_000 ? script.slice(0, 100_000) : script
  const variables = new Map<string, string>()
  for (const match of text.matchAll(pythonAssignment)) variables.set(match[1]!, match[3]!)
  const found: Array<{ path: string; whole: boolean }> = []
  for (const match of text.matchAll(pythonOpen)) {
    const path = match[2] ?? variables.get(match[3] ?? "")
    const mode = match[5]!
    if (path !== undefined && /[wax+]/.test(mode)) found.push({ path, whole: /[wx]/.test(mode) && !mode.includes("+") })
  }
  for (const match of text.matchAll(pythonPathWrite)) {
    const path = match[2] ?? variables.get(match[3] ?? "")
    if (path !== undefined) found.push({ path, whole: true })
  }
  for (const match of text.matchAll(pythonVariableWrite)) {
    const path = variables.get(match[1]!)
    if (path !== undefined) found.push({ path, whole: true })
  }
  return found
}

const pythonName = /^python(?:\d+(?:\.\d+)?)?$/

const isPatchCommand = (name: string | undefined, args: ReadonlyArray<string>): string | undefined => {
  if (name === "patch") return "patch"
  if (name === "git" && (args[0] === "apply" || args[0] === "am")) return `git ${args[0]}`
  if (name === "apply_patch" || name === "applypatch") return "apply_patch"
  return undefined
}

/**
 * What a shell command line writes, and how: redirects (`>`, `>>`), `tee`,
 * `touch`, `cp`/`mv` targets, `sed -i`, `perl -pi`, Python scripts (`python -c`
 * and here-documents) that open files for writing, patches applied from
 * here-documents (`git apply`, `patch`, `apply_patch`), and `git checkout`/
 * `git restore` of paths. Patches applied from a file are read from the
 * command's output instead ({@link patchedInOutput}).
 *
 * @since 0.1.0
 * @category shell
 */
export const shellTouches = (
  command: string,
  scripts: Map<string, string> = new Map()
): { readonly written: ReadonlyArray<Touch>; readonly mentioned: ReadonlyArray<string> } => {
  const written: Array<Touch> = []
  const mentioned: Array<string> = []
  const commands = ShellLex.simpleCommands(ShellLex.tokenize(command))
  const add = (paths: ReadonlyArray<string>, action: WorkingState.EditAction, via: string): void => {
    for (const path of paths) if (isWritableTarget(path)) written.push({ path, action, via })
  }
  const patching = commands.some((simple) => {
    const words = ShellLex.commandWords(simple.words)
    return isPatchCommand(words[0]?.split("/").pop(), words.slice(1)) !== undefined
  })
  for (const simple of commands) {
    const appended = new Set(simple.appends)
    for (const target of simple.writes) add([target], appended.has(target) ? "edited" : "written", appended.has(target) ? "redirect >>" : "redirect >")
    const words = ShellLex.commandWords(simple.words)
    const name = words[0]?.split("/").pop()
    const args = words.slice(1)
    const operands = args.filter((arg) => !arg.startsWith("-"))
    if (name === "tee") add(operands, args.some((arg) => arg === "-a" || arg === "--append") ? "edited" : "written", "tee")
    if (name === "touch") add(operands, "written", "touch")
    if ((name === "cp" || name === "mv" || name === "install") && operands.length >= 2 && looksLikeFilePath(operands.at(-1)!)) {
      add([operands.at(-1)!], "written", name)
    }
    if (name === "sed" || name === "gsed") add(sedInPlaceFiles(args), "edited", "sed -i")
    if (name === "perl") add(perlInPlaceFiles(args), "edited", "perl -pi")
    // A script written from a here-document (`cat > fix.py <<EOF`) is remembered, to read what it writes when it runs.
    if ((name === "cat" || name === "tee") && simple.stdin.length > 0) {
      for (const target of [...simple.writes, ...(name === "tee" ? operands : [])]) {
        if (/\.py$/.test(target)) {
          scripts.delete(target)
          scripts.set(target, simple.stdin.join("\n"))
          if (scripts.size > 64) scripts.delete(scripts.keys().next().value!)
        }
      }
    }
    if (name !== undefined && pythonName.test(name)) {
      const flag = args.indexOf("-c")
      const file = args.find((arg) => !arg.startsWith("-"))
      const known = file === undefined || flag !== -1 || args.includes("-m") ? undefined : scripts.get(file)
      const sources = flag !== -1 && args[flag + 1] !== undefined
        ? [{ text: args[flag + 1]!, via: "python -c" }]
        : known !== undefined
        ? [{ text: known, via: `python ${file}` }]
        : simple.stdin.map((text) => ({ text, via: "python heredoc" }))
      for (const source of sources) for (const write of pythonWrites(source.text)) add([write.path], write.whole ? "written" : "edited", source.via)
    }
    if (name === "git" && (args[0] === "checkout" || args[0] === "restore")) {
      const dashes = args.indexOf("--")
      const paths = dashes !== -1 ? args.slice(dashes + 1) : args.slice(1).filter((arg) => !arg.startsWith("-") && looksLikeFilePath(arg))
      add(paths, "restored", `git ${args[0]}`)
    }
    const patch = isPatchCommand(name, args)
    if (patching) for (const body of simple.stdin) add(patchPaths(body), "patched", patch ?? "git apply")
    const script = name === "sed" || name === "gsed" ? sedScript(args) : undefined
    mentioned.push(...args.filter((arg) => arg !== script && looksLikeFilePath(arg)))
  }
  mentioned.push(...written.map((touch) => touch.path).filter(looksLikeFilePath))
  return { written, mentioned }
}

/**
 * What a shell command line touches: the files it writes ({@link shellTouches})
 * and the file paths it names.
 *
 * @since 0.1.0
 * @category shell
 */
export const shellFiles = (command: string): { readonly written: ReadonlyArray<string>; readonly mentioned: ReadonlyArray<string> } => {
  const touches = shellTouches(command)
  return { written: touches.written.map((touch) => touch.path), mentioned: touches.mentioned }
}

/**
 * The files the output of `git apply`/`patch` names as patched: `patching
 * file X`, `Applied patch X cleanly`, `Checking patch X...`.
 *
 * @since 0.1.0
 * @category shell
 */
export const patchedInOutput = (output: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const window = output.length > 32_000 ? output.slice(0, 32_000) : output
  for (const match of window.matchAll(/^(?:patching file|Applied patch|Checking patch) ['`"]?([^\s'`"]+?)['`"]?(?: cleanly\.?|\.\.\.)?\s*$/gm)) {
    if (isKeyedPath(match[1]!)) found.push(match[1]!)
  }
  return Array.from(new Set(found))
}

/** Whether a command line applies a patch from a file or standard input (its output then names the patched files). */
const appliesPatch = (command: string): string | undefined => {
  const match = /(?:^|[\s;&|(])(git\s+(?:apply|am)|patch)(?=\s|$)/.exec(command)
  return match === null ? undefined : match[1]!.replace(/\s+/, " ")
}

/** Commands whose exit 1 is an answer ("no match", "the files differ", "false"), not a failure. */
const exitOneAnswers = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack", "diff", "cmp", "test", "[", "[[", "false", "git"])

/** Whether the last command of a command line answers with exit 1 instead of failing (`grep` found nothing, `diff` found changes). */
const exitOneIsAnAnswer = (command: string): boolean => {
  const commands = ShellLex.simpleCommands(ShellLex.tokenize(command))
  const words = ShellLex.commandWords(commands[commands.length - 1]?.words ?? [])
  const name = words[0]?.split("/").pop() ?? ""
  if (name === "git") return words[1] === "diff" || words[1] === "grep"
  return exitOneAnswers.has(name)
}

const shellToolName = /(?:^|[_.\-])(?:bash|shell|sh|zsh|run|exec|execute|terminal|cmd|command|console)(?:$|[_.\-])/i

const shellCommandText = (name: string, args: unknown, raw: string): string | undefined => {
  if (!shellToolName.test(name)) return undefined
  if (args === undefined) {
    // Some runtimes send a shell tool's command as bare text instead of JSON.
    const text = raw.trim()
    return text === "" || text.startsWith("{") || text.startsWith("[") ? undefined : text
  }
  if (typeof args === "string") return args
  const command = Json.getOwn(args, "command") ?? Json.getOwn(args, "cmd") ?? Json.getOwn(args, "script")
  if (typeof command === "string") return command
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) {
    const parts = command as ReadonlyArray<string>
    // ["bash", "-lc", "script"]: the script is the command.
    const flag = parts.findIndex((part) => /^-[a-z]*c$/.test(part))
    return flag !== -1 && flag === parts.length - 2 ? parts[parts.length - 1]! : parts.join(" ")
  }
  return undefined
}

/** A command run through the protocol's `workspace_command`: the executable and its arguments. */
const executableText = (args: unknown): string | undefined => {
  const executable = asString(Json.getOwn(args, "executable"))
  if (executable === undefined) return undefined
  const rest = Json.getOwn(args, "args")
  const words = Array.isArray(rest) ? rest.filter((arg): arg is string => typeof arg === "string") : []
  return [executable, ...words].join(" ")
}

/**
 * The command line as the working state shows it: its first line, clipped;
 * for a multi-line command also its last line unless that only closes a
 * here-document (`cat > f <<EOF … EOF` then `python f` shows both ends).
 */
const commandLabel = (text: string): string => {
  const trimmed = text.trim()
  const newline = trimmed.indexOf("\n")
  const first = Clip.label(newline === -1 ? trimmed : trimmed.slice(0, newline).trimEnd(), 240)
  if (newline === -1) return first
  let lines = 1
  for (let i = newline; i !== -1 && lines < 100_000; i = trimmed.indexOf("\n", i + 1)) lines++
  const last = trimmed.slice(trimmed.lastIndexOf("\n") + 1).trim()
  const closesHeredoc = /^['"]?[A-Za-z_][A-Za-z0-9_]*['"]?$/.test(last)
  return closesHeredoc ? `${first} … (${lines} lines)` : `${first} … ${Clip.label(last, 160)} (${lines} lines)`
}

/**
 * The exit code a tool result reports: an envelope's `data.job.exitCode` (or
 * `data.exitCode`), `<returncode>N</returncode>`, `exit code N`, `Exit code: N`,
 * `exit status N`, or an `exit_code`/`returncode` JSON field.
 *
 * @since 0.1.0
 * @category tool results
 */
export const exitCodeOf = (content: string, envelope?: Envelope.Envelope): number | null => {
  if (envelope !== undefined) {
    const fromJob = asExitCode(Json.getPath(envelope, "data.job.exitCode"))
    if (fromJob !== null) return fromJob
    const direct = asExitCode(Json.getPath(envelope, "data.exitCode"))
    if (direct !== null) return direct
    return null
  }
  const window = scanWindow(content)
  const tagged = /<returncode>\s*(-?\d{1,9})\s*<\/returncode>/i.exec(window)
  if (tagged !== null) return Number(tagged[1])
  const spoken = /\b(?:exit(?:ed)?(?: with)?[ _-]?(?:code|status)|return(?:ed)?[ _-]?code)\s*[:=]?\s*(-?\d{1,9})\b/i.exec(window)
  if (spoken !== null) return Number(spoken[1])
  const field = /"(?:exit_?code|exitCode|returncode|return_code|status_code)"\s*:\s*(-?\d{1,9})\b/.exec(window)
  if (field !== null) return Number(field[1])
  return null
}

const wrapperLine = /^<\/?(?:returncode|output|stdout|stderr|error|result)>(?:-?\d+<\/returncode>)?$|^<returncode>.*<\/returncode>$/i

/** The first line of a tool result worth quoting: past wrapper tags and blank lines. */
const firstMeaningfulLine = (content: string): string => {
  const window = content.length > scanChars ? content.slice(0, scanChars) : content
  for (const line of window.split("\n")) {
    const trimmed = line.trim()
    if (trimmed !== "" && !wrapperLine.test(trimmed)) return Clip.label(trimmed, 240)
  }
  return ""
}

/** The exception line that ends a Python traceback, if the output holds one. */
const tracebackException = (content: string): string | undefined => {
  const window = scanWindow(content)
  const start = window.lastIndexOf("Traceback (most recent call last)")
  if (start === -1) return undefined
  const exception = window
    .slice(start)
    .split("\n")
    .slice(1)
    .find((line) => /^[A-Za-z_][\w.]*(?::\s.*|:)?\s*$/.test(line) && !line.startsWith("During handling"))
  return exception === undefined ? undefined : Clip.label(exception.trim(), 240)
}

const errorOpening = /^(?:Error\b|ERROR\b|error:|Traceback\b|Exception\b|fatal:|FATAL\b|panic:)/

const failureMessage = (content: string, envelope: Envelope.Envelope | undefined): string => {
  if (envelope !== undefined) {
    const error = Json.getPath(envelope, "data.error") ?? Json.getPath(envelope, "error")
    const stderr = asString(Json.getPath(envelope, "data.stderr")) ?? asString(Json.getPath(envelope, "data.job.stderr"))
    const fromStderr = stderr === undefined ? undefined : tracebackException(stderr) ?? firstMeaningfulLine(stderr)
    const message = asString(error) ?? asString(Json.getPath(error, "message")) ?? (fromStderr === "" ? undefined : fromStderr) ??
      envelope.summary ?? `${envelope.tool} ${envelope.action} failed`
    return Clip.label(message.split("\n")[0]!.trim(), 240)
  }
  return tracebackException(content) ?? firstMeaningfulLine(content)
}

const artifactKeys = new Set(["contentPath", "planPath", "reportPath", "outputPath", "artifactPath", "screenshotPath", "savedPath", "exportPath"])

const artifactPattern =
  /\b(?:wrote|written|saved|created|generated|exported|stored)\b[^\n]{0,48}?[\s:`'"(]((?:~|\.{1,2})?\/?[\w.\-+@]+(?:\/[\w.\-+@]+)*\.[A-Za-z][A-Za-z0-9]{0,9})(?![\w/])/gi

/** Paths a tool result says it wrote, created or saved, and the content and plan paths of an envelope. */
const resultArtifacts = (content: string, envelope: Envelope.Envelope | undefined): ReadonlyArray<string> => {
  const found: Array<string> = []
  if (envelope !== undefined) {
    walk(envelope, (key, node) => {
      if (artifactKeys.has(key) && typeof node === "string" && isKeyedPath(node)) found.push(node)
    })
    return found
  }
  for (const match of scanWindow(content).matchAll(artifactPattern)) {
    if (looksLikeFilePath(match[1]!)) found.push(match[1]!)
  }
  return found
}

/** The later run of the same command that exited 0, among the recent commands: the failure's fix (a failure not among them is older). */
const fixOf = (failure: FailureFields, commands: ReadonlyArray<CommandFields>, callPosition: ReadonlyMap<string, number>): string | null => {
  if (failure.command === null) return null
  const failedAt = callPosition.get(failure.toolCallId) ?? -1
  const fix = commands.find((command) =>
    command.command === failure.command && command.status === "exited" && command.exitCode === 0 && (callPosition.get(command.toolCallId) ?? -1) > failedAt
  )
  return fix?.toolCallId ?? null
}

const testCommand =
  /(?:^|[\s;&|(/])(?:pytest|py\.test|tox|nox|runtests\.py|manage\.py\s+test|-m\s+(?:pytest|unittest)|(?:npm|yarn|pnpm|bun)\s+(?:run\s+)?test|vitest|jest|mocha|go\s+test|cargo\s+test|mvn\s+(?:\S+\s+)?test|gradle\w*\s+test|rspec|phpunit|ctest|make\s+(?:test|check))\b/

/**
 * Whether a command line runs tests (pytest, unittest, Django's runtests,
 * tox, npm/yarn/pnpm test, vitest, jest, mocha, go test, cargo test, maven,
 * gradle, rspec, phpunit, ctest, make test/check).
 *
 * @since 0.1.0
 * @category tool results
 */
export const isTestCommand = (command: string): boolean => testCommand.test(command.length > 4_000 ? command.slice(0, 4_000) : command)

const failingTestPatterns: ReadonlyArray<RegExp> = [
  /^(?:FAILED|ERROR) (\S+::\S+)/gm,
  /^(?:FAIL|ERROR): (\w+ \([\w.]+\))/gm,
  /^\s*--- FAIL: (\S+)/gm,
  /^test (\S+) \.\.\. FAILED$/gm,
  /^\s*(?:×|✕|✗) (.+?)(?: \d+ms)?$/gm,
  /^(\S+::\S+) FAILED/gm
]

/**
 * The names of the tests a test run's output reports failing, in order, at
 * most 20: pytest (`FAILED a.py::t`), unittest (`FAIL: t (m.C)`), go
 * (`--- FAIL: T`), cargo (`test t ... FAILED`), jest/vitest (`✕ t`).
 *
 * @since 0.1.0
 * @category tool results
 */
export const failingTestNames = (output: string): ReadonlyArray<string> => {
  const window = scanWindow(output)
  const found = new Set<string>()
  for (const pattern of failingTestPatterns) {
    for (const match of window.matchAll(pattern)) {
      found.add(Clip.label(match[1]!.trim(), 200))
      if (found.size >= 20) return Array.from(found)
    }
  }
  return Array.from(found)
}

/** How an editor tool's call changed its files: the tool and its verb, and whether it wrote them whole. */
const editorEdit = (name: string, args: unknown): { readonly action: WorkingState.EditAction; readonly via: string } => {
  const verb = asString(Json.getOwn(args, "command")) ?? asString(Json.getOwn(args, "action")) ??
    asString(Json.getOwn(args, "mode")) ?? asString(Json.getOwn(args, "operation"))
  const word = verb !== undefined && /^[a-z_]+$/i.test(verb.trim()) ? verb.trim() : undefined
  const said = `${name} ${word ?? ""}`
  const action: WorkingState.EditAction = /patch|apply/i.test(said) ? "patched" : /create|write|overwrite|save|put/i.test(said) ? "written" : "edited"
  return { action, via: word === undefined ? name : `${name} ${word}` }
}

const readVerb = /^(?:view|read|show|list|ls|cat|get|open|search|find|grep|glob|status|diff|inspect|stat|head|tail|preview|describe|current|next)$/i
const writeVerb = /write|edit|create|patch|apply|replace|insert|append|save|update|modify|overwrite|rename|move|mkdir|touch|stage|commit|put/i

const isWriteCall = (name: string, args: unknown): boolean => {
  const verb = asString(Json.getOwn(args, "command")) ?? asString(Json.getOwn(args, "action")) ??
    asString(Json.getOwn(args, "mode")) ?? asString(Json.getOwn(args, "operation"))
  if (verb !== undefined && readVerb.test(verb.trim())) return false
  if (verb !== undefined && /^[a-z_]+$/i.test(verb.trim()) && writeVerb.test(verb)) return true
  return writeVerb.test(name)
}

/** An insertion-ordered set that keeps the most recent `limit` entries. */
class RecentSet {
  private readonly entries = new Map<string, true>()
  constructor(private readonly limit: number) {}
  add(value: string): void {
    this.entries.delete(value)
    this.entries.set(value, true)
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value!)
  }
  addFirst(value: string): void {
    if (!this.entries.has(value)) this.add(value)
  }
  values(): Array<string> {
    return Array.from(this.entries.keys())
  }
}

/**
 * The prefixed ids of a piece of tool text: read from the parsed JSON when it
 * is JSON (escapes such as `\n` would hide an id's start in the raw text),
 * else from the text; only {@link isLikelyId} ones.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfToolText = (text: string): ReadonlyArray<string> => idsOfParsed(text, parseJson(text))

/**
 * The prefixed ids of message text: those of `Envelope.idsInText` that are {@link isLikelyId}.
 *
 * @since 0.1.0
 * @category ids
 */
export const idsOfText = (text: string): ReadonlyArray<string> => Envelope.idsInText(text).filter(isLikelyId)

const idsOfParsed = (text: string, parsed: Json.Json | undefined): ReadonlyArray<string> => {
  if (!text.includes("_")) return []
  return (parsed === undefined ? Envelope.idsInText(text) : Envelope.ids(parsed)).filter(isLikelyId)
}

/**
 * Whether a prefixed word is an id rather than an identifier of code, prose or
 * a call's argument names: `run_from_argv`, `source_code`, `plan_id` and
 * `job_queue` are not ids; `tx_8f2c`, `approval_979a8972` and `plan_deadbeef`
 * are (a digit, a capital or a dash in the suffix, or six or more hex digits).
 *
 * @since 0.1.0
 * @category ids
 */
export const isLikelyId = (id: string): boolean => {
  const suffix = id.slice(id.indexOf("_") + 1)
  return /\d/.test(suffix) || /[A-Z-]/.test(suffix) || /^[0-9a-f]{6,}$/.test(suffix)
}

/**
 * Extracts the working state of a span. Pure and total: broken JSON
 * arguments, odd shapes and huge contents are read as far as they can be.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extract = (span: Transcript.Transcript): Fields => Cooperative.runSync(extractSteps(span))

/**
 * {@link extract} as steps that pause every few messages, for a caller that
 * lets the event loop run meanwhile (`Cooperative.run`).
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extractSteps(span: Transcript.Transcript): Cooperative.Steps<Fields> {
  const calls = new Map<string, { readonly name: string; readonly args: Json.Json | undefined; readonly raw: string }>()
  const results = new Map<string, { readonly content: string; readonly envelope: Envelope.Envelope | undefined }>()
  const resultsInOrder: Array<{ readonly message: Transcript.ToolResult; readonly content: string; readonly envelope: Envelope.Envelope | undefined }> = []
  const callOrder: Array<string> = []

  // The most recent ids win: in a long history the newest state is what the agent resumes from.
  const protectedIds = new RecentSet(protectedIdLimit)
  const addIds = (ids: ReadonlyArray<string>): void => {
    for (const id of ids) protectedIds.addFirst(id)
  }
  const filesWritten = new RecentSet(pathLimit)
  const filePaths = new RecentSet(pathLimit)
  const artifactCandidates: Array<string> = []
  const toolCounts = new Map<string, number>()
  const shellTexts = new Map<string, string>()
  // Scripts the span wrote from here-documents, by path: running one later writes what it opens.
  const scripts = new Map<string, string>()

  // Per file, its latest edit; insertion order is recency (an edit moves its file to the end).
  const edits = new Map<string, FileEditFields>()
  const changedSincePass = new Set<string>()
  const recordEdit = (path: string, action: WorkingState.EditAction, via: string, toolCallId: string): void => {
    const known = edits.get(path)
    edits.delete(path)
    edits.set(path, { path, action, via, toolCallId, times: (known?.times ?? 0) + 1 })
    if (edits.size > pathLimit) edits.delete(edits.keys().next().value!)
    filesWritten.add(path)
    changedSincePass.delete(path)
    changedSincePass.add(path)
  }
  let lastTestRun: { readonly id: string; readonly failing: ReadonlyArray<string> } | undefined
  let lastPassingRun: string | null = null

  let handled = 0
  for (const message of span) {
    if (++handled % Cooperative.itemsPerStep === 0) yield
    switch (message._tag) {
      case "System":
      case "User":
      case "Compacted":
        addIds(idsOfText(message.content))
        break
      case "Assistant": {
        addIds(idsOfText(message.content))
        for (const call of message.toolCalls) {
          const args = parseJson(call.arguments)
          addIds(idsOfParsed(call.arguments, args))
          calls.set(call.id, { name: call.name, args, raw: call.arguments })
          callOrder.push(call.id)
          toolCounts.set(call.name, (toolCounts.get(call.name) ?? 0) + 1)

          const keyed = args === undefined ? [] : argumentPaths(args)
          for (const path of keyed) filePaths.addFirst(path)
          const patchText: Array<string> = []
          walk(args ?? call.arguments, (_, node) => {
            // A diff inside a shell here-document is a file being written, not applied.
            if (typeof node === "string" && (node.includes("*** Begin Patch") || (patchTool.test(call.name) && node.includes("+++ ")))) patchText.push(node)
          })
          const patched = patchText.flatMap(patchPaths)
          for (const path of patched) {
            recordEdit(path, "patched", patchTool.test(call.name) ? call.name : "apply_patch", call.id)
            filePaths.addFirst(path)
          }
          if (args !== undefined && isWriteCall(call.name, args)) {
            const { action, via } = editorEdit(call.name, args)
            for (const path of keyed) if (!patched.includes(path)) recordEdit(path, action, via, call.id)
          }
          const shell = shellCommandText(call.name, args, call.arguments)
          if (shell !== undefined) {
            shellTexts.set(call.id, shell)
            const touched = shellTouches(shell, scripts)
            for (const touch of touched.written) if (!patched.includes(touch.path)) recordEdit(touch.path, touch.action, touch.via, call.id)
            for (const path of touched.mentioned) filePaths.addFirst(path)
          }
        }
        break
      }
      case "ToolResult": {
        const { content, envelope, parsed } = readToolResult(message.content)
        addIds(idsOfParsed(content, parsed))
        if (!results.has(message.toolCallId)) results.set(message.toolCallId, { content, envelope })
        resultsInOrder.push({ message, content, envelope })
        if (envelope !== undefined) {
          const files = Json.getPath(envelope, "data.transaction.files")
          const transaction = asString(Json.getPath(envelope, "data.transaction.id"))
          const via = transaction === undefined ? `${envelope.tool} ${envelope.action}` : `transaction ${transaction}`
          if (Array.isArray(files)) for (const file of files) if (typeof file === "string" && isKeyedPath(file)) recordEdit(file, "edited", via, message.toolCallId)
        }
        const shell = shellTexts.get(message.toolCallId)
        const patching = shell === undefined ? undefined : appliesPatch(shell)
        if (patching !== undefined) for (const path of patchedInOutput(content)) recordEdit(path, "patched", patching, message.toolCallId)
        const ran = shell ?? (calls.has(message.toolCallId) ? executableText(calls.get(message.toolCallId)!.args) : undefined)
        if (ran !== undefined && isTestCommand(ran)) {
          const exitCode = exitCodeOf(content, envelope)
          lastTestRun = { id: message.toolCallId, failing: exitCode === 0 ? [] : failingTestNames(content) }
          if (exitCode === 0) {
            lastPassingRun = message.toolCallId
            changedSincePass.clear()
          }
        }
        artifactCandidates.push(...resultArtifacts(content, envelope))
        break
      }
    }
  }

  const toolName = (toolCallId: string): string => calls.get(toolCallId)?.name ?? "unknown tool"

  // A staged approval the user already accepted, rejected or denied is finished.
  const stillPending = new Set(Boundary.pendingApprovals(span).map((obligation) => obligation.toolCallId))
  const unfinishedCalls = callOrder.filter((id) => !results.has(id) || stillPending.has(id))

  // What command a call ran, worked out once per call and only for the calls
  // the recent commands and failures need: a long history is not parsed whole.
  const commandCalls = new Map<string, { readonly text: string; readonly label: string; readonly answersNoMatch: boolean } | null>()
  const commandOf = (id: string) => {
    const known = commandCalls.get(id)
    if (known !== undefined) return known
    const call = calls.get(id)
    const result = results.get(id)
    let info: { text: string; label: string; answersNoMatch: boolean } | null = null
    if (call !== undefined) {
      const shell = shellCommandText(call.name, call.args, call.raw)
      const job = result?.envelope === undefined ? undefined : Json.getPath(result.envelope, "data.job")
      const commandText = shell ?? executableText(call.args) ??
        (Json.isObject(job) ? [asString(job["executable"]), asString(job["id"]) === undefined ? undefined : `(${asString(job["id"])})`].filter((part) => part !== undefined).join(" ") : undefined)
      if (commandText !== undefined && commandText.trim() !== "") {
        info = { text: commandText, label: commandLabel(commandText), answersNoMatch: shell !== undefined && exitOneIsAnAnswer(shell) }
      }
    }
    commandCalls.set(id, info)
    return info
  }

  const commandEntry = (id: string, label: string): CommandFields => {
    const result = results.get(id)
    const exitCode = result === undefined ? null : exitCodeOf(result.content, result.envelope)
    const job = result?.envelope === undefined ? undefined : Json.getPath(result.envelope, "data.job")
    const jobStatus = Json.isObject(job) ? asString(job["status"]) : undefined
    const status: WorkingState.CommandStatus = result === undefined
      ? "no-result"
      : stillPending.has(id)
      ? "pending-approval"
      : exitCode !== null
      ? "exited"
      : jobStatus === "running" || jobStatus === "queued" || jobStatus === "started"
      ? "running"
      : "unknown"
    return { toolCallId: id, tool: calls.get(id)!.name, command: label, status, exitCode }
  }

  // The newest commands, walking back from the end until the limit is reached.
  const commands: Array<CommandFields> = []
  for (let i = callOrder.length - 1; i >= 0 && commands.length < recentCommandLimit; i--) {
    const id = callOrder[i]!
    const command = commandOf(id)
    if (command === null) continue
    commands.unshift(commandEntry(id, command.label))
  }

  // The newest failures, likewise.
  const failures: Array<FailureFields> = []
  for (let i = resultsInOrder.length - 1; i >= 0 && failures.length < failureLimit; i--) {
    const { content, envelope, message } = resultsInOrder[i]!
    const tool = message.name ?? toolName(message.toolCallId)
    const exitCode = exitCodeOf(content, envelope)
    const command = calls.has(message.toolCallId) ? commandOf(message.toolCallId) : null
    // An exit code counts only for commands: a file that mentions "exit code 1" is no failure.
    const ranCommand = command !== null || shellToolName.test(tool) || Json.getPath(envelope, "data.job") !== undefined
    const failedExit = ranCommand && exitCode !== null && exitCode !== 0 && !(exitCode === 1 && command?.answersNoMatch === true)
    const failed = envelope !== undefined ? envelope.ok === false || failedExit : failedExit || errorOpening.test(content.trimStart())
    if (failed) {
      failures.unshift(
        ({
          tool,
          toolCallId: message.toolCallId,
          command: command?.label ?? null,
          message: failureMessage(content, envelope),
          exitCode: ranCommand ? exitCode : null
        })
      )
    }
  }

  const callPosition = new Map(commands.map((command, index) => [command.toolCallId, index] as const))
  const fixedFailures = failures.map((failure) => ({ ...failure, fixedBy: fixOf(failure, commands, callPosition) }))

  const written = filesWritten.values()
  const writtenSet = new Set(written)
  const artifacts = new RecentSet(pathLimit)
  for (const path of artifactCandidates) if (!writtenSet.has(path)) artifacts.addFirst(path)

  const lastCommandId = callOrder.findLast((id) => commandOf(id) !== null)
  const standing: StandingFields | null = lastCommandId === undefined && lastTestRun === undefined && edits.size === 0
    ? null
    : {
      lastCommand: lastCommandId === undefined ? null : commandEntry(lastCommandId, commandOf(lastCommandId)!.label),
      lastTestRun: lastTestRun === undefined || commandOf(lastTestRun.id) === null ? null : commandEntry(lastTestRun.id, commandOf(lastTestRun.id)!.label),
      failingTests: lastTestRun?.failing ?? [],
      lastPassingRun,
      changedSinceLastPass: Array.from(changedSincePass).slice(-pathLimit)
    }

  return ({
    edits: Array.from(edits.values()),
    standing,
    filesWritten: written,
    commands,
    artifacts: artifacts.values(),
    toolsUsed: Array.from(toolCounts, ([name, count]) => ({ name, count })),
    failures: fixedFailures,
    unfinishedCalls,
    protectedIds: protectedIds.values(),
    filePaths: filePaths.values()
  })
}

/**
 * What {@link extend} needs to know of the whole history that the earlier
 * state could not: which staged approvals are still unanswered, and the
 * result of a call, for the calls the earlier state left without one.
 *
 * @since 0.1.0
 * @category models
 */
export interface History {
  /** Tool-call ids whose staged approval is still unanswered in the history. */
  readonly stillPending: ReadonlySet<string>
  /** The result of a call anywhere in the history (the earlier span and the new one), if it has one. */
  readonly resultOf: (toolCallId: string) => Transcript.ToolResult | undefined
}

const statusOf = (command: CommandFields, history: History): CommandFields => {
  if (command.status !== "no-result" && command.status !== "pending-approval") return command
  const result = history.resultOf(command.toolCallId)
  if (result === undefined) return command.status === "no-result" ? command : ({ ...command, status: "no-result", exitCode: null })
  if (history.stillPending.has(command.toolCallId)) {
    return command.status === "pending-approval" ? command : ({ ...command, status: "pending-approval", exitCode: null })
  }
  const { content, envelope } = readToolResult(result.content)
  const exitCode = exitCodeOf(content, envelope)
  const job = envelope === undefined ? undefined : Json.getPath(envelope, "data.job")
  const jobStatus = Json.isObject(job) ? asString(job["status"]) : undefined
  const status: WorkingState.CommandStatus = exitCode !== null
    ? "exited"
    : jobStatus === "running" || jobStatus === "queued" || jobStatus === "started"
    ? "running"
    : "unknown"
  return ({ ...command, status, exitCode })
}

const extendStanding = (previous: StandingFields | null, next: StandingFields | null, history: History): StandingFields | null => {
  if (previous === null) return next
  const earlier = {
    ...previous,
    lastCommand: previous.lastCommand === null ? null : statusOf(previous.lastCommand, history),
    lastTestRun: previous.lastTestRun === null ? null : statusOf(previous.lastTestRun, history)
  }
  if (next === null) return earlier
  const changed = new Set(previous.changedSinceLastPass)
  for (const path of next.changedSinceLastPass) {
    changed.delete(path)
    changed.add(path)
  }
  return {
    lastCommand: next.lastCommand ?? earlier.lastCommand,
    lastTestRun: next.lastTestRun ?? earlier.lastTestRun,
    failingTests: next.lastTestRun === null ? earlier.failingTests : next.failingTests,
    lastPassingRun: next.lastPassingRun ?? earlier.lastPassingRun,
    changedSinceLastPass: next.lastPassingRun !== null ? next.changedSinceLastPass : Array.from(changed).slice(-pathLimit)
  }
}

/**
 * The working state of an earlier span followed by `span`, from the earlier
 * state and `span` alone: what {@link extract} gives for the two spans
 * together, at the cost of the new span only, when `span` starts at a turn
 * start (so no call is cut from its result) and the lists stay under their
 * limits. Commands and calls the earlier state left without a result or
 * waiting for an approval are looked up again in `history`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const extend = (previous: Fields, span: Transcript.Transcript, history: History): Fields =>
  Cooperative.runSync(extendSteps(previous, span, history))

/**
 * {@link extend} as steps that pause every few messages (see {@link extractSteps}).
 *
 * @since 0.1.0
 * @category constructors
 */
export function* extendSteps(previous: Fields, span: Transcript.Transcript, history: History): Cooperative.Steps<Fields> {
  if (isEmpty(previous)) return yield* extractSteps(span)
  const next = yield* extractSteps(span)
  const filesWritten = new RecentSet(pathLimit)
  for (const path of [...previous.filesWritten, ...next.filesWritten]) filesWritten.add(path)
  const written = new Set(filesWritten.values())
  const artifacts = new RecentSet(pathLimit)
  for (const path of [...previous.artifacts, ...next.artifacts]) if (!written.has(path)) artifacts.addFirst(path)
  const protectedIds = new RecentSet(protectedIdLimit)
  for (const id of [...previous.protectedIds, ...next.protectedIds]) protectedIds.addFirst(id)
  const filePaths = new RecentSet(pathLimit)
  for (const path of [...previous.filePaths, ...next.filePaths]) filePaths.addFirst(path)
  const toolCounts = new Map<string, number>()
  for (const use of [...previous.toolsUsed, ...next.toolsUsed]) toolCounts.set(use.name, (toolCounts.get(use.name) ?? 0) + use.count)
  const earlierCommands = next.commands.length >= recentCommandLimit
    ? []
    : previous.commands.slice(-(recentCommandLimit - next.commands.length)).map((command) => statusOf(command, history))
  const stillUnfinished = previous.unfinishedCalls.filter((id) => history.resultOf(id) === undefined || history.stillPending.has(id))
  const edits = new Map<string, FileEditFields>()
  for (const edit of [...(previous.edits ?? []), ...(next.edits ?? [])]) {
    const known = edits.get(edit.path)
    edits.delete(edit.path)
    edits.set(edit.path, { ...edit, times: (known?.times ?? 0) + edit.times })
    if (edits.size > pathLimit) edits.delete(edits.keys().next().value!)
  }
  const commands = [...earlierCommands, ...next.commands]
  const callPosition = new Map(commands.map((command, index) => [command.toolCallId, index] as const))
  // A failed command that is no longer among the recent commands is older than all of them: a later exit 0 among them fixes it.
  const failures = [...previous.failures, ...next.failures].slice(-failureLimit).map((failure) => ({ ...failure, fixedBy: fixOf(failure, commands, callPosition) }))
  return ({
    edits: Array.from(edits.values()),
    standing: extendStanding(previous.standing ?? null, next.standing ?? null, history),
    filesWritten: filesWritten.values(),
    commands,
    artifacts: artifacts.values(),
    toolsUsed: Array.from(toolCounts, ([name, count]) => ({ name, count })),
    failures,
    unfinishedCalls: [...stillUnfinished, ...next.unfinishedCalls],
    protectedIds: protectedIds.values(),
    filePaths: filePaths.values()
  })
}
