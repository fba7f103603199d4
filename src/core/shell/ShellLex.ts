/**
 * A shell lexer, near enough to a POSIX shell's to find what a command line
 * runs and writes: words and operators, quotes, escapes, comments, `$(…)` kept
 * inside its word, descriptor numbers of redirects (`2>`), newlines as command
 * separators, and here-document bodies skipped. The working state's
 * extraction reads commands through it.
 *
 * @since 0.1.0
 */

/** Commands past this many characters are parsed only up to it. */
const commandParseChars = 200_000

/**
 * A word or an operator of shell text.
 *
 * @since 0.1.0
 * @category models
 */
export type ShellToken =
  | {
    readonly _tag: "Word"
    readonly text: string
    /** For the delimiter of a here-document (`<<EOF`), the document's body. */
    readonly heredoc?: string
  }
  | { readonly _tag: "Operator"; readonly text: string }

type Heredoc = { readonly delimiter: string; readonly stripTabs: boolean; readonly token: { heredoc?: string } }

const operators = [
  "<<<",
  "<<-",
  "&>>",
  ";;",
  "&&",
  "||",
  "|&",
  ">>",
  ">|",
  ">&",
  "<<",
  "<&",
  "<>",
  "&>",
  ";",
  "&",
  "|",
  "<",
  ">",
  "(",
  ")"
]
const controlOperators: ReadonlySet<string> = new Set([";", ";;", "&", "&&", "||", "|", "|&", "\n", "(", ")"])
const writeRedirects: ReadonlySet<string> = new Set([">", ">>", ">|", "&>", "&>>", ">&"])
const readRedirects: ReadonlySet<string> = new Set(["<", "<<", "<<-", "<<<", "<&", "<>"])

/**
 * Skips the bodies of pending here-documents, starting at the line after the
 * `<<` line, and gives each body to its delimiter's token.
 */
const skipHeredocBodies = (source: string, from: number, heredocs: ReadonlyArray<Heredoc>): number => {
  let index = from
  for (const heredoc of heredocs) {
    const start = index
    let bodyEnd = source.length
    while (index < source.length) {
      const end = source.indexOf("\n", index)
      const lineEnd = end === -1 ? source.length : end
      const raw = source.slice(index, lineEnd).replace(/\r$/, "")
      const line = heredoc.stripTabs ? raw.replace(/^\t+/, "") : raw
      const lineStart = index
      index = lineEnd + 1
      if (line.trim() === heredoc.delimiter) {
        bodyEnd = lineStart
        break
      }
    }
    heredoc.token.heredoc = source.slice(start, Math.max(start, Math.min(bodyEnd, source.length)))
  }
  return Math.min(index, source.length)
}

/**
 * Splits shell text into words and operators the way a POSIX shell would,
 * near enough to find redirect targets: quotes, escapes, comments, `$(…)`,
 * and here-document bodies (skipped, so what they write is not read as shell).
 *
 * @since 0.1.0
 * @category parsing
 */
