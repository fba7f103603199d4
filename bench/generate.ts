/**
 * Deterministic generators of agentic-workspace/v1 envelopes for the
 * reduction benchmark: the same seed and target size always give the same
 * text. Shapes follow the protocol's tool results (see the fixtures of the
 * shared test suite), scaled up to a target size in characters of compact JSON.
 */

/** A seeded PRNG (mulberry32): deterministic, no `Math.random`. */
export class Prng {
  private state: number

  constructor(seed: number) {
    this.state = seed >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.next() * items.length)]!
  }

  hex(length: number): string {
    let out = ""
    while (out.length < length) out += ((this.next() * 4294967296) >>> 0).toString(16).padStart(8, "0")
    return out.slice(0, length)
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability
  }
}

const words = [
  "vector",
  "store",
  "index",
  "query",
  "latency",
  "throughput",
  "shard",
  "replica",
  "embedding",
  "cosine",
  "recall",
  "benchmark",
  "memory",
  "disk",
  "cluster",
  "node",
  "partition",
  "segment",
  "compaction",
  "filter",
  "payload",
  "schema",
  "batch",
  "stream",
  "cache",
  "the",
  "a",
  "of",
  "and",
  "to",
  "in",
  "for",
  "with",
  "on",
  "is",
  "that",
  "by",
  "this",
  "from",
  "at",
  "as",
  "are",
  "be",
  "or",
  "which",
  "scales",
  "million",
  "billion"
]

/** A sentence of `min` to `max` words drawn from `vocabulary`. */
export const sentence = (rng: Prng, min = 6, max = 18, vocabulary: ReadonlyArray<string> = words): string => {
  const count = rng.int(min, max)
  const out: Array<string> = []
  for (let i = 0; i < count; i++) out.push(rng.pick(vocabulary))
  const text = out.join(" ")
  return text.charAt(0).toUpperCase() + text.slice(1) + "."
}

/** Sentences until about `chars` characters. */
export const paragraph = (
  rng: Prng,
  chars: number,
  vocabulary: ReadonlyArray<string> = words,
  min = 6,
  max = 18
): string => {
  const parts: Array<string> = []
  let length = 0
  while (length < chars) {
    const s = sentence(rng, min, max, vocabulary)
    parts.push(s)
    length += s.length + 1
  }
  return parts.join(" ")
}

/** The value of a `--name value` or `--name=value` command-line argument. */
export const argValue = (name: string): string | undefined => {
  const args = process.argv.slice(2)
  const index = args.indexOf(name)
  if (index >= 0) return args[index + 1]
  const inline = args.find((arg) => arg.startsWith(`${name}=`))
  return inline?.slice(name.length + 1)
}

const timestamp = (rng: Prng): string =>
  `2026-${String(rng.int(1, 12)).padStart(2, "0")}-${String(rng.int(1, 28)).padStart(2, "0")}T${
    String(rng.int(0, 23)).padStart(2, "0")
  }:${String(rng.int(0, 59)).padStart(2, "0")}:${String(rng.int(0, 59)).padStart(2, "0")}Z`

const id = (rng: Prng, prefix: string): string => `${prefix}_${rng.hex(8)}`

const sourcePath = (rng: Prng): string =>
  `${rng.pick(["src", "test", "lib", "packages/core/src", "packages/cli/src"])}/mod${rng.int(0, 40)}/${
    rng.pick(["file", "util", "index", "service", "layer"])
  }${rng.int(0, 99)}.${rng.pick(["ts", "ts", "tsx", "json", "md"])}`

/** JSON length of a value, as compact text. */
const sizeOf = (value: unknown): number => JSON.stringify(value).length

/** Items made by `make` until their compact JSON reaches about `chars` (at least `min` items). */
const fill = <A>(chars: number, make: (index: number) => A, min = 1): Array<A> => {
  const out: Array<A> = []
  let used = 2
  for (;;) {
    const item = make(out.length)
    const cost = sizeOf(item) + 1
    // The last item goes in only if at least half of it fits.
    if (out.length >= min && used + cost / 2 > chars) return out
    out.push(item)
    used += cost
  }
}

/** Lines made by `make` until their text reaches about `chars`. */
const lines = (chars: number, make: (index: number) => string): { readonly text: string; readonly count: number } => {
  const out: Array<string> = []
  let used = 0
  while (used < chars || out.length === 0) {
    const line = make(out.length)
    out.push(line)
    used += line.length + 1
  }
  return { text: out.join("\n"), count: out.length }
}

const envelope = (
  tool: string,
  action: string,
  data: Record<string, unknown>,
  facts: ReadonlyArray<string>,
  importance = "high"
): Record<string, unknown> => ({
  protocol: "agentic-workspace/v1",
  tool,
  action,
  ok: true,
  summary: `${tool} ${action} completed`,
  data,
  retention: { importance, facts }
})

/** Room the envelope around the generated data takes, about. */
const headerChars = 260

