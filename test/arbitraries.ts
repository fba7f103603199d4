/**
 * Generators of agentic-workspace/v1 envelopes for the property tests, and
 * the oracles the properties check outputs against. The oracles are written
 * independently of the interpreter: paths are resolved and removed here, not
 * through the code under test.
 */
import * as fc from "fast-check"

export type JsonValue = null | boolean | number | string | Array<JsonValue> | { [key: string]: JsonValue }

const idPrefixes = ["tx_", "job_", "plan_", "run_", "todo_", "research_", "source_", "approval_"] as const

export const hex = fc.stringMatching(/^[0-9a-f]{8}$/)

export const id = fc.tuple(fc.constantFrom(...idPrefixes), hex).map(([prefix, digits]) => prefix + digits)

/** A unique-looking token, so a test can tell whether a given string reached the output. */
const token = fc.stringMatching(/^[A-Z]{3}[0-9a-z]{9}$/)

const longText = fc
  .tuple(token, fc.integer({ min: 1_300, max: 6_000 }), fc.constantFrom("line ", "💥 émoji ", "x"))
  .map(([t, length, unit]) => (t + " " + unit.repeat(Math.ceil(length / unit.length))).slice(0, length) + " " + t)

const binaryText = fc
  .tuple(fc.integer({ min: 1_300, max: 4_000 }), hex)
  .map(([length, seed]) => "iVBORw0KGgo" + seed.repeat(Math.ceil(length / 8)).slice(0, length))

export const leafString: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 3, arbitrary: token },
  { weight: 3, arbitrary: id },
  { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: "binary" }) },
  { weight: 1, arbitrary: longText },
  { weight: 1, arbitrary: binaryText }
)

const leaf: fc.Arbitrary<JsonValue> = fc.oneof(
  { weight: 5, arbitrary: leafString },
  { weight: 2, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) }
)

export const counterKeys = [
  "truncated",
  "stdoutTruncated",
  "diffTruncated",
  "stdoutBytes",
  "stdoutLinesOmitted",
  "itemsOmitted",
  "reportChars",
  "fileTreeEntries",
  "errorLines"
] as const

const plainKeys = [
  "id",
  "title",
  "path",
  "files",
  "diff",
  "content",
  "stdout",
  "items",
  "entries",
  "name",
  "kind",
  "value",
  "rows",
  "__proto__",
  "constructor",
  "prototype",
  "job",
  "plan"
] as const

const counters: fc.Arbitrary<Record<string, JsonValue>> = fc.dictionary(
  fc.constantFrom(...counterKeys),
  fc.oneof(fc.boolean(), fc.nat(), fc.integer({ min: 0, max: 2 ** 40 })),
  { maxKeys: 3 }
)

const { node } = fc.letrec<{ node: JsonValue; object: JsonValue; array: JsonValue }>((tie) => ({
  node: fc.oneof({ depthSize: "small", maxDepth: 5 }, leaf, tie("object"), tie("array")),
  object: fc
    .tuple(fc.dictionary(fc.constantFrom(...plainKeys), tie("node"), { maxKeys: 5 }), counters)
    .map(([plain, flags]) => {
      const out: Record<string, JsonValue> = {}
      for (const [k, v] of [...Object.entries(plain), ...Object.entries(flags)]) {
        Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
      }
      return out
    }),
  array: fc.oneof(
    { weight: 4, arbitrary: fc.array(tie("node"), { maxLength: 4 }) },
    { weight: 1, arbitrary: fc.array(leaf, { minLength: 21, maxLength: 32 }) },
    {
      weight: 1,
      arbitrary: fc.array(fc.record({ id, truncated: fc.boolean(), stdoutBytes: fc.nat() }), {
        minLength: 18,
        maxLength: 26
      })
    }
  )
}))

export const jsonTree = node

const tools: ReadonlyArray<readonly [string, string]> = [
  ["workspace_edit", "stage"],
  ["workspace_command", "status"],
  ["workspace_inspect", "changes"],
  ["workspace_inspect", "overview"],
  ["workspace_inspect", "capabilities"],
  ["workspace_plan", "propose"],
  ["workspace_research", "deep"],
  ["workspace_tasks", "show"],
  ["some_other_tool", "run"]
]

const resumeArguments: fc.Arbitrary<Record<string, JsonValue>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>, {
      maxKeys: 6
    })
  },
  {
    weight: 2,
    arbitrary: fc.record({
      action: fc.constant("batch"),
      actions: fc.array(fc.record({ type: fc.constantFrom("click", "type"), selector: fc.string() }), {
        minLength: 21,
        maxLength: 40
      })
    })
  },
  {
    weight: 2,
    // Around the 12,000-character limit, on both sides of it.
    arbitrary: fc.integer({ min: 11_900, max: 12_100 }).map((length) => ({
      action: "write",
      content: "y".repeat(length - 33)
    }))
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 12_001, max: 40_000 }).map((length) => ({
      action: "write",
      content: "z".repeat(length)
    }))
  }
)

export const approval = fc.record({
  id: id.map((value) => "approval_" + value.split("_")[1]),
  kind: fc.constantFrom("transaction", "command", "vcs", "browser", "web", "agent"),
  title: fc.string({ maxLength: 40 }),
  destructive: fc.boolean(),
  resume: fc.record({
    tool: fc.constantFrom("workspace_edit", "workspace_command", "workspace_browser"),
    arguments: resumeArguments
  })
})

export interface Generated {
  readonly envelope: Record<string, JsonValue>
  readonly omissions: ReadonlyArray<string>
}

