/**
 * The import rules of docs/architecture.md, checked on the sources: `src/core/`
 * never loads the public orchestration modules, no module of `src/` reaches itself again through static imports
 * (a runtime cycle), the adapters neither throw nor catch, no module is over
 * 700 lines (the engine's face over 400), each stage of a checkpoint has
 * a test at its path and imports no later stage, and no module of `src/core/`
 * holds mutable state at module level. Type-only imports are erased by the
 * compiler and allowed.
 */
import { assert, describe, it } from "@effect/vitest"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

const repository = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const folders = ["src"] as const

const sourcesUnder = (directory: string): ReadonlyArray<string> =>
  readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : []
  })

// A static import or re-export, the whole statement up to its specifier; `import type`/`export type` are erased.
const staticImport = /^(?:import|export)\s+(type\s+)?([^;]*?)\s*from\s+"([^"]+)"|^import\s+"([^"]+)"/gm

/** The repository-relative files a source file loads at run time through static imports of relative paths. */
const runtimeImportsOf = (file: string, text: string): ReadonlyArray<string> => {
  const imports: Array<string> = []
  for (const match of text.matchAll(staticImport)) {
    const specifier = match[3] ?? match[4]!
    if (match[1] !== undefined || !specifier.startsWith(".")) continue
    // `import { type A, type B } from` is erased too.
    const names = match[2] ?? ""
    const braces = /^\{([^}]*)\}$/.exec(names.trim())
    if (
      braces !== null &&
      braces[1]!.split(",").map((name) => name.trim()).filter((name) => name !== "").every((name) =>
        name.startsWith("type ")
      )
    ) {
      continue
    }
    imports.push(relative(repository, resolve(dirname(file), specifier.replace(/\.js$/, ".ts"))))
  }
  return imports
}

const graph: ReadonlyMap<string, ReadonlyArray<string>> = new Map(
  folders.flatMap((folder) => sourcesUnder(join(repository, folder))).map((file) => [
    relative(repository, file),
    runtimeImportsOf(file, readFileSync(file, "utf8"))
  ])
)

/** Every cycle of the graph, each as the path of modules that closes it (Tarjan's strongly connected components). */
const cycles = (edges: ReadonlyMap<string, ReadonlyArray<string>>): ReadonlyArray<ReadonlyArray<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: Array<string> = []
  const components: Array<Array<string>> = []
  let counter = 0
  const visit = (node: string): void => {
    index.set(node, counter)
    low.set(node, counter)
    counter++
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!edges.has(next)) continue
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1 || (edges.get(node) ?? []).includes(node)) components.push(component.sort())
    }
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return components
}

/**
 * The stages a stage reaches through runtime imports, each with the path that reaches it: imports are
 * followed through every module that is not itself a stage, and stop at the first stage on a path.
 */
const stagesReached = (
  edges: ReadonlyMap<string, ReadonlyArray<string>>,
  stages: ReadonlyMap<string, number>,
  stage: string
): ReadonlyArray<readonly [string, ReadonlyArray<string>]> => {
  const reached: Array<readonly [string, ReadonlyArray<string>]> = []
  const seen = new Set([stage])
  const walk = (from: string, path: ReadonlyArray<string>): void => {
    for (const next of edges.get(from) ?? []) {
      if (seen.has(next)) continue
      seen.add(next)
      if (stages.has(next)) reached.push([next, [...path, next]])
      else walk(next, [...path, next])
    }
  }
  walk(stage, [stage])
  return reached
}

const stateConstructors: ReadonlySet<string> = new Set(["WeakMap", "WeakSet", "Map", "Set"])

