/**
 * The work behind `Reduce` (the public face, which documents each export):
 * routing a tool result to the first policy that accepts it (the envelope
 * route), its overflow when the reduced envelope still passes the cap (the
 * overflow route), or head-and-tail clipping for anything no policy accepts
 * (the generic route). Total: every input gets an output and a report.
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Json from "../json/JsonTree.js"
import * as Result from "../Result.js"
import * as Ids from "../working-state/Ids.js"
import * as Clip from "./Clip.js"
import * as GenericJson from "./GenericJson.js"
import * as Interpreter from "./Interpreter.js"
import * as Recorder from "./Recorder.js"
import * as RuleData from "./RuleData.js"

/**
 * What `reduce` takes, over the core's shapes (`Reduce.Options` is the face's, with its
 * `Policy` classes).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly policies: ReadonlyArray<RuleData.Policy>
  readonly cap?: number
  readonly maxDepth?: number
}

/**
 * What `reduce` gives (`Reduce.Reduction` is the face's, with its `Report`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Reduction {
  readonly value: Json.Json | undefined
  readonly text: string
  readonly report: {
    readonly route: "envelope" | "overflow" | "generic"
    readonly policy: string | null
    readonly cap: number
    readonly inputChars: number
    readonly outputChars: number
    readonly carriedChars: number
    readonly rules: ReadonlyArray<RuleData.RuleReport>
    readonly notes: ReadonlyArray<string>
  }
}

/**
 * Removes every path the envelope lists in `retention.omit_when_summarizing`,
 * over every other rule, the staged approval included (SPEC R1.2, R1.11). The
 * list only grants omission: its paths are literal (no globs), resolve against
 * the envelope's own keys, and may not name the header or the retention block.
 * The built-in policy composes it first (`src/face/rules/Omissions.ts`). Its parts, from
 * which each face builds its `omitDeclared` rule.
 *
 * @since 0.1.0
 * @category rules
 */
export const declaredOmissions = {
  at: "retention.omit_when_summarizing",
  refuse: RuleData.envelopeHeaderKeys,
  name: "omitDeclared",
  reason:
    "the tool declared this path in retention.omit_when_summarizing; a declared omission wins over every other rule"
} as const

// The rule of `declaredOmissions` as the core's plain data; each face builds its own value of it.
const omitDeclared: RuleData.Rule = {
  _tag: "Decide",
  name: declaredOmissions.name,
  reason: declaredOmissions.reason,
  selector: { _tag: "Declared", at: declaredOmissions.at, refuse: declaredOmissions.refuse },
  decision: { _tag: "Omit" }
}

/**
 * A value without the paths its envelope declares omitted ({@link omitDeclared}),
 * everything else as it is (the same object when nothing is omitted): what a
 * reader of raw tool results (the working state, the offline summariser, the
 * view's ladder) reads instead of the envelope, so a declared omission reaches
 * no output (SPEC R1.2).
 *
 * @since 0.1.0
 * @category reducing
 */
export const withoutDeclaredOmissions = <A>(value: A): A => {
  const declared = Json.getPath(value, "retention.omit_when_summarizing")
  if (declared === undefined || declared === null || (Array.isArray(declared) && declared.length === 0)) return value
  return Interpreter.interpret(omitDeclared, value, { shareUnchanged: true }).value as A
}

