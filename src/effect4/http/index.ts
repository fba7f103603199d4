/**
 * context-compressor's HTTP service on Effect 4's own `effect/http` and
 * `effect/http-api`, under the name of `context-compressor/http`: the API's
 * contract (`HttpApi`), the server that implements it over the production
 * layers (`HttpServer`), and the compaction proxy (`Proxy`), on
 * @effect/platform-node 4's Node server and client.
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as HttpApi from "../../apps/http/HttpApi.js"
/** @since 0.1.0 */
export * as HttpServer from "../../apps/http/HttpServer.js"
/** @since 0.1.0 */
export * as Proxy from "../../apps/http/Proxy.js"