/** Whether a `new Set(...)` is a constant lookup table: a `const` typed `ReadonlySet`, of literals (or empty). */
const isLiteralLookup = (node: ts.NewExpression): boolean => {
  const declaration = node.parent
  if (!ts.isVariableDeclaration(declaration) || declaration.initializer !== node) return false
  if (declaration.type === undefined || !/^ReadonlySet</.test(declaration.type.getText())) return false
  if ((declaration.parent.flags & ts.NodeFlags.Const) === 0) return false
  const [values, ...rest] = node.arguments ?? []
  if (rest.length > 0) return false
  return values === undefined ||
    (ts.isArrayLiteralExpression(values) &&
      values.elements.every((element) => ts.isStringLiteral(element) || ts.isNumericLiteral(element)))
}

/**
 * The module-level state of a source file: a `let` or `var` declared at module level, and a `WeakMap`,
 * `WeakSet`, `Map` or `Set` made outside any function (as `file: new WeakMap name`). A constant lookup
 * `Set` of literals typed `ReadonlySet` is no state and may stay; what a function or a class instance makes
 * is made per call.
 */
const moduleStateOf = (file: string, text: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: Array<string> = []
  const nameOf = (node: ts.Node): string => {
    const declaration = node.parent
    return ts.isVariableDeclaration(declaration) || ts.isPropertyDeclaration(declaration) ||
        ts.isPropertyAssignment(declaration)
      ? ` ${declaration.name.getText()}`
      : ""
  }
  const walk = (node: ts.Node): void => {
    if (ts.isFunctionLike(node)) return
    if (
      ts.isPropertyDeclaration(node) &&
      !node.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.StaticKeyword)
    ) return
    if (
      ts.isNewExpression(node) && ts.isIdentifier(node.expression) && stateConstructors.has(node.expression.text) &&
      !isLiteralLookup(node)
    ) {
      found.push(`${file}: new ${node.expression.text}${nameOf(node)}`)
    }
    ts.forEachChild(node, walk)
  }
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement) && (statement.declarationList.flags & ts.NodeFlags.Const) === 0) {
      const keyword = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0 ? "let" : "var"
      for (const declaration of statement.declarationList.declarations) {
        found.push(`${file}: ${keyword} ${declaration.name.getText()}`)
      }
    }
    walk(statement)
  }
  return found
}

/** A checkpoint stage's module: a pure stage of the core, or one of the engine's that runs effects. */
const stageModule = (stage: string): string =>
  graph.has(`src/core/checkpoint/${stage}.ts`)
    ? `src/core/checkpoint/${stage}.ts`
    : `src/face/engine/internal/checkpoint/${stage}.ts`

const orchestration = [
  "src/face/engine/Compactor.ts",
  "src/face/engine/Reduce.ts",
  "src/face/engine/WorkingState.ts",
  "src/face/engine/SummaryPrompt.ts"
]

