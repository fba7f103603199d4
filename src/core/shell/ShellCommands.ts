/**
 * The command a tool call ran: a shell tool's command text, the protocol's
 * `workspace_command`, the label the working state shows, and whether exit 1
 * is an answer (`grep`, `diff`) rather than a failure.
 *
 * @since 0.1.0
 */
import * as Json from "../json/JsonTree.js"
import * as Clip from "../reduce/Clip.js"
import { asString } from "../working-state/ToolResultRead.js"
import * as ShellLex from "./ShellLex.js"

/** Commands whose exit 1 is an answer ("no match", "the files differ", "false"), not a failure. */
const exitOneAnswers: ReadonlySet<string> = new Set([
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "ag",
  "ack",
  "diff",
  "cmp",
  "test",
  "[",
  "[[",
  "false",
  "git"
])

/** Whether the last command of a command line answers with exit 1 instead of failing (`grep` found nothing, `diff` found changes). */
export const exitOneIsAnAnswer = (command: string): boolean => {
  const commands = ShellLex.simpleCommands(ShellLex.tokenize(command))
  const words = ShellLex.commandWords(commands[commands.length - 1]?.words ?? [])
  const name = words[0]?.split("/").pop() ?? ""
  if (name === "git") return words[1] === "diff" || words[1] === "grep"
  return exitOneAnswers.has(name)
}

export const shellToolName =
  /(?:^|[_.\-])(?:bash|shell|sh|zsh|run|exec|execute|terminal|cmd|command|console)(?:$|[_.\-])/i

export const shellCommandText = (name: string, args: unknown, raw: string): string | undefined => {
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
export const executableText = (args: unknown): string | undefined => {
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
export const commandLabel = (text: string): string => {
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