/**
 * The default cap, in characters of compact JSON: about 8,000 tokens, room for
 * every example envelope of the protocol to take the envelope route.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultCap = 32_000

/**
 * The smallest cap accepted: below it the overflow list's own header would not fit.
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumCap = 1_000

/**
 * The cap a reduction uses: the given one, at least {@link minimumCap}; the
 * default where none (or NaN) is given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const resolveCap = (cap: number | undefined): number =>
  cap === undefined || Number.isNaN(cap) ? defaultCap : Math.max(Math.floor(cap), minimumCap)

const carriedChars = (policy: RuleData.Policy, value: unknown): number =>
  policy.carry.reduce((total, path) => {
    const carried = Json.getPath(value, path)
    return carried === undefined ? total : total + (Json.size(carried) ?? 0)
  }, 0)

const setPath = (target: Record<string, unknown>, path: string, value: unknown): void => {
  const keys = path.split(".")
  let current = target
  keys.slice(0, -1).forEach((key) => {
    const next = Json.getOwn(current, key)
    if (Json.isObject(next)) {
      current = next as Record<string, unknown>
    } else {
      const created: Record<string, unknown> = {}
      Json.setOwn(current, key, created)
      current = created
    }
  })
  Json.setOwn(current, keys[keys.length - 1]!, value)
}

const recoveryCalls = (spec: RuleData.RecoveryList, ids: ReadonlyArray<string>): ReadonlyArray<Json.JsonObject> => {
  const calls: Array<Json.JsonObject> = []
  for (const call of spec.calls) {
    if (call.forEach !== undefined) continue
    if (call.onlyIf !== undefined && !ids.some((id) => id.startsWith(call.onlyIf!))) continue
    calls.push({ tool: call.tool, arguments: { ...call.arguments } })
  }
  for (const id of ids) {
    for (const call of spec.calls) {
      if (call.forEach === undefined || !id.startsWith(call.forEach)) continue
      const args: Record<string, string> = { ...call.arguments }
      Json.setOwn(args, call.idArgument ?? "id", id)
      calls.push({ tool: call.tool, arguments: args })
    }
  }
  return calls
}

/** Recovery lists, facts and listed values stop at the generic array cap. */
const listLimit = 20
/** Room kept for the counters of what did not fit. */
const counterReserve = 96