/** Every literal path of a tree: keys and indices, and keys through arrays (their transparent form). */
export const pathsOf = (value: JsonValue, prefix: string, out: Array<string>, depth = 0): Array<string> => {
  if (depth > 6 || typeof value !== "object" || value === null) return out
  if (Array.isArray(value)) {
    value.slice(0, 3).forEach((item, index) => {
      out.push(`${prefix}.${index}`)
      pathsOf(item, `${prefix}.${index}`, out, depth + 1)
      pathsOf(item, prefix, out, depth + 1)
    })
    return out
  }
  for (const key of Object.keys(value)) {
    out.push(`${prefix}.${key}`)
    pathsOf(value[key]!, `${prefix}.${key}`, out, depth + 1)
  }
  return out
}

/** An envelope with random data, maybe a staged approval, and an omit list drawn from its own paths. */
export const envelope: fc.Arbitrary<Generated> = fc
  .record({
    tool: fc.constantFrom(...tools),
    data: fc.dictionary(
      fc.constantFrom(...plainKeys, "sources", "snippets", "approvals", "jobs", "recentTransactions"),
      node,
      {
        maxKeys: 6
      }
    ),
    counters,
    approval: fc.option(approval, { freq: 2 }),
    facts: fc.array(fc.oneof(fc.string({ maxLength: 60 }), id), { maxLength: 24 }),
    summary: fc.oneof(fc.string({ maxLength: 80 }), longText)
  })
  .chain(({ approval, counters, data, facts, summary, tool }) => {
    const payload: Record<string, JsonValue> = {}
    for (const [k, v] of [...Object.entries(data), ...Object.entries(counters)]) {
      Object.defineProperty(payload, k, { value: v, enumerable: true, writable: true, configurable: true })
    }
    if (approval !== null) {
      payload["status"] = "pending_approval"
      payload["mode"] = "ask"
      payload["approval"] = approval as unknown as JsonValue
    }
    const base: Record<string, JsonValue> = {
      protocol: "agentic-workspace/v1",
      tool: tool[0],
      action: tool[1],
      ok: true,
      summary,
      data: payload,
      retention: { importance: "high", facts }
    }
    // Approval paths included: a declared omission wins inside the carried resume too (SPEC R1.11).
    const candidates = pathsOf(payload, "data", [])
    return fc
      .tuple(
        fc.subarray(candidates, { maxLength: Math.min(4, candidates.length) }),
        fc.subarray(["protocol", "retention", "", "__proto__.polluted", "data.nope.deeper", "../../etc/passwd"], {
          maxLength: 2
        })
      )
      .map(([omissions, junk]) => {
        const list = [...omissions, ...junk]
        return {
          envelope: {
            ...base,
            retention: { importance: "high", facts, ...(list.length > 0 ? { omit_when_summarizing: list } : {}) }
          },
          omissions
        }
      })
  })

/** The nodes a literal path names, arrays transparent to key segments, own keys only. */
export const resolve = (value: unknown, path: string): Array<unknown> => {
  let current: Array<unknown> = [value]
  for (const key of path.split(".")) {
    const next: Array<unknown> = []
    const visit = (node: unknown): void => {
      if (typeof node !== "object" || node === null) return
      if (Array.isArray(node)) {
        if (/^(0|[1-9]\d*)$/.test(key)) {
          if (Number(key) < node.length) next.push(node[Number(key)])
        } else node.forEach(visit)
        return
      }
      if (Object.prototype.hasOwnProperty.call(node, key)) next.push((node as Record<string, unknown>)[key])
    }
    current.forEach(visit)
    current = next
  }
  return current
}

/** A deep copy with the given literal paths removed (array entries named by index become null). */
export const withoutPaths = (value: JsonValue, paths: ReadonlyArray<string>): JsonValue => {
  const copy = JSON.parse(JSON.stringify(value)) as JsonValue
  for (const path of paths) {
    const keys = path.split(".")
    const last = keys.pop()!
    const remove = (target: unknown): void => {
      if (typeof target !== "object" || target === null) return
      if (Array.isArray(target)) {
        // Arrays are transparent to keys, at any depth; an index names an entry.
        if (!/^(0|[1-9]\d*)$/.test(last)) target.forEach(remove)
        else if (Number(last) < target.length) target[Number(last)] = null
      } else delete (target as Record<string, unknown>)[last]
    }
    resolve(copy, keys.join(".")).forEach(remove)
  }
  return copy
}

/** Every string inside a value. */
export const stringsIn = (value: unknown, out: Array<string> = []): Array<string> => {
  if (typeof value === "string") out.push(value)
  else if (typeof value === "object" && value !== null) {
    for (const child of Object.values(value)) stringsIn(child, out)
  }
  return out
}

/** Every flag or counter of a value, with its path: truncation state that must survive. */
export const truncationState = (
  value: unknown,
  path = "",
  out: Array<{ path: string; value: boolean | number }> = []
) => {
  if (typeof value !== "object" || value === null) return out
  const entries: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : Object.keys(value).map((key) => [key, (value as Record<string, unknown>)[key]])
  for (const [key, child] of entries) {
    const childPath = path === "" ? key : `${path}.${key}`
    const isFlag = typeof child === "boolean" && (key === "truncated" || key.endsWith("Truncated"))
    const isCounter = typeof child === "number" && /(Omitted|Bytes|Chars|Entries|Lines)$/.test(key)
    if (isFlag || isCounter) out.push({ path: childPath, value: child as boolean | number })
    truncationState(child, childPath, out)
  }
  return out
}
