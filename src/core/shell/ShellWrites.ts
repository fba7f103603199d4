/**
 * The files a shell command line writes: redirects, `tee`, `touch`, `sed -i`,
 * `perl -pi`, Python scripts that open files for writing, patches applied
 * from here-documents or files, and `git checkout`/`git restore` of paths.
 *
 * @since 0.1.0
 */
import { isKeyedPath, looksLikeFilePath } from "../working-state/FilePaths.js"
import type * as WorkingState from "../working-state/WorkingState.js"
import * as ShellLex from "./ShellLex.js"

export const patchTool = /patch|diff|apply/i

/** Files named by patch text: `*** Add File:` / `*** Update File:` / `*** Move to:` and unified-diff `+++` lines. */
export const patchPaths = (text: string): ReadonlyArray<string> => {
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
  if (args.some((arg) => arg === "-e" || arg === "-f" || arg.startsWith("--expression") || arg.startsWith("--file"))) {
    return undefined
  }
  return args.find((arg) => !arg.startsWith("-"))
}

const isWritableTarget = (path: string): boolean =>
  path.length > 0 && path.length <= 500 && !path.startsWith("/dev/") && !path.startsWith("/proc/") &&
  !path.startsWith("&") &&
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
const pythonOpen = new RegExp(
  String.raw`\bopen\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*,\s*(?:mode\s*=\s*)?[rbuRBU]?(['"])([^'"]{1,5})\4`,
  "g"
)
const pythonPathWrite = new RegExp(
  String.raw`\bPath\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*\)\.write_(text|bytes)\(`,
  "g"
)
const pythonVariableWrite = /\b([A-Za-z_]\w*)\.write_(?:text|bytes)\(/g
const pythonOpenRead = new RegExp(
  String
    .raw`\bopen\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*(?:\)|,\s*(?:encoding|errors|newline)\s*=|,\s*(?:mode\s*=\s*)?(['"])[rbtU]{1,3}\4)`,
  "g"
)
const pythonPathRead = new RegExp(
  String.raw`\bPath\(\s*(?:${quotedPath}|([A-Za-z_]\w*))\s*\)\.read_(?:text|bytes)\(`,
  "g"
)
const pythonVariableRead = /\b([A-Za-z_]\w*)\.read_(?:text|bytes)\(/g
const pythonAssignment = /^\s*([A-Za-z_]\w*)\s*=\s*(?:Path\(\s*)?[rbuRBU]?(['"])([^'"\n]{1,300})\2/gm

/**
 * The files a Python script opens for writing: `open("f", "w")` (also `a`,
 * `x`, `r+`, binary), `Path("f").write_text(…)`, and either of them through a
 * variable assigned a string literal in the script. A write is `whole` (the
 * file written anew) unless it appends or updates, or the script reads the
 * file too: reading it and writing it back is an edit.
 *
 * @since 0.1.0
 * @category shell
 */
export const pythonWrites = (script: string): ReadonlyArray<{ readonly path: string; readonly whole: boolean }> => {
  const text = script.length > 100_000 ? script.slice(0, 100_000) : script
  const variables = new Map<string, string>()
  for (const match of text.matchAll(pythonAssignment)) variables.set(match[1]!, match[3]!)
  const read = new Set<string>()
  for (const match of text.matchAll(pythonOpenRead)) {
    const path = match[2] ?? variables.get(match[3] ?? "")
    if (path !== undefined) read.add(path)
  }
  for (const match of text.matchAll(pythonPathRead)) {
    const path = match[2] ?? variables.get(match[3] ?? "")
    if (path !== undefined) read.add(path)
  }
  for (const match of text.matchAll(pythonVariableRead)) {
    const path = variables.get(match[1]!)
    if (path !== undefined) read.add(path)
  }
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
  return found.map((write) => write.whole && read.has(write.path) ? { ...write, whole: false } : write)
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
    for (const target of simple.writes) {
      add([target], appended.has(target) ? "edited" : "written", appended.has(target) ? "redirect >>" : "redirect >")
    }
    const words = ShellLex.commandWords(simple.words)
    const name = words[0]?.split("/").pop()
    const args = words.slice(1)
    const operands = args.filter((arg) => !arg.startsWith("-"))
    if (name === "tee") {
      add(
        operands,
        args.some((arg) => arg === "-a" || arg === "--append")
          ? "edited"
          : "written",
        "tee"
      )
    }
    if (name === "touch") add(operands, "written", "touch")
    if (
      (name === "cp" || name === "mv" || name === "install") && operands.length >= 2 &&
      looksLikeFilePath(operands.at(-1)!)
    ) {
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
      for (const source of sources) {
        for (const write of pythonWrites(source.text)) {
          add([write.path], write.whole ? "written" : "edited", source.via)
        }
      }
    }
    if (name === "git" && (args[0] === "checkout" || args[0] === "restore")) {
      const dashes = args.indexOf("--")
      const paths = dashes !== -1
        ? args.slice(dashes + 1)
        : args.slice(1).filter((arg) => !arg.startsWith("-") && looksLikeFilePath(arg))
      add(paths, "restored", `git ${args[0]}`)
    }
    const patch = isPatchCommand(name, args)
    if (patching) { for (const body of simple.stdin) add(patchPaths(body), "patched", patch ?? "git apply") }
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
export const shellFiles = (
  command: string
): { readonly written: ReadonlyArray<string>; readonly mentioned: ReadonlyArray<string> } => {
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
  for (
    const match of window.matchAll(
      /^(?:patching file|Applied patch|Checking patch) ['`"]?([^\s'`"]+?)['`"]?(?: cleanly\.?|\.\.\.)?\s*$/gm
    )
  ) {
    if (isKeyedPath(match[1]!)) found.push(match[1]!)
  }
  return Array.from(new Set(found))
}

/** Whether a command line applies a patch from a file or standard input (its output then names the patched files). */
export const appliesPatch = (command: string): string | undefined => {
  const match = /(?:^|[\s;&|(])(git\s+(?:apply|am)|patch)(?=\s|$)/.exec(command)
  return match === null ? undefined : match[1]!.replace(/\s+/, " ")
}
