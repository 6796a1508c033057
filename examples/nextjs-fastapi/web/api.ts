import { getToken } from "next-auth/jwt";
import { headers as requestHeaders } from "next/headers";

// Auth.js names the cookie after the scheme of the public origin (__Secure- over HTTPS);
// NODE_ENV says nothing about it: a production build may well be served over plain HTTP.
const secureCookie = new URL(process.env.AUTH_URL ?? "http://localhost").protocol === "https:";

// Calls the Python API from the server, with the session's token as a bearer.
export async function apiFetch(path: string, init: RequestInit = {}) {
  const token = await getToken({
    req: { headers: await requestHeaders() },
    secureCookie,
    raw: true, // the token as it is in the cookie, chunks joined
  });
  const headers = new Headers(init.headers);
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return fetch(new URL(path, process.env.API_URL), { ...init, headers, cache: "no-store" });
}
