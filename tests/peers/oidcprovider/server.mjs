// A real OpenID Connect provider (npm `oidc-provider`) for authui's browser sign-in tests.
//
// Reads one JSON object from stdin:
//   {"clients": [oidc-provider client metadata, ...],
//    "conformIdTokenClaims": true | false,   // default true (oidc-provider's default)
//    "refreshTokens": {"rotate": true, "accessTokenTtl": 60},  // optional, see below
//    "backchannelLogout": true,              // optional: the Back-Channel Logout feature
//    "revocation": true,                     // optional: the Token Revocation feature
//    "fd": 3}                                // optional: listen on this inherited socket
// then listens on 127.0.0.1 (port 0, or the socket `fd` that the caller bound and passed
// down, so that it knows the issuer before this process starts) and prints one line
// `{"issuer": "http://127.0.0.1:<port>"}` when it answers requests.
//
// Accounts: the development login page (devInteractions) accepts any login and any
// non-empty password; the account's claims are sub = the login, email =
// `<login>@example.com` (verified) and name = the login capitalised.
// Scopes: openid, profile, email. A new RS256 signing key at each start. PKCE is required
// for public clients (auth method "none") only. With "refreshTokens", every client whose
// grant_types allow refresh_token gets a refresh token (no offline_access scope or consent
// needed, and not tied to the provider's login session), each refresh issues a new one and
// retires the old when "rotate" is true, and access tokens last "accessTokenTtl" seconds.
// RP-Initiated Logout (the end_session endpoint) is on, as in oidc-provider's defaults;
// "backchannelLogout" turns on Back-Channel Logout for clients that name a
// backchannel_logout_uri. "revocation" turns on Token Revocation (RFC 7009, discovery's
// revocation_endpoint): a client may revoke the tokens issued to it, no one else's. The
// Google Fonts import of the interaction
// pages is stripped, so that the browser never leaves loopback. Errors of the provider are
// logged to stderr, one line each.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import * as http from 'node:http';

import Provider from 'oidc-provider';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
}

// Signing keys are made at each start (clients fetch the JWKS; nothing may pin them).
function signingKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  return { ...privateKey.export({ format: 'jwk' }), kid, use: 'sig' };
}

function capitalised(login) {
  return login.charAt(0).toUpperCase() + login.slice(1);
}

const GOOGLE_FONTS = /@import url\(https:\/\/fonts\.googleapis\.com\/[^)]*\);?/g;

const options = await readStdin();

let handler = (req, res) => {
  res.statusCode = 503;
  res.end('starting');
};
const server = http.createServer((req, res) => handler(req, res));
await new Promise((resolve, reject) => {
  server.once('error', reject);
  if (Number.isInteger(options.fd)) {
    server.listen({ fd: options.fd }, resolve);
  } else {
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  }
});
const issuer = `http://127.0.0.1:${server.address().port}`;

const refresh = options.refreshTokens;
const refreshSettings = refresh
  ? {
      issueRefreshToken: async (ctx, client) => client.grantTypeAllowed('refresh_token'),
      rotateRefreshToken: () => Boolean(refresh.rotate),
      expiresWithSession: async () => false,
      ttl: {
        AccessToken: refresh.accessTokenTtl ?? 3600,
        IdToken: 3600,
        AuthorizationCode: 60,
        Grant: 14 * 24 * 60 * 60,
        Interaction: 3600,
        RefreshToken: 14 * 24 * 60 * 60,
        Session: 14 * 24 * 60 * 60,
      },
    }
  : {};

const provider = new Provider(issuer, {
  ...refreshSettings,
  clients: options.clients ?? [],
  conformIdTokenClaims: options.conformIdTokenClaims ?? true,
  jwks: { keys: [signingKey()] },
  // The apps under test listen on 127.0.0.1, which oidc-provider's guard against server-side
  // request forgery refuses for its own requests (back-channel logout): drop the guard here.
  fetch: (url, { dispatcher, ...options }) => globalThis.fetch(url, options),
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  scopes: ['openid', 'profile', 'email'],
  claims: {
    openid: ['sub'],
    email: ['email', 'email_verified'],
    profile: ['name'],
  },
  features: {
    devInteractions: { enabled: true },
    rpInitiatedLogout: { enabled: true },
    backchannelLogout: { enabled: Boolean(options.backchannelLogout) },
    revocation: {
      enabled: Boolean(options.revocation),
      allowedPolicy: async (ctx, client, token) => token.clientId === client.clientId,
    },
  },
  pkce: { required: (ctx, client) => client.clientAuthMethod === 'none' },
  async findAccount(ctx, sub) {
    return {
      accountId: sub,
      async claims() {
        return {
          sub,
          email: `${sub}@example.com`,
          email_verified: true,
          name: capitalised(sub),
        };
      },
    };
  },
});

provider.use(async (ctx, next) => {
  await next();
  if (typeof ctx.body === 'string' && ctx.response.is('html')) {
    ctx.body = ctx.body.replace(GOOGLE_FONTS, '');
  }
});

for (const event of [
  'server_error',
  'authorization.error',
  'grant.error',
  'userinfo.error',
  'end_session.error',
  'backchannel.error',
  'revocation.error',
]) {
  provider.on(event, (ctx, error) => {
    const cause = error?.cause ? ` (${error.cause.code ?? ''} ${error.cause.message ?? error.cause})` : '';
    const detail = (error?.error_description ?? '') + cause;
    console.error(`oidc-provider ${event}: ${error?.message ?? error} ${detail}`.trim());
  });
}

// One line per token issued at the token endpoint, for tests that count refreshes.
provider.on('grant.success', (ctx) => {
  console.error(`oidc-provider-grant ${ctx.oidc.params.grant_type}`);
});

handler = provider.callback();
process.stdout.write(`${JSON.stringify({ issuer })}\n`);

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