describe("architecture: the import rules", () => {
  it("the reader of imports sees runtime imports and skips type-only ones", () => {
    const file = join(repository, "src/face/engine/Example.ts")
    const text = [
      `import * as Json from "../models/Json.js"`,
      `import type * as Reduce from "./Reduce.js"`,
      `import { type Compactor } from "./Compactor.js"`,
      `import { Rule, type Policy } from "../models/Rule.js"`,
      `export * from "../../core/reduce/Clip.js"`,
      `export type { Budget } from "./Budget.js"`,
      `import * as Effect from "effect/Effect"`
    ].join("\n")
    assert.deepStrictEqual(runtimeImportsOf(file, text), [
      "src/face/models/Json.ts",
      "src/face/models/Rule.ts",
      "src/core/reduce/Clip.ts"
    ])
  })

  it("the cycle finder finds a cycle and only that", () => {
    const edges = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]])
    assert.deepStrictEqual(cycles(edges), [["a", "b", "c"]])
    assert.deepStrictEqual(cycles(new Map([["a", ["b"]], ["b", []]])), [])
  })

  it("src/core/ loads none of the public orchestration modules (Compactor, Reduce, WorkingState, SummaryPrompt) at run time", () => {
    const offending = Array.from(graph).flatMap(([file, imports]) =>
      file.startsWith("src/core/")
        ? imports.filter((target) => orchestration.includes(target)).map((target) => `${file} → ${target}`)
        : []
    )
    assert.deepStrictEqual(offending, [])
  })

  it("the four adapters and the core's codecs they run neither throw nor catch", () => {
    // core/adapters/Native.ts is not among them: its formatUnknown, Effect's, catches what a value's own toString throws.
    const adapters = [
      "src/face/adapters/OpenAiChat.ts",
      "src/face/adapters/AnthropicMessages.ts",
      "src/face/adapters/AiSdkMessages.ts",
      "src/apps/effect-ai/EffectAiPrompt.ts",
      "src/core/adapters/OpenAiChat.ts",
      "src/core/adapters/AnthropicMessages.ts",
      "src/core/adapters/AnthropicBlocks.ts",
      "src/core/adapters/AiSdkMessages.ts",
      "src/core/adapters/PartsCodec.ts"
    ]
    for (const file of adapters) {
      // Comments may say "never throws"; the code may not.
      const code = readFileSync(join(repository, file), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(
        /\/\/[^\n]*/g,
        ""
      )
      assert.notMatch(code, /\bthrow\b|\btry\s*\{/, file)
    }
  })

  it("no module of src/ reaches itself again through runtime imports", () => {
    assert.ok(graph.size > 100, `read ${graph.size} modules`)
    assert.deepStrictEqual(cycles(graph), [])
  })

  it("no runtime import cycle anywhere in src/: its modules alone, every folder of it read, type-only imports left out", () => {
    const source = new Map(Array.from(graph).filter(([file]) => file.startsWith("src/")))
    const folders = new Set(Array.from(source.keys(), (file) => dirname(file)))
    for (
      const folder of [
        "src/core",
        "src/face",
        "src/face/models",
        "src/face/engine",
        "src/face/engine/internal/checkpoint",
        "src/face/services",
        "src/face/layers",
        "src/face/rules",
        "src/face/adapters",
        "src/face/adapters/internal",
        "src/apps/http",
        "src/apps/cli",
        "src/apps/promise",
        "src/apps/ai-sdk",
        "src/apps/effect-ai"
      ]
    ) {
      assert.isTrue(folders.has(folder), `${folder} was not read`)
    }
    assert.deepStrictEqual(cycles(source), [])
  })

  it("the check sees a runtime cycle through the JSON modules: with a value import of src/face/models/Json.ts added to the reader, the face's Json.ts and its reader, through the core's writer and reader, are found", () => {
    const withEdge = new Map(graph)
    withEdge.set("src/core/json/JsonReader.ts", [
      ...(graph.get("src/core/json/JsonReader.ts") ?? []),
      "src/face/models/Json.ts"
    ])
    const found = cycles(withEdge).find((cycle) => cycle.includes("src/face/models/Json.ts"))
    assert.deepStrictEqual(found?.slice().sort(), [
      "src/core/json/JsonReader.ts",
      "src/core/json/JsonTree.ts",
      "src/core/json/JsonWrite.ts",
      "src/face/models/Json.ts",
      "src/face/models/internal/JsonRead.ts"
    ])
  })

  it("the JSON reader and writer import nothing of src/face/models/Json.ts, their face, not even its types: what they share (the value type) is below all three", () => {
    const importsOf = (file: string) =>
      Array.from(readFileSync(join(repository, file), "utf8").matchAll(staticImport), (match) => match[3] ?? match[4]!)
    for (
      const file of [
        "src/face/models/internal/JsonRead.ts",
        "src/core/json/JsonReader.ts",
        "src/core/json/JsonTree.ts",
        "src/core/json/JsonWrite.ts",
        "src/core/json/JsonValue.ts"
      ]
    ) {
      assert.notInclude(
        importsOf(file).map((specifier) => relative(repository, resolve(dirname(join(repository, file)), specifier))),
        "src/face/models/Json.js",
        file
      )
    }
  })

  it("no module of src/ is over 700 lines, and the engine's face (Compactor.ts) over 400; each major's compat modules together are at most 1,600", () => {
    const lines = (file: string) => readFileSync(join(repository, file), "utf8").split("\n").length - 1
    const long = Array.from(graph.keys()).filter((file) => lines(file) > 700).map((file) =>
      `${file}: ${lines(file)} lines`
    )
    assert.deepStrictEqual(long, [])
    assert.isAtMost(lines("src/face/engine/Compactor.ts"), 400)
    // Every API difference of a major: the face's compat and those of the apps that have their own
    // (src/apps/http/compat/, src/apps/effect-ai/compat/, src/apps/cli/compat/), e.g. Effect3.ts, Http3.ts, Ai3.ts, Cli3.ts.
    for (const major of [3, 4]) {
      const compat = [
        `src/face/compat/Effect${major}.ts`,
        `src/apps/http/compat/Http${major}.ts`,
        `src/apps/effect-ai/compat/Ai${major}.ts`,
        `src/apps/cli/compat/Cli${major}.ts`
      ]
      const total = compat.reduce((sum, file) => sum + lines(file), 0)
      assert.isAtMost(
        total,
        1_600,
        `Effect ${major}'s compat: ${compat.map((file) => `${file} ${lines(file)}`).join(", ")}`
      )
    }
  })

  it("the module-state reader sees module-level let, var and maps, not what functions make nor a ReadonlySet of literals", () => {
    const text = [
      `let counter = 0`,
      `export var legacy = 1`,
      `const seen = new WeakMap<object, number>()`,
      `const table = { byId: new Map() }`,
      `const keys: ReadonlySet<string> = new Set(["a", "b"])`,
      `const none: ReadonlySet<string> = new Set()`,
      `const loose: Set<string> = new Set(["a"])`,
      `const computed: ReadonlySet<string> = new Set(names)`,
      `const make = () => ({ cache: new Map() })`,
      `function later() { let n = 0; return new WeakSet() }`,
      `class Holder { readonly cache = new Map(); static shared = new Set() }`,
      `export const memo = (): Memo => ({ made: new WeakMap() })`
    ].join("\n")
    assert.deepStrictEqual(moduleStateOf("x.ts", text), [
      "x.ts: let counter",
      "x.ts: var legacy",
      "x.ts: new WeakMap seen",
      "x.ts: new Map byId",
      "x.ts: new Set loose",
      "x.ts: new Set computed",
      "x.ts: new Set shared"
    ])
  })

  it("no module of src/core/ holds mutable state at module level: no let or var, no WeakMap, WeakSet, Map or Set made at module level (a constant lookup Set of literals typed ReadonlySet may stay); what a checkpoint remembers lives in values the engine owns", () => {
    const state = Array.from(graph.keys())
      .filter((file) => file.startsWith("src/core/"))
      .flatMap((file) => moduleStateOf(file, readFileSync(join(repository, file), "utf8")))
    // Not yet moved, and named here so that no other joins them: the reduction's memos of what a rule value
    // compiles to (R1's interpreter, keyed by the rule or policy value, no session's memory). Every front end
    // reduces through `Reduce.reduce` without a value of its own to hold them in; the matcher's automaton they
    // keep warm is what makes a stream of similar tool results cheap.
    const reductionMemos = [
      "src/core/reduce/Interpreter.ts: new WeakMap compiledCache",
      "src/core/reduce/Interpreter.ts: new WeakMap positionsCache",
      "src/core/reduce/Reduce.ts: new WeakMap collectCache"
    ]
    assert.deepStrictEqual(state, reductionMemos)
  })

  it("docs/architecture.md names every module of src/core/ and of the face's internal/ folders by its path", () => {
    const doc = readFileSync(join(repository, "docs/architecture.md"), "utf8")
    const internals = Array.from(graph.keys()).filter((file) => /^src\/(?:core\/|face\/[\w-]+\/internal\/)/.test(file))
    assert.isAbove(internals.length, 30)
    const unnamed = internals.filter((file) =>
      !doc.includes("`" + file.replace(/^src\//, "") + "`") && !doc.includes("`" + file + "`")
    )
    assert.deepStrictEqual(unnamed, [])
  })

  it("the checkpoint's stages, the pure ones in src/core/checkpoint/ and those that run effects in src/face/engine/internal/checkpoint/, each have a test at their path", () => {
    const stages = ["ViewRepair", "Restore", "Count", "CompactionPlan", "Summarise", "Ladder", "Save"]
    assert.deepStrictEqual(stages.map(stageModule), [
      "src/core/checkpoint/ViewRepair.ts",
      "src/core/checkpoint/Restore.ts",
      "src/core/checkpoint/Count.ts",
      "src/core/checkpoint/CompactionPlan.ts",
      "src/face/engine/internal/checkpoint/Summarise.ts",
      "src/core/checkpoint/Ladder.ts",
      "src/face/engine/internal/checkpoint/Save.ts"
    ])
    const missing = stages.filter((stage) =>
      !graph.has(stageModule(stage)) ||
      !existsSync(join(repository, `test/${stageModule(stage).replace(/\.ts$/, ".test.ts")}`))
    )
    assert.deepStrictEqual(missing, [])
  })

  it("no checkpoint stage imports a later stage at run time, directly or through the modules they share, in the order docs/architecture.md draws them", () => {
    const doc = readFileSync(join(repository, "docs/architecture.md"), "utf8")
    const drawn = Array.from(
      doc.matchAll(/^ {2}▼ {2}(\w+) +(\w+)[.\s]/gm),
      (match) => [match[1]!, stageModule(match[2]!)] as const
    )
    assert.deepStrictEqual(drawn.map(([stage]) => stage), [
      "repair",
      "restore",
      "count",
      "plan",
      "summarise",
      "fit",
      "save"
    ])
    const order = new Map<string, number>(drawn.map(([, module], at) => [module, at]))
    for (const module of order.keys()) assert.isTrue(graph.has(module), module)
    const later = Array.from(order).flatMap(([stage, at]) =>
      stagesReached(graph, order, stage).filter(([target]) => order.get(target)! > at).map(([, path]) =>
        path.map((file) => basename(file, ".ts")).join(" → ")
      )
    )
    assert.deepStrictEqual(later, [])
  })

  it("the stage-order walk finds a stage reached through a shared module, stops at the first stage on a path, and ignores modules no path reaches", () => {
    const edges = new Map([
      ["Count.ts", ["Shared.ts"]],
      ["Shared.ts", ["Plan.ts", "Json.ts"]],
      ["Plan.ts", ["Save.ts"]],
      ["Save.ts", []],
      ["Json.ts", []]
    ])
    const stages = new Map([["Count.ts", 0], ["Plan.ts", 1], ["Save.ts", 2]])
    assert.deepStrictEqual(stagesReached(edges, stages, "Count.ts"), [["Plan.ts", [
      "Count.ts",
      "Shared.ts",
      "Plan.ts"
    ]]])
    assert.deepStrictEqual(stagesReached(edges, stages, "Save.ts"), [])
  })

  it("src/core/ is grouped by concern: at its root only what every concern shares (Result, Steps), each folder named in docs/architecture.md's layout", () => {
    const doc = readFileSync(join(repository, "docs/architecture.md"), "utf8")
    const internal = Array.from(graph.keys()).filter((file) => file.startsWith("src/core/"))
    assert.deepStrictEqual(internal.filter((file) => dirname(file) === "src/core").sort(), [
      "src/core/Result.ts",
      "src/core/Steps.ts"
    ])
    const folders = Array.from(
      new Set(internal.map((file) => dirname(file)).filter((folder) => folder !== "src/core"))
    ).sort()
    assert.deepStrictEqual(
      folders,
      [
        "adapters",
        "block",
        "checkpoint",
        "json",
        "reduce",
        "services",
        "shell",
        "summarizer",
        "transcript",
        "working-state"
      ].map((
        name
      ) => `src/core/${name}`)
    )
    for (const folder of folders) assert.include(doc, "`" + folder.replace(/^src\//, "") + "/`", folder)
  })
})
