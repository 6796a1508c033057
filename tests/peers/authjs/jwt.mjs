#!/usr/bin/env node
// The real @auth/core JWT functions, for authui's interoperability tests
// (tests/peers/authjs_node.py runs this file).
//
// Reads one JSON request from stdin: an operation object, or an array of them (one node
// process then serves a whole test module). Writes one JSON result, or an array of results
// in the same order, to stdout. A failing operation answers {"error": message, "name": …}
// instead of stopping the batch.
//
// Operations:
//   {"op": "encode", "token": {…}, "secret": "s" | ["s1", "s2"], "salt": "…", "maxAge": N}
//       -> {"jwe": "…"}
//   {"op": "decode", "jwe": "…", "secret": …, "salt": "…"}
//       -> {"payload": {…} | null}
//   {"op": "getToken", "headers": {…}, "secret": …, "secureCookie": bool,
//    "cookieName": "…", "salt": "…", "raw": bool}           (all but headers optional)
//       -> {"token": {…} | "…" | null}
//   {"op": "chunk", "name": "…", "value": "…", "cookies": {…}}
//       -> {"cookies": [{"name": "…", "value": "…"}, …]}
//       The Set-Cookie list Auth.js's SessionStore writes for a session value, given the
//       request's cookies (so stale chunks come back as deletions with an empty value).
import { decode, encode, getToken } from "@auth/core/jwt"

// Nothing but the result may reach stdout.
console.log = console.info = console.debug = console.warn
const silent = { debug() {}, warn() {}, error() {} }

async function sessionStore() {
  // SessionStore is not exported; it is the module getToken itself reads chunks with.
  const url = new URL("./node_modules/@auth/core/lib/utils/cookie.js", import.meta.url)
  return (await import(url.href)).SessionStore
}

const operations = {
  async encode({ token, secret, salt, maxAge }) {
    return { jwe: await encode({ token, secret, salt, maxAge }) }
  },
  async decode({ jwe, secret, salt }) {
    return { payload: await decode({ token: jwe, secret, salt }) }
  },
  async getToken({ headers = {}, secret, secureCookie, cookieName, salt, raw }) {
    const req = new Request("http://localhost/", { headers })
    const params = { req, secret, secureCookie, raw, logger: silent }
    if (cookieName !== undefined) params.cookieName = cookieName
    if (salt !== undefined) params.salt = salt
    return { token: await getToken(params) }
  },
  async chunk({ name, value, cookies = {} }) {
    const SessionStore = await sessionStore()
    const store = new SessionStore({ name, options: {} }, cookies, silent)
    return { cookies: store.chunk(value, {}).map((c) => ({ name: c.name, value: c.value })) }
  },
}

async function run(request) {
  const operation = operations[request?.op]
  if (!operation) return { error: `unknown op ${JSON.stringify(request?.op)}`, name: "TypeError" }
  try {
    return await operation(request)
  } catch (error) {
    return { error: String(error?.message ?? error), name: String(error?.name ?? "Error") }
  }
}

let input = ""
process.stdin.setEncoding("utf8")
for await (const piece of process.stdin) input += piece
const request = JSON.parse(input)
const result = Array.isArray(request)
  ? await Promise.all(request.map(run))
  : await run(request)
process.stdout.write(JSON.stringify(result))