const buildRecoveryList = (
  spec: RuleData.RecoveryList,
  policy: RuleData.Policy,
  envelope: unknown,
  reduced: Json.Json,
  preserved: ReadonlyArray<{ readonly path: string; readonly value: Json.Json }>,
  cap: number,
  reducedChars: number,
  atLeast: string,
  maxDepth: number
): Json.JsonObject => {
  // Ids come from the omission-stripped copy: a declared omission is never walked back in.
  const omissions = RuleData.activeRules(policy.rule, envelope).filter((rule) => rule.decision._tag === "Omit")
  const stripped = omissions.length === 0
    ? envelope
    : Interpreter.interpret({ _tag: "All", rules: omissions }, envelope, { maxDepth, shareUnchanged: true }).value
  const ids = Ids.ids(stripped, maxDepth).filter((id) => spec.idPrefixes.some((prefix) => id.startsWith(prefix)))

  const out: Record<string, unknown> = {}
  for (const path of spec.header) {
    const value = Json.getPath(reduced, path)
    if (typeof value === "string") setPath(out, path, Clip.label(value, path === "summary" ? 160 : 64))
    else if (typeof value === "boolean" || typeof value === "number") setPath(out, path, value)
  }
  for (const path of policy.carry) {
    const value = Json.getPath(reduced, path)
    if (value !== undefined) setPath(out, path, value)
  }
  const carried = carriedChars(policy, out)
  const measure = (): number => (Json.size(out) ?? Number.POSITIVE_INFINITY) - carried

  setPath(out, "data.overflow", {
    reason:
      `the reduced envelope has ${atLeast}${reducedChars} characters, over the cap of ${cap}: the calls in data.recovery re-read what was left out`,
    reducedChars,
    capChars: cap
  })
  const recovery: Array<Json.Json> = []
  setPath(out, "data.recovery", recovery)
  const facts: Array<Json.Json> = []
  const listedFacts = spec.facts === undefined ? undefined : Json.getPath(reduced, spec.facts)
  if (spec.facts !== undefined && Array.isArray(listedFacts) && listedFacts.length > 0) setPath(out, spec.facts, facts)
  const truncation: Record<string, unknown> = {}
  if (preserved.length > 0) setPath(out, "data.truncation", truncation)

  let used = measure()
  const fits = (cost: number): boolean => used + cost + counterReserve <= cap
  // In order of what the model needs first: the call that lists every pending
  // change, the producer's own facts, the small records it plans around, the
  // other recovery calls, then the truncation flags and counters.
  const calls = recoveryCalls(spec, ids)
  let callsLeft = 0
  const addCall = (call: Json.JsonObject): void => {
    const cost = (Json.size(call) ?? 0) + 1
    if (recovery.length < listLimit && fits(cost)) {
      recovery.push(call)
      used += cost
    } else callsLeft++
  }
  calls.slice(0, 1).forEach(addCall)
  let factsLeft = 0
  for (const fact of Array.isArray(listedFacts) ? listedFacts : []) {
    const cost = (Json.size(fact) ?? 0) + 1
    if (facts.length < listLimit && fits(cost)) {
      facts.push(fact as Json.Json)
      used += cost
    } else factsLeft++
  }
  for (const path of spec.essentials) {
    const value = Json.getPath(reduced, path)
    const parent = Json.getPath(out, path.split(".").slice(0, -1).join("."))
    const key = path.split(".").pop()!
    if (value === undefined || !Json.isObject(parent) || Json.getOwn(parent, key) !== undefined) continue
    const cost = JSON.stringify(key).length + 2 + (Json.size(value) ?? Number.POSITIVE_INFINITY)
    if (fits(cost)) {
      Json.setOwn(parent as Record<string, unknown>, key, value)
      used += cost
    }
  }
  calls.slice(1).forEach(addCall)
  let truncationLeft = 0
  for (const entry of preserved) {
    const cost = JSON.stringify(entry.path).length + 2 + (Json.size(entry.value) ?? 0)
    if (fits(cost) && !Object.prototype.hasOwnProperty.call(truncation, entry.path)) {
      Json.setOwn(truncation, entry.path, entry.value)
      used += cost
    } else truncationLeft++
  }
  if (callsLeft > 0) setPath(out, "data.recoveryOmitted", callsLeft)
  if (factsLeft > 0 && spec.facts !== undefined) setPath(out, `${spec.facts}Omitted`, factsLeft)
  if (truncationLeft > 0) setPath(out, "data.truncationOmitted", truncationLeft)
  // The estimates above are exact for compact JSON; this only guards against a miscount.
  while (measure() > cap && (recovery.length > 0 || facts.length > 0)) {
    if (facts.length > 0) facts.pop()
    else recovery.pop()
  }
  return out as Json.JsonObject
}

