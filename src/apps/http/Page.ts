/**
 * The inspector page the server serves at `/`: the files of `web/`, with
 * their headers, and the OpenAPI description's path.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as NodePath from "node:path"
import * as NodeUrl from "node:url"
import * as Api from "./HttpApi.js"

/**
 * Where the OpenAPI description of the API is served. Like the page, it needs no token.
 *
 * @since 0.1.0
 * @category page
 */
export const openApiPath = "/v1/openapi.json"

const pageFiles: Record<string, { readonly file: string; readonly contentType: string }> = {
  "/": { file: "index.html", contentType: "text/html; charset=utf-8" },
  "/index.html": { file: "index.html", contentType: "text/html; charset=utf-8" },
  "/app.js": { file: "app.js", contentType: "text/javascript; charset=utf-8" },
  "/style.css": { file: "style.css", contentType: "text/css; charset=utf-8" }
}

// Everything the page loads is its own: no network beyond this server.
const pageHeaders = {
  "content-security-policy":
    "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "cache-control": "no-cache"
}

/**
 * Where the page is found by default: `web/` of the package, beside `src/`: two levels up from the bundled
 * program (`dist/cli/`), three from `src/apps/http/` when run from the sources, four from `dist/src/apps/http/`
 * when built.
 *
 * @since 0.1.0
 * @category page
 */
export const webDirectoryCandidates = (): ReadonlyArray<string> => {
  const here = NodePath.dirname(NodeUrl.fileURLToPath(import.meta.url))
  return [2, 3, 4].map((levels) => NodePath.resolve(here, ...Array<string>(levels).fill(".."), "web"))
}

/**
 * An error of the API as its JSON answer with a status, outside the API's own
 * handlers (the page, the guard).
 *
 * @since 0.1.0
 * @category page
 */
export const errorResponse = <A, I>(schema: Compat.Codec<A, I>, error: A, status: number) =>
  Http.jsonUnsafe(Schema.encodeSync(schema)(error), { status })

/**
 * The routes of the page: `/` (and `/index.html`), `/app.js`, `/style.css`,
 * read from `directory` at each request. They need no token: the page holds no
 * data, and asks for the token to send with its API calls.
 *
 * @since 0.1.0
 * @category page
 */
export const layerPage = (directory: string | undefined) =>
  Http.layerGetRoutes(
    Effect.gen(function*() {
      const fs = yield* Compat.FileSystem
      const found = directory !== undefined
        ? directory
        : (yield* Effect.filter(webDirectoryCandidates(), (candidate) =>
          fs.exists(NodePath.join(candidate, "index.html")).pipe(Effect.orElseSucceed(() => false))))[0]
      return Object.entries(pageFiles).map(([path, page]) => ({
        path: path as `/${string}`,
        handler: found === undefined
          ? Effect.succeed(
            errorResponse(
              Api.NotFound,
              new Api.NotFound({
                method: "GET",
                path,
                message: "the page is not installed: no web/ folder beside the package"
              }),
              404
            )
          )
          : fs.readFile(NodePath.join(found, page.file)).pipe(
            Effect.map((body) =>
              HttpServerResponse.uint8Array(body, { contentType: page.contentType, headers: pageHeaders })
            ),
            Effect.orElseSucceed(() =>
              errorResponse(
                Api.NotFound,
                new Api.NotFound({
                  method: "GET",
                  path,
                  message: `the page file ${page.file} cannot be read from ${found}`
                }),
                404
              )
            )
          )
      }))
    })
  )
