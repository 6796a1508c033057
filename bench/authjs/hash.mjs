#!/usr/bin/env node
// The peer of authui's password-hash benchmark (bench/passwords.py runs the Python half):
// Better Auth's default password hash, timed one call after the other.
//
// Better Auth (better-auth 1.2 to 1.4, packages/better-auth/src/crypto/password.ts) hashes
// with scrypt, N = 16384, r = 16, p = 1, a 64-byte key, over the NFKC form of the
// password, with a salt of 16 random bytes written as hex (the hex string is the salt),
// stored as "salt:key" in hex; a verify derives the key again and compares it in constant
// time. Better Auth runs scrypt in JavaScript (@noble/hashes' scryptAsync, on the event
// loop); this script runs the same parameters through node:crypto's native scrypt (in
// libuv's thread pool), so its times are those parameters at native speed, without a new
// npm dependency.
//
// Environment: BENCH_CALLS (calls of each, one after the other, after one to warm up; 10 by
// default). Prints one JSON object: {"hash": times, "verify": times}, each times
// {"walls_ms": [the wall time of each call], "cpu_ms": the process's CPU time over the
// calls, every thread}.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

const N = 16384
const r = 16
const p = 1
const keyLength = 64
// scrypt needs a little over 128·N·r bytes (32 MiB), above node's default limit: twice
// that, the limit Better Auth sets too.
const maxmem = 2 * 128 * N * r
const password = "bench-password-1"
const calls = Number(process.env.BENCH_CALLS ?? 10)

function derive(secret, salt) {
  return new Promise((resolve, reject) => {
    scrypt(secret.normalize("NFKC"), salt, keyLength, { N, r, p, maxmem }, (error, key) => {
      if (error) reject(error)
      else resolve(key)
    })
  })
}

async function hash(secret) {
  const salt = randomBytes(16).toString("hex")
  const key = await derive(secret, salt)
  return `${salt}:${key.toString("hex")}`
}

async function verify(stored, secret) {
  const [salt, keyHex] = stored.split(":")
  const key = await derive(secret, salt)
  return timingSafeEqual(key, Buffer.from(keyHex, "hex"))
}

async function timed(call) {
  await call() // warm up
  const walls = []
  const cpuBefore = process.cpuUsage()
  for (let i = 0; i < calls; i += 1) {
    const start = process.hrtime.bigint()
    await call()
    walls.push(Number(process.hrtime.bigint() - start) / 1e6)
  }
  const cpu = process.cpuUsage(cpuBefore)
  return { walls_ms: walls, cpu_ms: (cpu.user + cpu.system) / 1000 }
}

const stored = await hash(password)
if (!(await verify(stored, password)) || (await verify(stored, "not-the-password"))) {
  throw new Error("the scrypt verify does not tell the password from another")
}
const hashTimes = await timed(() => hash(password))
const verifyTimes = await timed(async () => {
  if (!(await verify(stored, password))) throw new Error("the password did not verify")
})
console.log(JSON.stringify({ hash: hashTimes, verify: verifyTimes }))
