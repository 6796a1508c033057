// Rewrites are fixed when `next build` runs: API_URL must be set then, not only at start.
const api = process.env.API_URL ?? "http://127.0.0.1:8000";

/** @type {import("next").NextConfig} */
export default {
  async rewrites() {
    return [{ source: "/api/py/:path*", destination: `${api}/api/py/:path*` }];
  },
};
