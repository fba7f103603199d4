/**
 * The handler of the reduction group of the HTTP API: `POST /v1/reduce`, a
 * reduction with exact numbers in and out.
 *
 * @since 0.1.0
 */
import { HttpApiBuilder } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Reduce from "../../face/engine/Reduce.js"
import * as Json from "../../face/models/Json.js"
import * as Report from "../../face/models/Report.js"
import { builtInPolicies } from "../../face/rules/index.js"
import { exactJsonResponse, exactPayload } from "./ExactJson.js"
import * as Api from "./HttpApi.js"

/**
 * The handler of `POST /v1/reduce`: `Reduce.reduce` with the built-in policies.
 *
 * @since 0.1.0
 * @category handlers
 */
export const layerReduction = HttpApiBuilder.group(Api.Api, "reduction", (handlers) =>
  // Read and written exactly: a number of the envelope comes back as it was sent.
  handlers.handleRaw("reduce", ({ request }) =>
    Effect.flatMap(exactPayload(Api.ReduceRequest, { verbatim: ["envelope"] })(request), (payload) => {
      // A bare number kept exactly is the envelope's text, as the CLI reads a file holding only `1e400`.
      const envelope = typeof payload.envelope === "string"
        ? Json.rawNumberLiteral(payload.envelope) ?? payload.envelope
        : payload.envelope
      const reduction = Reduce.reduce(envelope, {
        policies: builtInPolicies,
        ...(payload.cap === undefined ? {} : { cap: payload.cap })
      })
      return exactJsonResponse(
        Api.ReduceResult,
        new Api.ReduceResult({
          value: reduction.value ?? null,
          text: reduction.text,
          report: reduction.report,
          totals: Report.totals(reduction.report)
        }),
        { jsonFields: ["value"] }
      )
    })))
