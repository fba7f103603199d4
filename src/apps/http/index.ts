/**
 * The HTTP service of `context-compressor serve`: the API's contract
 * (`HttpApi`) and the server that implements it over the production layers
 * (`HttpServer`).
 *
 * @since 0.1.0
 */

/** @since 0.1.0 */
export * as HttpApi from "./HttpApi.js"
/** @since 0.1.0 */
export * as HttpServer from "./HttpServer.js"
/** @since 0.1.0 */
export * as Proxy from "./Proxy.js"
