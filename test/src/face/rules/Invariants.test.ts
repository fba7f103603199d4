import { assert, describe } from "@effect/vitest"
import * as fc from "fast-check"
import * as Reduce from "../../../../src/face/engine/Reduce.js"
import { builtInPolicies } from "../../../../src/face/rules/index.js"
import * as Arb from "../../../arbitraries.js"
import { prop } from "../../../support/Property.js"

const reduce = (input: unknown, cap: number) => Reduce.reduce(input, { policies: builtInPolicies, cap })

const cap = fc.oneof(fc.integer({ min: Reduce.minimumCap, max: 6_000 }), fc.integer({ min: 6_000, max: 200_000 }))

const parseOutput = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>

const isIndex = (segment: string): boolean => /^(0|[1-9]\d*)$/.test(segment)

/** Whether an array inside an array ends with the counter of a cap: `{ "arrayEntriesOmitted": n }`. */
const endsWithCounter = (array: ReadonlyArray<unknown>): boolean => {
  const last = array[array.length - 1]
  return typeof last === "object" && last !== null && !Array.isArray(last) &&
    Object.keys(last).length === 1 && typeof (last as Record<string, unknown>)["arrayEntriesOmitted"] === "number"
}

/**
 * Paths of arrays that pass the cap (their entries, a counter at the end of an array inside an
 * array not counted), with whether their parent is an array, outside the verbatim resume.
 */
const longArrays = (
  value: unknown,
  path = "",
  parentIsArray = false,
  out: Array<{ path: string; parentIsArray: boolean; length: number }> = []
) => {
  if (typeof value !== "object" || value === null || path === "data.approval.resume") return out
  if (Array.isArray(value)) {
    const entries = parentIsArray && endsWithCounter(value) ? value.length - 1 : value.length
    if (entries > 20 && path !== "") out.push({ path, parentIsArray, length: entries })
    value.forEach((item, index) => longArrays(item, `${path}.${index}`, true, out))
    return out
  }
  for (const key of Object.keys(value)) {
    longArrays((value as Record<string, unknown>)[key], path === "" ? key : `${path}.${key}`, false, out)
  }
  return out
}

/** Whether a path of the input still exists after the array cap: no index past what the cap keeps. */
const survivesCap = (input: unknown, path: string): boolean => {
  let node: unknown = input
  let insideResume = false
  const segments = path.split(".")
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!
    if (segments.slice(0, i).join(".") === "data.approval.resume") insideResume = true
    if (Array.isArray(node)) {
      const keeps = node.length > 20 && !insideResume ? 20 : node.length
      if (Number(segment) >= keeps) return false
      node = node[Number(segment)]
    } else {
      node = (node as Record<string, unknown>)[segment]
    }
  }
  return true
}

const getExact = (value: unknown, path: string): unknown => {
  let node = value
  for (const segment of path.split(".")) {
    if (typeof node !== "object" || node === null) return undefined
    if (!Object.prototype.hasOwnProperty.call(node, Array.isArray(node) ? Number(segment) : segment)) return undefined
    node = (node as Record<string, unknown>)[segment]
  }
  return node
}

const resumeOf = (
  envelope: Record<string, unknown>
): { text: string; argumentsChars: number; id: string | undefined } | undefined => {
  const approval = getExact(envelope, "data.approval") as { id?: string; resume?: { arguments?: unknown } } | undefined
  if (approval === undefined || approval.resume === undefined) return undefined
  return {
    text: JSON.stringify(approval.resume),
    argumentsChars: JSON.stringify(approval.resume.arguments ?? null).length,
    id: approval.id
  }
}

