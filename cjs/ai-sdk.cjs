"use strict"
// context-compressor/ai-sdk for CommonJS: the middleware and the prepareStep helper load the
// package's ES module with import() on their first call (Node 20 cannot require() it), and are
// made there from the options given; a wrong option rejects that first call.
const load = () => import("../dist/bundle/ai-sdk.js")
exports.load = load
exports.providerOptionsKey = "context-compressor"
const lazily = (make) => {
  let made
  return {
    get: async () => (made ??= load().then(make)),
    close: async () => (made === undefined ? undefined : (await made).close())
  }
}
exports.compactionMiddleware = (options) => {
  const middleware = lazily((module) => module.compactionMiddleware(options))
  return {
    middlewareVersion: "v2",
    specificationVersion: "v4",
    transformParams: async (call) => (await middleware.get()).transformParams(call),
    close: middleware.close
  }
}
exports.compactionPrepareStep = (options) => {
  const prepareStep = lazily((module) => module.compactionPrepareStep(options))
  return Object.assign(async (step) => (await prepareStep.get())(step), { close: prepareStep.close })
}