/** `workspace_inspect overview`: many recent transactions with files and diffs, runs, boards, a file tree. */
const overview = (rng: Prng, target: number): unknown => {
  const body = Math.max(target - headerChars, 200)
  const recentTransactions = fill(body * 0.7, (i) => {
    const files = Array.from({ length: rng.int(1, body < 5000 ? 2 : 30) }, () => sourcePath(rng))
    const diff = lines(
      rng.int(60, Math.min(2400, body * 0.2)),
      (n) => `${rng.pick(["+", "-", " "])}line ${n} ${rng.hex(12)} ${rng.pick(words)}`
    )
    return {
      id: id(rng, "tx"),
      status: rng.pick(["staged", "committed", "committed", "reverted"]),
      title: `edit batch ${i}`,
      createdAt: timestamp(rng),
      files,
      stats: { added: rng.int(0, 400), removed: rng.int(0, 200), filesChanged: files.length },
      diff: diff.text,
      diffLines: diff.count,
      diffTruncated: false
    }
  })
  const recentRuns = fill(body * 0.08, () => ({
    id: id(rng, "run"),
    status: rng.pick(["running", "completed", "failed"]),
    role: rng.pick(["researcher", "implementer", "reviewer"]),
    startedAt: timestamp(rng),
    passesUsed: rng.int(0, 8),
    passBudget: 8
  }), 0)
  const recentTaskBoards = fill(
    body * 0.03,
    (i) => ({ id: id(rng, "todo"), title: `board ${i}`, open: rng.int(0, 30), done: rng.int(0, 90) }),
    0
  )
  const recentResearchProjects = fill(body * 0.02, () => ({
    id: id(rng, "research"),
    title: sentence(rng, 3, 6),
    status: rng.pick(["running", "done"])
  }), 0)
  const tree = lines(body * 0.15, () => sourcePath(rng))
  return envelope("workspace_inspect", "overview", {
    permissionMode: "ask",
    activePlan: id(rng, "plan"),
    pendingPlan: null,
    pendingApprovals: fill(body * 0.02, () => id(rng, "approval"), 0),
    recentTransactions,
    recentRuns,
    recentTaskBoards,
    recentResearchProjects,
    fileTree: tree.text,
    fileTreeEntries: tree.count,
    fileTreeTruncated: false
  }, [`${recentTransactions.length} recent transactions`, `active plan with ${recentRuns.length} runs`])
}

const outputLine = (rng: Prng, n: number): string => {
  switch (rng.int(0, 5)) {
    case 0:
      return ` ✓ ${sourcePath(rng)} (${rng.int(1, 60)} tests) ${rng.int(1, 900)}ms`
    case 1:
      return ` × ${sourcePath(rng)} > ${sentence(rng, 3, 8)} ${rng.int(1, 900)}ms`
    case 2:
      return `   at ${rng.pick(["Object.<anonymous>", "runTest", "processTicksAndRejections"])} (${sourcePath(rng)}:${
        rng.int(1, 999)
      }:${rng.int(1, 80)})`
    default:
      return `test output ${n} ${rng.hex(12)}`
  }
}

/** `workspace_command status`: one long stdout with its truncation counters, and a stderr. */
const command = (rng: Prng, target: number): unknown => {
  const body = Math.max(target - headerChars - 200, 200)
  const stdout = lines(body * 0.93, (n) => outputLine(rng, n))
  const stderr = lines(
    body * 0.05,
    (n) => `npm warn ${rng.pick(["deprecated", "peer", "config"])} ${sentence(rng, 3, 8)} (${n})`
  )
  return envelope(
    "workspace_command",
    "status",
    {
      job: { id: id(rng, "job"), status: "exited", executable: "npm", exitCode: 1, startedAt: timestamp(rng) },
      stdout: stdout.text,
      stdoutTruncated: true,
      stdoutBytes: stdout.text.length * 4,
      stdoutLinesOmitted: stdout.count * 3,
      stderr: stderr.text,
      stderrTruncated: false,
      stderrChars: stderr.text.length
    },
    ["npm test exited with code 1"],
    "medium"
  )
}

/** `workspace_research deep`: many fetched sources with content, snippets, a report. */
const research = (rng: Prng, target: number): unknown => {
  const body = Math.max(target - headerChars - 400, 200)
  const projectId = id(rng, "research")
  const sources = fill(body * 0.75, (i) => ({
    id: id(rng, "source"),
    url: `https://example.org/${rng.pick(["doc", "blog", "paper", "forum"])}/${i}-${rng.hex(6)}`,
    title: sentence(rng, 2, 8),
    fetchedAt: timestamp(rng),
    sha256: rng.hex(64),
    contentPath: `.workspace/research/${projectId}/sources/${i}.md`,
    fetched: true,
    metadata: {
      lang: "en",
      words: rng.int(100, 5000),
      headings: Array.from({ length: rng.int(0, body < 5000 ? 1 : 6) }, () => sentence(rng, 2, 5))
    },
    content: paragraph(rng, rng.int(Math.min(300, body * 0.1), Math.min(6000, body * 0.2)))
  }))
  const snippets = fill(body * 0.12, (i) => ({
    url: `https://example.com/search/${i}-${rng.hex(6)}`,
    title: sentence(rng, 2, 6),
    snippet: paragraph(rng, rng.int(40, Math.min(700, body * 0.1))),
    fetched: false,
    rank: i + 1
  }))
  const report = paragraph(rng, body * 0.1)
  return envelope("workspace_research", "deep", {
    project: {
      id: projectId,
      title: "compare vector stores",
      status: "running",
      question: "Which store fits 10M vectors?"
    },
    agentRun: { id: id(rng, "run"), status: "running", role: "researcher", passesUsed: 3, passBudget: 8 },
    sources,
    snippets,
    report,
    reportChars: report.length,
    reportTruncated: false
  }, [`${sources.length} sources fetched for ${projectId}`])
}