describe("agentic-workspace/v1 invariants (SPEC R1)", () => {
  prop(
    "declared omissions never appear in the output, on the envelope and the overflow route",
    [Arb.envelope, cap],
    ([generated, cap]) => {
      const { envelope, omissions } = generated
      const result = reduce(JSON.stringify(envelope), cap)
      const output = parseOutput(result.text)
      for (const path of omissions) {
        const found = Arb.resolve(output, path)
        const last = path.split(".").pop()!
        assert.isTrue(
          found.every((node) => node === null && isIndex(last)),
          `${path} is still in the ${result.report.route} output`
        )
      }
      // No string that lived only inside an omitted payload reaches the output text. What the policy
      // writes of its own (a recovery call's "transaction_id" holds "transaction") is what it also writes
      // for the envelope that never had the payload.
      const without = Arb.withoutPaths(envelope, omissions)
      const remaining = JSON.stringify(without)
      const written = reduce(remaining, cap).text
      for (const path of omissions) {
        for (const secret of Arb.stringsIn(Arb.resolve(envelope, path))) {
          const escaped = JSON.stringify(secret).slice(1, -1)
          if (escaped.length < 8 || remaining.includes(escaped) || written.includes(escaped)) continue
          assert.isFalse(result.text.includes(escaped), `a string omitted at ${path} leaked into the output`)
        }
      }
    }
  )

  prop(
    "a kept resume is byte-identical but for the paths the envelope declares omitted; one whose arguments pass 12,000 characters becomes the recovery marker",
    [Arb.envelope, cap],
    ([generated, cap]) => {
      const { envelope, omissions } = generated
      // What the envelope lets through: its resume with the declared omissions removed, and nothing else changed.
      const declared = Arb.withoutPaths(envelope, omissions) as Record<string, unknown>
      const resume = resumeOf(declared)
      const result = reduce(JSON.stringify(envelope), cap)
      const output = parseOutput(result.text)
      const kept = getExact(output, "data.approval.resume") as Record<string, unknown> | undefined
      if (resume === undefined) {
        assert.isUndefined(kept, "a resume the envelope declares omitted reached the output")
        return
      }
      assert.isDefined(kept, "the staged approval's resume was dropped")
      if (resume.argumentsChars <= 12_000) {
        assert.strictEqual(JSON.stringify(kept), resume.text)
      } else {
        assert.strictEqual(kept!["recovery"], "workspace_inspect { action: \"changes\" }")
        if (resume.id !== undefined) assert.strictEqual(kept!["approvalId"], resume.id)
        else assert.notProperty(kept, "approvalId")
        assert.isFalse(JSON.stringify(kept).includes("\"arguments\""))
      }
      const inside = omissions.filter((path) =>
        path.startsWith("data.approval.resume.") && Arb.resolve(envelope, path).length > 0
      )
      if (inside.length > 0 && resume.argumentsChars <= 12_000) {
        const declared = result.report.rules.find((rule) => rule.rule === "omitDeclared")
        const listed = declared?.entries.some((entry) => entry.path.startsWith("data.approval.resume.")) ?? false
        // A rule's report lists its first 50 entries and counts the rest (entriesOmitted); when the
        // resume's omission is among those counted, the resume's own entry still says it lost one.
        const counted = (declared?.entriesOmitted ?? 0) > 0 &&
          result.report.rules.some((rule) =>
            rule.entries.some((entry) =>
              entry.path === "data.approval.resume" && /\d+ declared omissions? inside it/.test(entry.detail ?? "")
            )
          )
        assert.isTrue(listed || counted, "the report does not say which declared omission was removed from the resume")
      }
    }
  )

  prop("every truncation flag and counter of the input survives", [Arb.envelope, cap], ([generated, cap]) => {
    const { envelope, omissions } = generated
    const result = reduce(JSON.stringify(envelope), cap)
    const output = parseOutput(result.text)
    const expected = Arb.truncationState(Arb.withoutPaths(envelope, omissions)).filter(({ path }) =>
      survivesCap(envelope, path)
    )
    if (result.report.route === "envelope") {
      for (const { path, value } of expected) {
        assert.strictEqual(getExact(output, path), value, `${path} did not survive`)
      }
      return
    }
    const data = output["data"] as Record<string, unknown>
    const listed = (data["truncation"] ?? {}) as Record<string, unknown>
    const left = (data["truncationOmitted"] ?? 0) as number
    const expectedByPath = new Map(expected.map(({ path, value }) => [path, value]))
    // The list may also name the counters the reduction itself added (an `…Omitted` beside a capped array).
    for (const [path, value] of Object.entries(listed)) {
      if (expectedByPath.has(path)) assert.strictEqual(expectedByPath.get(path), value, `${path} listed wrongly`)
      else assert.isTrue(/Omitted$/.test(path), `${path} is listed but is no flag or counter of the input`)
    }
    const missing = [...expectedByPath.keys()].filter((path) => !(path in listed))
    assert.isAtMost(
      missing.length,
      left,
      `flags or counters went missing from the overflow list: ${missing.join(", ")}`
    )
  })

  prop(
    "no output array has more than 20 entries, and every capped array has its counter",
    [Arb.envelope, cap],
    ([generated, cap]) => {
      const { envelope, omissions } = generated
      const result = reduce(JSON.stringify(envelope), cap)
      const output = parseOutput(result.text)
      assert.deepStrictEqual(longArrays(output), [], "an output array passes 20 entries outside the verbatim resume")
      if (result.report.route !== "envelope") return
      for (const array of longArrays(Arb.withoutPaths(envelope, omissions))) {
        if (!survivesCap(envelope, array.path)) continue
        const reduced = getExact(output, array.path)
        if (!Array.isArray(reduced)) continue
        if (array.parentIsArray) {
          const last = reduced[reduced.length - 1] as Record<string, unknown>
          assert.strictEqual(last["arrayEntriesOmitted"], array.length - (reduced.length - 1))
        } else {
          const segments = array.path.split(".")
          const key = segments.pop()!
          const parent = getExact(output, segments.join(".")) as Record<string, unknown>
          const counters = Object.keys(parent).filter((k) => k.startsWith(key) && k.endsWith("Omitted") && k !== key)
          assert.isTrue(
            counters.some((k) => parent[k] === array.length - reduced.length),
            `${array.path} was capped without its counter`
          )
        }
      }
    }
  )

  prop("the output stays within the cap, plus the verbatim approval", [Arb.envelope, cap], ([generated, cap]) => {
    const result = reduce(JSON.stringify(generated.envelope), cap)
    const output = parseOutput(result.text)
    const approval = getExact(output, "data.approval")
    const carried = approval === undefined ? 0 : JSON.stringify(approval).length
    assert.strictEqual(result.report.carriedChars, carried)
    assert.isAtMost(result.text.length - carried, cap)
  })

  prop("reduction is idempotent", [Arb.envelope, cap], ([generated, cap]) => {
    const once = reduce(JSON.stringify(generated.envelope), cap)
    const twice = reduce(once.text, cap)
    assert.strictEqual(twice.text, once.text)
  })

  prop(
    "reducing a value and reducing its JSON text give the same output",
    [Arb.envelope, cap],
    ([generated, cap]) => {
      assert.strictEqual(reduce(generated.envelope, cap).text, reduce(JSON.stringify(generated.envelope), cap).text)
    }
  )
})

