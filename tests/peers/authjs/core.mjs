#!/usr/bin/env node
// The real @auth/core `Auth` handler, for authui's side-by-side wire-contract tests
// (tests/test_wire_contract.py runs this file through tests/peers/authjs_node.py).
//
// Reads one JSON request from stdin:
//   {"secret": "…", "scenarios": [{"name": "…", "origin": "https://…", "steps": [step, …]}, …]}
// Each step is
//   {"method": "GET", "path": "/auth/csrf?x=1", "headers": {…}, "body": "a=1&b=2" | null,
//    "cookies": {name: raw value, …}, "jar": true}
// The scenario keeps a cookie jar across its steps (Set-Cookie stores, Max-Age=0 deletes) and
// sends it as the Cookie header unless "jar" is false; "cookies" are added on top (raw, i.e.
// already percent-encoded as they travel). In the path, header values, cookie values and body,
// "{csrf}" stands for the csrfToken of the scenario's latest `GET …/csrf` answer and
// "{jar:NAME}" for the jar's current (raw) value of cookie NAME.
//
// Writes a JSON array with one array per scenario, holding per step
//   {"status": N, "headers": {lower-cased name: [value, …]}, "body": "text",
//    "logged": ["ErrorType", …]}
// where "set-cookie" lists every Set-Cookie header and "logged" the errors Auth.js logged.
import { Auth } from "@auth/core"
import Credentials from "@auth/core/providers/credentials"

// Nothing but the result may reach stdout.
console.log = console.info = console.debug = console.warn

const USER = {
  id: "42",
  name: "Ada Lovelace",
  email: "ada@example.com",
  image: "https://x/a.png",
}

function config(secret, logged) {
  return {
    secret,
    trustHost: true,
    basePath: "/auth",
    providers: [
      Credentials({
        credentials: {
          username: { label: "Username", autocomplete: "username" },
          password: { label: "Password", type: "password" },
        },
        authorize(credentials) {
          if (credentials.username === "ada" && credentials.password === "correct horse") {
            return { ...USER }
          }
          return null
        },
      }),
    ],
    logger: {
      error(error) {
        logged.push(String(error?.type ?? error?.name ?? error))
      },
      warn() {},
      debug() {},
    },
  }
}

function cookiePair(header) {
  const [pair, ...attributes] = header.split(";")
  const at = pair.indexOf("=")
  const name = pair.slice(0, at).trim()
  const value = pair.slice(at + 1).trim()
  const deleted = attributes.some((a) => a.trim().toLowerCase() === "max-age=0")
  return { name, value, deleted }
}

function fill(text, vars, jar) {
  if (typeof text !== "string") return text
  return text
    .replaceAll("{csrf}", vars.csrf ?? "")
    .replace(/\{jar:([^}]+)\}/g, (_, name) => jar.get(name) ?? "")
}

async function runScenario(scenario, secret) {
  const jar = new Map()
  const vars = {}
  const results = []
  for (const step of scenario.steps) {
    const logged = []
    const headers = new Headers()
    for (const [k, v] of Object.entries(step.headers ?? {})) headers.set(k, fill(v, vars, jar))
    const cookies = new Map(step.jar === false ? [] : jar)
    for (const [k, v] of Object.entries(step.cookies ?? {})) cookies.set(k, fill(v, vars, jar))
    if (cookies.size > 0) {
      headers.set("cookie", [...cookies].map(([k, v]) => `${k}=${v}`).join("; "))
    }
    const init = { method: step.method, headers }
    if (step.body !== null && step.body !== undefined) init.body = fill(step.body, vars, jar)
    const request = new Request(scenario.origin + fill(step.path, vars, jar), init)
    const response = await Auth(request, config(secret, logged))
    const out = {}
    for (const [k, v] of response.headers) {
      if (k !== "set-cookie") (out[k] ??= []).push(v)
    }
    const setCookies = response.headers.getSetCookie()
    if (setCookies.length > 0) out["set-cookie"] = setCookies
    const body = await response.text()
    for (const header of setCookies) {
      const { name, value, deleted } = cookiePair(header)
      if (deleted) jar.delete(name)
      else jar.set(name, value)
    }
    if (step.method === "GET" && new URL(request.url).pathname.endsWith("/csrf")) {
      try {
        vars.csrf = JSON.parse(body).csrfToken
      } catch {}
    }
    results.push({ status: response.status, headers: out, body, logged })
  }
  return results
}

let input = ""
process.stdin.setEncoding("utf8")
for await (const piece of process.stdin) input += piece
const { secret, scenarios } = JSON.parse(input)
const answers = []
for (const scenario of scenarios) answers.push(await runScenario(scenario, secret))
process.stdout.write(JSON.stringify(answers))