/**
 * `workspace_inspect tree`: a directory tree as nested objects (directories
 * keyed by name, several levels deep), with file records and a recent-changes
 * array longer than the array cap in each directory.
 */
const tree = (rng: Prng, target: number): unknown => {
  const maxDepth = 7
  const fileRecord = (): Record<string, unknown> => ({
    kind: "file",
    size: rng.int(0, 200_000),
    lines: rng.int(0, 4000),
    mtime: timestamp(rng),
    owner: { team: rng.pick(["core", "cli", "infra"]), reviewers: rng.int(0, 4) },
    lint: { errors: rng.int(0, 3), warnings: rng.int(0, 12) }
  })
  const dir = (path: string, depth: number, budget: number): Record<string, unknown> => {
    const children: Record<string, unknown> = {}
    let used = 120
    const ownShare = depth >= maxDepth || budget < 3000 ? budget : budget * 0.3
    const fileCount = Math.max(1, Math.min(depth >= maxDepth ? Infinity : 40, Math.floor(ownShare / 190)))
    for (let i = 0; i < fileCount && used < ownShare; i++) {
      const record = fileRecord()
      const name = `${rng.pick(["file", "util", "index", "service"])}${i}.ts`
      children[name] = record
      used += sizeOf(record) + name.length + 4
    }
    const changes = ownShare > 3000
      ? Array.from(
        { length: rng.int(21, 40) },
        () => ({ tx: id(rng, "tx"), at: timestamp(rng), kind: rng.pick(["edit", "add", "delete"]) })
      )
      : []
    if (changes.length > 0) used += sizeOf(changes)
    const rest = budget - used
    if (depth < maxDepth && rest > 600) {
      const fanout = rng.int(3, 7)
      for (let i = 0; i < fanout; i++) {
        const name = `mod${i}`
        children[name] = dir(`${path}/${name}`, depth + 1, rest / fanout)
      }
    }
    return { kind: "dir", path, entries: Object.keys(children).length, children, recentChanges: changes }
  }
  const body = Math.max(target - headerChars, 200)
  return envelope(
    "workspace_inspect",
    "tree",
    {
      root: dir(".", 0, body),
      treeTruncated: false
    },
    ["tree of the workspace"],
    "low"
  )
}

const row = (rng: Prng, i: number): Record<string, unknown> => ({
  path: `src/mod${i % 97}/f${i}.ts`,
  kind: rng.pick(["file", "file", "file", "dir", "link"]),
  size: rng.int(0, 99_999),
  mtime: timestamp(rng),
  ok: rng.bool(0.9)
})

/** `workspace_inspect index`: one array of many small rows (mostly cut by the array cap). */
const rowsArray = (rng: Prng, target: number): unknown => {
  const rows = fill(Math.max(target - headerChars, 100), (i) => row(rng, i))
  return envelope("workspace_inspect", "index", { rows, rowsTotal: rows.length, rowsTruncated: false }, [
    `${rows.length} rows`
  ], "low")
}

/** `workspace_inspect index`: many small rows keyed by path, every one of them walked. */
const rowsMap = (rng: Prng, target: number): unknown => {
  const byPath: Record<string, unknown> = {}
  let used = 2
  const body = Math.max(target - headerChars, 100)
  for (let i = 0; used < body || i === 0; i++) {
    const r = row(rng, i)
    const key = r["path"] as string
    delete r["path"]
    byPath[key] = r
    used += sizeOf(r) + key.length + 4
  }
  const count = Object.keys(byPath).length
  return envelope("workspace_inspect", "index", { files: byPath, filesTotal: count, filesTruncated: false }, [
    `${count} files`
  ], "low")
}

/**
 * The shapes, by name.
 */
export const shapes = {
  overview,
  command,
  research,
  tree,
  "rows[]": rowsArray,
  "rows{}": rowsMap
} as const satisfies Record<string, (rng: Prng, target: number) => unknown>

export type Shape = keyof typeof shapes

export const shapeNames = Object.keys(shapes) as ReadonlyArray<Shape>

/**
 * The compact JSON text of one envelope of `shape`, about `target` characters
 * long; the same arguments always give the same text.
 */
export const generate = (shape: Shape, target: number, seed = 0x5eed): string => {
  let hash = seed >>> 0
  for (let i = 0; i < shape.length; i++) hash = Math.imul(hash ^ shape.charCodeAt(i), 16777619) >>> 0
  return JSON.stringify(shapes[shape](new Prng(hash ^ target), target))
}