describe("the generic route never fails", () => {
  prop("arbitrary strings", [fc.oneof(fc.string({ unit: "binary" }), fc.string()), cap], ([text, cap]) => {
    const result = reduce(text, cap)
    assert.isAtMost(result.text.length, Math.max(cap, text.length))
    assert.isAtMost(result.text.length, cap)
    assert.strictEqual(reduce(result.text, cap).text, result.text)
  })

  prop("arbitrary JSON, as text and as a value", [fc.jsonValue(), cap], ([value, cap]) => {
    const text = JSON.stringify(value)
    const fromText = reduce(text, cap)
    const fromValue = reduce(value, cap)
    assert.isString(fromText.text)
    assert.isString(fromValue.text)
    if (fromText.report.route === "generic" && text.length <= cap) assert.strictEqual(fromText.text, text)
  })

  prop("arbitrary JavaScript values", [
    fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withTypedArray: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withBoxedValues: true
    })
  ], ([value]) => {
    const result = reduce(value, Reduce.minimumCap)
    assert.isString(result.text)
  })

  prop(
    "arbitrary JSON inside the data of an envelope",
    [fc.jsonValue(), fc.jsonValue(), cap],
    ([data, retention, cap]) => {
      const envelope = { protocol: "agentic-workspace/v1", tool: "t", action: "a", data, retention }
      const result = reduce(JSON.stringify(envelope), cap)
      assert.doesNotThrow(() => JSON.parse(result.text))
      assert.strictEqual(reduce(result.text, cap).text, result.text)
    }
  )
})
