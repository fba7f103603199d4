"use strict"
// context-compressor/ai-sdk for CommonJS: the middleware and the prepareStep helper load the
// package's ES module with import() on their first call (Node 20 cannot require() it).
const load = () => import("../dist/src/ai-sdk/index.js")
exports.load = load
exports.providerOptionsKey = "context-compressor"
exports.compactionMiddleware = (options) => ({
  middlewareVersion: "v2",
  transformParams: async (call) => (await load()).compactionMiddleware(options).transformParams(call)
})
exports.compactionPrepareStep = (options) => async (step) => (await load()).compactionPrepareStep(options)(step)
