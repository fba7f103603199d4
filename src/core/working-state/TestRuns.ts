/**
 * Test runs: whether a command line runs tests, and which tests its output
 * reports failing.
 *
 * @since 0.1.0
 */
import * as Clip from "../reduce/Clip.js"
import { scanWindow } from "./ToolResultRead.js"

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
export const isTestCommand = (command: string): boolean =>
  testCommand.test(command.length > 4_000 ? command.slice(0, 4_000) : command)

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