export const tokenize = (input: string): ReadonlyArray<ShellToken> => {
  const source = input.length > commandParseChars ? input.slice(0, commandParseChars) : input
  const tokens: Array<ShellToken> = []
  const heredocs: Array<Heredoc> = []
  let expectDelimiter: boolean | undefined
  let word = ""
  let inWord = false
  const endWord = (): void => {
    if (!inWord) return
    const token: { _tag: "Word"; text: string; heredoc?: string } = { _tag: "Word", text: word }
    if (expectDelimiter !== undefined) {
      heredocs.push({ delimiter: word, stripTabs: expectDelimiter, token })
      expectDelimiter = undefined
    }
    tokens.push(token)
    word = ""
    inWord = false
  }
  let i = 0
  const n = source.length
  while (i < n) {
    const c = source[i]!
    if (c === "\n") {
      endWord()
      tokens.push({ _tag: "Operator", text: "\n" })
      i++
      if (heredocs.length > 0) {
        i = skipHeredocBodies(source, i, heredocs)
        heredocs.length = 0
      }
    } else if (c === " " || c === "\t" || c === "\r") {
      endWord()
      i++
    } else if (c === "\\") {
      if (source[i + 1] !== "\n") {
        word += source[i + 1] ?? ""
        inWord = true
      }
      i += 2
    } else if (c === "'") {
      const end = source.indexOf("'", i + 1)
      const stop = end === -1 ? n : end
      word += source.slice(i + 1, stop)
      inWord = true
      i = stop + 1
    } else if (c === "\"") {
      let j = i + 1
      while (j < n && source[j] !== "\"") {
        if (source[j] === "\\" && j + 1 < n && "\"\\$`\n".includes(source[j + 1]!)) {
          if (source[j + 1] !== "\n") word += source[j + 1]
          j += 2
        } else {
          word += source[j]
          j++
        }
      }
      inWord = true
      i = j + 1
    } else if (c === "#" && !inWord) {
      const end = source.indexOf("\n", i)
      i = end === -1 ? n : end
    } else if ((c === "$" && source[i + 1] === "(") || c === "`") {
      // Command substitution stays inside the word it belongs to.
      let j = i + 1
      if (c === "`") {
        const end = source.indexOf("`", j)
        j = end === -1 ? n : end + 1
      } else {
        let depth = 0
        while (j < n) {
          if (source[j] === "(") depth++
          else if (source[j] === ")") {
            depth--
            if (depth === 0) {
              j++
              break
            }
          }
          j++
        }
      }
      word += source.slice(i, j)
      inWord = true
      i = j
    } else if (";&|<>()".includes(c)) {
      // A descriptor number before a redirect (`2>`) belongs to the operator.
      if ((c === ">" || c === "<") && inWord && /^\d+$/.test(word)) {
        word = ""
        inWord = false
      } else {
        endWord()
      }
      const operator = operators.find((candidate) => source.startsWith(candidate, i)) ?? c
      tokens.push({ _tag: "Operator", text: operator })
      i += operator.length
      if (operator === "<<" || operator === "<<-") expectDelimiter = operator === "<<-"
    } else {
      word += c
      inWord = true
      i++
    }
  }
  endWord()
  return tokens
}

/**
 * A simple command: its words, and the targets of its writing redirects.
 *
 * @since 0.1.0
 * @category models
 */
export interface SimpleCommand {
  readonly words: ReadonlyArray<string>
  /** The targets of its writing redirects, `>>` ones included. */
  readonly writes: ReadonlyArray<string>
  /** The targets of its appending redirects (`>>`, `&>>`). */
  readonly appends: ReadonlyArray<string>
  /** The bodies of the here-documents it reads (`<<EOF … EOF`); `<<<` strings too. */
  readonly stdin: ReadonlyArray<string>
}

const commandWrappers: ReadonlySet<string> = new Set([
  "sudo",
  "env",
  "time",
  "nohup",
  "command",
  "builtin",
  "exec",
  "nice",
  "timeout"
])

/**
 * The simple commands of a token stream, split at control operators, with the
 * targets of their writing redirects (`>`, `>>`, `&>`, …; not `>&2`).
 *
 * @since 0.1.0
 * @category parsing
 */
export const simpleCommands = (tokens: ReadonlyArray<ShellToken>): ReadonlyArray<SimpleCommand> => {
  const commands: Array<SimpleCommand> = []
  let words: Array<string> = []
  let writes: Array<string> = []
  let appends: Array<string> = []
  let stdin: Array<string> = []
  const flush = (): void => {
    if (words.length > 0 || writes.length > 0) commands.push({ words, writes, appends, stdin })
    words = []
    writes = []
    appends = []
    stdin = []
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token._tag === "Word") {
      words.push(token.text)
    } else if (controlOperators.has(token.text)) {
      flush()
    } else if (writeRedirects.has(token.text) || readRedirects.has(token.text)) {
      const next = tokens[i + 1]
      if (next?._tag !== "Word") continue
      i++
      const duplicatesDescriptor = token.text === ">&" && /^(?:\d+|-)$/.test(next.text)
      if (writeRedirects.has(token.text) && !duplicatesDescriptor) writes.push(next.text)
      if (token.text === ">>" || token.text === "&>>") appends.push(next.text)
      if (token.text === "<<<") stdin.push(next.text)
      else if (next.heredoc !== undefined) stdin.push(next.heredoc)
    }
  }
  flush()
  return commands
}

/**
 * The command's name and arguments, past variable assignments and wrappers such as `sudo`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const commandWords = (words: ReadonlyArray<string>): ReadonlyArray<string> => {
  let start = 0
  while (
    start < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[start]!) || commandWrappers.has(words[start]!))
  ) start++
  return words.slice(start)
}