const generic = (
  text: string,
  cap: number,
  notesSoFar: ReadonlyArray<string | undefined>,
  policy: string | null,
  rules: ReadonlyArray<RuleData.RuleReport> = [],
  parsedAlready?: Json.Json
): Reduction => {
  const earlier = notesSoFar.filter((note): note is string => note !== undefined)
  if (text.length > cap && policy === null) {
    // JSON no policy accepts stays JSON: the generic JSON policy, not text clipping.
    const json = parsedAlready ??
      (/^\s*[[{]/.test(text.slice(0, 1_024)) ? Result.getOrUndefined(JsonReader.read(text)) : undefined)
    if (json !== undefined && typeof json === "object" && json !== null) {
      const fitted = GenericJson.fit(json, cap)
      if (fitted !== undefined) {
        return {
          value: fitted.shrunk.value,
          text: fitted.text,
          report: {
            route: "generic",
            policy: null,
            cap,
            inputChars: text.length,
            outputChars: fitted.text.length,
            carriedChars: 0,
            rules,
            notes: [
              ...earlier,
              `${GenericJson.describe(fitted.shrunk)}: ${text.length} → ${fitted.text.length} characters`
            ]
          }
        }
      }
      earlier.push("even the tightest generic JSON policy passes the cap: clipped as text")
    }
  }
  const { omitted, text: output } = Clip.headTailCounted(text, cap)
  const notes = [
    ...earlier,
    omitted === 0
      ? earlier.some((note) => note.includes("replaced by markers"))
        ? `within the cap: not clipped (${text.length} characters)`
        : `within the cap: passed through unchanged (${text.length} characters)`
      : `clipped head and tail: ${omitted} of ${text.length} characters cut`
  ]
  // Only text that can be JSON is parsed for `value`: a failed parse is costly,
  // and most generic tool results are plain text.
  const parsed = output !== text
    ? undefined
    : parsedAlready !== undefined
    ? Result.ok(parsedAlready)
    : /^\s*[[{"\d-]/.test(text.slice(0, 1_024))
    ? JsonReader.read(text)
    : undefined
  return {
    value: parsed === undefined ? undefined : Result.getOrUndefined(parsed),
    text: output,
    report: {
      route: policy === null ? "generic" : "overflow",
      policy,
      cap,
      inputChars: text.length,
      outputChars: output.length,
      carriedChars: 0,
      rules,
      notes
    }
  }
}

const safeText = (input: unknown, maxDepth: number): { readonly text: string; readonly note: string | undefined } => {
  if (typeof input === "string") return { text: input, note: undefined }
  try {
    const { cut, json } = Json.fromUnknown(input, maxDepth)
    return {
      text: Json.stringify(json),
      note: cut === 0
        ? undefined
        : `${cut} subtree(s) nested deeper than ${maxDepth} levels or circular were replaced by markers`
    }
  } catch (error) {
    return {
      text: "[a value that cannot be serialised]",
      note: `the value cannot be serialised (${error instanceof Error ? error.message : String(error)})`
    }
  }
}

// The selectors of a policy's preserved flags and counters, made once per policy value.
const collectCache = new WeakMap<RuleData.Policy, ReadonlyArray<RuleData.Path>>()

const collectedBy = (policy: RuleData.Policy): ReadonlyArray<RuleData.Path> => {
  let collect = collectCache.get(policy)
  if (collect === undefined) {
    const overflow = policy.overflow
    collect = overflow._tag === "RecoveryList"
      ? overflow.preserve.map((p): RuleData.Path =>
        p.valueType === undefined
          ? { _tag: "Path", pattern: p.pattern }
          : { _tag: "Path", pattern: p.pattern, valueType: p.valueType }
      )
      : []
    collectCache.set(policy, collect)
  }
  return collect
}

const reduceValue = (
  input: unknown,
  text: string | undefined,
  options: Options,
  cap: number
): { readonly result: Reduction; readonly lossyIntegers: boolean } => {
  const maxDepth = options.maxDepth ?? Interpreter.defaultMaxDepth
  const policy = RuleData.select(options.policies, input)
  if (policy === undefined) {
    const safe = text === undefined ? safeText(input, maxDepth) : { text, note: undefined }
    // Text parsed (exactly) is reused as the value.
    const reusable = text !== undefined ? (input as Json.Json) : undefined
    return {
      result: generic(safe.text, cap, ["no policy accepts this input: generic route", safe.note], null, [], reusable),
      lossyIntegers: false
    }
  }
  const recorder = new Recorder.Recorder()
  const overflow = policy.overflow
  const collect = collectedBy(policy)
  // Parsed text is plain JSON and private to this call: unchanged parts need no copy.
  const { collected, lossyIntegers, minimumChars, value: reduced } = Interpreter.interpret(policy.rule, input, {
    maxDepth,
    recorder,
    collect,
    shareUnchanged: text !== undefined
  })
  const notes: Array<string> = []
  const rulesSoFar = recorder.rules()
  for (const path of policy.carry) {
    if (Json.getPath(input, path) !== undefined && Json.getPath(reduced, path) === undefined) {
      notes.push(
        `${path} was present in the input and removed by a declared omission (retention.omit_when_summarizing)`
      )
      continue
    }
    // An omission inside a carried value wins over the carry (SPEC R1.11): say where.
    const inside = rulesSoFar.flatMap((rule) =>
      rule.entries.filter((entry) => entry.action === "omitted" && entry.path.startsWith(path + ".")).map((entry) =>
        entry.path
      )
    )
    if (inside.length > 0) {
      notes.push(
        `${path} is carried without ${
          inside.length === 1 ? "the path" : "the paths"
        } the envelope declares omitted inside it (retention.omit_when_summarizing): ${inside.slice(0, 5).join(", ")}${
          inside.length > 5 ? ", …" : ""
        }`
      )
    }
  }
  const inputChars = text?.length ?? Json.size(Json.fromUnknown(input, maxDepth).json) ?? 0
  const carried = carriedChars(policy, reduced)
  // Far over the cap, the walk's lower bound says so without serialising the reduced envelope.
  const overByBound = minimumChars - carried > cap
  const reducedText = overByBound ? undefined : Json.stringify(reduced)
  const reducedChars = reducedText?.length ?? minimumChars
  const atLeast = overByBound ? "at least " : ""
  if (reducedText !== undefined && reducedChars - carried <= cap) {
    const output = reducedText
    const result: Reduction = {
      value: reduced,
      text: output,
      report: {
        route: "envelope",
        policy: policy.name,
        cap,
        inputChars,
        outputChars: output.length,
        carriedChars: carried,
        rules: recorder.rules(),
        notes
      }
    }
    return { result, lossyIntegers }
  }
  if (overflow._tag === "ClipText") {
    const result = generic(
      reducedText ?? Json.stringify(reduced),
      cap,
      [`the reduced envelope has ${reducedChars} characters, over the cap`],
      policy.name,
      recorder.rules()
    )
    return { result, lossyIntegers }
  }
  // Carried values are in the output whole; their counters need no second listing.
  const preserved = collected.filter((entry) =>
    !policy.carry.some((path) => entry.path === path || entry.path.startsWith(path + "."))
  )
  const list = buildRecoveryList(overflow, policy, input, reduced, preserved, cap, reducedChars, atLeast, maxDepth)
  const output = Json.stringify(list)
  notes.push(
    `the reduced envelope has ${atLeast}${reducedChars} characters (${carried} of them carried), over the cap of ${cap}: emitted the recovery list`
  )
  const result: Reduction = {
    value: list,
    text: output,
    report: {
      route: "overflow",
      policy: policy.name,
      cap,
      inputChars,
      outputChars: output.length,
      carriedChars: carriedChars(policy, list),
      rules: recorder.rules(),
      notes
    }
  }
  return { result, lossyIntegers }
}

/**
 * Reduces a tool result. A string is read as JSON text (text that is not JSON
 * takes the generic route); any other value is taken as parsed JSON. Never
 * throws: a failure inside the rules falls back to the generic route, with a
 * note saying so.
 *
 * @since 0.1.0
 * @category reducing
 */
export const reduce = (input: unknown, options: Options): Reduction => {
  const cap = resolveCap(options.cap)
  try {
    if (typeof input === "string") {
      // A policy accepts objects only: text that does not open like one is not parsed.
      if (!/^\s*\{/.test(input.slice(0, 1_024))) {
        return generic(input, cap, ["not JSON text of an object (no policy can accept it): generic route"], null)
      }
      // Exact (numbers a double cannot hold kept as placeholders) only when the
      // text may hold such a literal; otherwise the native parse.
      const parsed = JsonReader.read(input)
      if (parsed._tag === "Err") return generic(input, cap, [`not JSON (${parsed.error}): generic route`], null)
      const reduction = reduceValue(parsed.value, input, options, cap)
      if (!reduction.lossyIntegers) return reduction.result
      return reduceValue(Result.getOrThrow(JsonReader.read(input)), input, options, cap).result
    }
    return reduceValue(input, undefined, options, cap).result
  } catch (error) {
    const safe = safeText(input, options.maxDepth ?? Interpreter.defaultMaxDepth)
    return generic(
      safe.text,
      cap,
      [
        `the rules failed on this input (${error instanceof Error ? error.message : String(error)}): generic route`,
        safe.note
      ],
      null
    )
  }
}
