/**
 * The inspector page in headless Chromium against a real server whose
 * summariser fails: an attended compaction's question with its two buttons,
 * and the divider drawn when a live `compacted` event arrives for the session
 * the page shows. Screenshots go to test-artifacts/inspector/. Skipped, saying
 * why, where Chromium is absent.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import * as Server from "../../src/apps/http/HttpServer.js"
import * as SummarizerOffline from "../../src/face/layers/SummarizerOffline.js"
import * as Summarizer from "../../src/face/services/Summarizer.js"

const repository = NodeUrl.fileURLToPath(new URL("../..", import.meta.url))
const chromiumPath = process.env["CONTEXT_COMPRESSOR_CHROMIUM"] ?? "/usr/bin/chromium"
const artifacts = NodePath.join(repository, "test-artifacts/inspector")
const session: ReadonlyArray<Record<string, unknown>> = JSON.parse(
  Fs.readFileSync(NodePath.join(repository, "examples/session/agent-session.json"), "utf8")
)

/** The offline summariser, except that calls listed in `failing` (1-based) fail as an unavailable server. */
const failingCalls = (failing: ReadonlySet<number>) => {
  let calls = 0
  return Layer.effect(
    Summarizer.Summarizer,
    Effect.map(Summarizer.Summarizer, (offline) => ({
      summarize: (request: Summarizer.SummaryRequest) =>
        Effect.suspend(() =>
          failing.has(++calls)
            ? Effect.fail(
              new Summarizer.SummarizerError({
                reason: "unavailable",
                message: `the model server is down (call ${calls})`
              })
            )
            : offline.summarize(request)
        )
    }))
  ).pipe(Layer.provide(SummarizerOffline.layer))
}

const waitForText = (page: Page, selector: string, text: string) =>
  page.waitForFunction(
    ([selector, text]) => (globalThis as any).document.querySelector(selector)?.textContent.includes(text),
    [selector, text] as const,
    { polling: 100 }
  )

if (!Fs.existsSync(chromiumPath)) {
  describe("the inspector page's questions and live dividers in Chromium", () => {
    it.skip(`needs Chromium at ${chromiumPath} (apt-get install -y chromium, or set CONTEXT_COMPRESSOR_CHROMIUM)`, () => {})
  })
} else {
  describe("the inspector page's questions and live dividers in Chromium", () => {
    let scope: Scope.CloseableScope
    let base: string
    let directory: string
    let context: BrowserContext
    let profile: string
    let page: Page
    const errors: Array<string> = []

    beforeAll(async () => {
      Fs.mkdirSync(artifacts, { recursive: true })
      directory = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-e2e-attended-"))
      profile = Fs.mkdtempSync(NodePath.join(Os.tmpdir(), "context-compressor-chromium-"))
      scope = Effect.runSync(Scope.make())
      // Calls 1–2 fail (the question) and 3 passes (its Retry); 4–5 fail (the second question) and 6 too (its Retry, then Trim).
      const summarizer = failingCalls(new Set([1, 2, 4, 5, 6]))
      const built = await Effect.runPromise(
        Layer.buildWithScope(Server.layerNode({ port: 0, directory, env: () => ({}), summarizer }), scope)
      )
      const address = Context.get(built, HttpServer.HttpServer).address
      if (address._tag !== "TcpAddress") throw new Error("not a TCP address")
      base = `http://127.0.0.1:${address.port}`
      context = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        viewport: { width: 1280, height: 900 },
        args: [
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync"
        ]
      })
      page = context.pages()[0] ?? (await context.newPage())
      page.setDefaultTimeout(15_000)
      page.on("pageerror", (error) => errors.push(error.message))
      page.on("console", (message) => {
        if (message.type() === "error" && !message.text().startsWith("Failed to load resource")) {
          errors.push(message.text())
        }
      })
      await page.goto(base)
      await waitForText(page, "#events-status", "(live)")
    }, 60_000)

    afterAll(async () => {
      await context?.close()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      Fs.rmSync(directory, { recursive: true, force: true })
      Fs.rmSync(profile, { recursive: true, force: true })
    })

    it("an attended compaction whose summariser failed twice shows the question with Retry and Trim; Retry shows the summary's result", async () => {
      await page.fill("#transcript", JSON.stringify(session.slice(0, 120)))
      await page.fill("#window", "64000")
      await page.fill("#session-id", "asked")
      await page.check("#attended")
      await page.click("#compact")
      await page.waitForSelector("#question-card:not([hidden])")
      assert.include(await page.textContent("#question-problem"), "the model server is down (call 2)")
      assert.include(await page.textContent("#question-deadline"), "trimmed")
      assert.isTrue(await page.locator("#question-retry").isVisible())
      assert.isTrue(await page.locator("#question-trim").isVisible())
      await page.locator("#question-card").screenshot({ path: NodePath.join(artifacts, "question.png") })
      await page.click("#question-retry")
      await page.waitForSelector("#results:not([hidden])")
      assert.isTrue(await page.locator("#question-card").isHidden())
      assert.include(await page.textContent("#summary"), "summary by the summariser (3 calls)")
    })

    it("Trim, after a Retry that failed again, shows the trimmed result", async () => {
      // Another span than the first test's: its summary is not in the cache.
      await page.fill("#transcript", JSON.stringify(session.slice(0, 140)))
      await page.fill("#session-id", "trimmed")
      await page.click("#compact")
      await page.waitForSelector("#question-card:not([hidden])")
      await page.click("#question-retry")
      await waitForText(page, "#question-problem", "call 6")
      await page.click("#question-trim")
      await waitForText(page, "#summary", "trimmed without a summary")
      assert.isTrue(await page.locator("#question-card").isHidden())
      await page.uncheck("#attended")
    })

    it("a live compaction of the session the page shows draws its divider before the first message it kept; another session's draws none", async () => {
      const shown = session.slice(0, 120)
      await page.fill("#transcript", JSON.stringify(shown))
      await page.fill("#window", "128000")
      await page.fill("#session-id", "watched")
      await page.click("#compact")
      await waitForText(page, "#summary", "under the trigger: unchanged")
      assert.strictEqual(await page.locator("[data-testid=live-compacted-divider]").count(), 0)

      const post = async (body: unknown) =>
        (await fetch(`${base}/v1/compact`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })).json() as Promise<any>
      await post({ transcript: shown, sessionId: "someone-else", window: 32_000 })
      await waitForText(page, "#events", "someone-else: compaction #1")
      assert.strictEqual(await page.locator("[data-testid=live-compacted-divider]").count(), 0)

      // An agent posts the session the page shows, at a smaller window: it is compacted elsewhere.
      const elsewhere = await post({ transcript: shown, sessionId: "watched", window: 32_000 })
      const boundaryId = elsewhere.report.compacted.boundary.id
      const divider = page.locator("[data-testid=live-compacted-divider]")
      await divider.waitFor()
      assert.strictEqual(await divider.count(), 1)
      assert.include(await divider.textContent(), "context compacted (live, #1)")
      assert.strictEqual(
        await divider.evaluate((element) => (element.nextElementSibling as any)?.dataset.id),
        boundaryId
      )
      assert.isAbove(await page.locator("#view li.message.replaced").count(), 0)
      await divider.scrollIntoViewIfNeeded()
      await page.screenshot({ path: NodePath.join(artifacts, "live-divider.png") })
      assert.deepStrictEqual(errors, [], "no script errors or policy violations on the page")
    })
  })
}
