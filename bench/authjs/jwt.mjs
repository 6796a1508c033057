#!/usr/bin/env node
// @auth/core/jwt's encode and decode, timed: the JavaScript half of authui's JWE
// micro-benchmark (bench/micro.py runs the Python half). Prints one JSON object:
// {"encode_us": mean µs per call, "decode_us": …, "calls": N}.
import { decode, encode } from "@auth/core/jwt"

const secret = process.env.BENCH_SECRET ?? "bench-secret-bench-secret-bench-secret-0123"
const salt = "authjs.session-token"
const token = { name: "Bench User", email: "bench@example.com", sub: "1" }
const calls = Number(process.env.BENCH_CALLS ?? 2000)

async function timed(fn) {
  for (let i = 0; i < Math.min(200, calls); i += 1) await fn() // warm up
  const start = process.hrtime.bigint()
  for (let i = 0; i < calls; i += 1) await fn()
  return Number(process.hrtime.bigint() - start) / 1000 / calls
}

const jwe = await encode({ token, secret, salt })
const encodeUs = await timed(() => encode({ token, secret, salt }))
const decodeUs = await timed(() => decode({ token: jwe, secret, salt }))
console.log(JSON.stringify({ encode_us: encodeUs, decode_us: decodeUs, calls }))
