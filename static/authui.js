// authui browser client: sessions, sign-in and sign-out from the page's own scripts.
//
// Plain ES2020, no dependencies, no build step; load it as a classic script
// (<script src=".../authui.js" defer>) and use window.authui. It speaks the same HTTP as the
// next-auth/react client: GET <base>/csrf, /session, /providers, and form POSTs carrying
// `X-Auth-Return-Redirect: 1`, to which the server answers {"url": ...} instead of a 302.
// CSP-friendly: no eval, no inline handlers, nothing injected into the page.
(function () {
  "use strict";

  // The script's own URL, read now: document.currentScript is only set while it runs.
  const scriptSrc = document.currentScript ? document.currentScript.src : "";

  // --- Where the auth routes are -------------------------------------------------------

  // The auth base path: <meta name="authui-base-path" content="/auth">, else
  // <html data-authui-base-path="/auth">, else the folder this script is served from when it is
  // the core's own copy (<base>/_static/authui.<hash>.js), else "/auth".
  function basePath() {
    const meta = document.querySelector('meta[name="authui-base-path"]');
    let base = meta ? meta.getAttribute("content") : null;
    if (!base) base = document.documentElement.getAttribute("data-authui-base-path");
    if (!base && scriptSrc) {
      const served = new URL(scriptSrc).pathname.match(/^(.*)\/_static\/authui\.[^/]*js$/);
      if (served && new URL(scriptSrc).origin === location.origin) base = served[1];
    }
    return (base || "/auth").replace(/\/+$/, "");
  }

  function actionUrl(action, providerId) {
    return basePath() + "/" + action + (providerId ? "/" + encodeURIComponent(providerId) : "");
  }

  // --- HTTP ----------------------------------------------------------------------------

  class AuthuiError extends Error {
    constructor(message, status) {
      super(message);
      this.name = "AuthuiError";
      this.status = status;
    }
  }

  // The JSON of an answer. A refusal that still says where to go ({"url"} with 429 when
  // throttled, 503 in an outage, 400 for a bad request) is an answer too, when the caller
  // posted a form; any other non-OK status is an AuthuiError.
  async function readJson(response, what, withUrl = false) {
    const failed = () =>
      new AuthuiError(`authui: ${what} answered HTTP ${response.status}`, response.status);
    if (!response.ok && !withUrl) throw failed();
    let data;
    try {
      data = await response.json();
    } catch {
      if (!response.ok) throw failed();
      throw new AuthuiError(`authui: ${what} did not answer JSON`, response.status);
    }
    if (!response.ok && !(data && typeof data.url === "string")) throw failed();
    return data;
  }

  async function getJson(action) {
    const response = await fetch(actionUrl(action), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    });
    return readJson(response, "GET " + action);
  }

  // POST a form the way the built-in pages do, asking for {"url"} instead of a redirect.
  // Returns the fetch Response and the absolute URL the server wants the browser to go to.
  async function postForm(url, fields) {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Auth-Return-Redirect": "1",
      },
      body: new URLSearchParams(fields),
    });
    const data = await readJson(response, "POST " + new URL(url, location.href).pathname, true);
    if (!data || typeof data.url !== "string") {
      throw new AuthuiError("authui: the server answered without a url", response.status);
    }
    return { response, url: new URL(data.url, location.href).href };
  }

  // --- Public reads ----------------------------------------------------------------------

  /** The current session ({user, expires, ...}) or null when signed out. */
  function getSession() {
    return getJson("session");
  }

  /** A CSRF token for a form POST; "" when the server has the CSRF check turned off. */
  async function getCsrfToken() {
    const response = await fetch(actionUrl("csrf"), {
      credentials: "same-origin",
      cache: "no-store",
      headers: { Accept: "application/json" },
    });
    if (response.status === 404) return ""; // skipCSRFCheck: the server checks nothing
    const data = await readJson(response, "GET csrf");
    return data.csrfToken;
  }

  /** The configured providers, keyed by id: {id, name, type, signinUrl, callbackUrl}. */
  function getProviders() {
    return getJson("providers");
  }

  // --- Navigation and events -------------------------------------------------------------

  // Go to url. When it differs from the current page only by its #hash, assigning it merely
  // scrolls, so reload to show the new state (sign-in/out changed what the page shows).
  function withoutHash(url) {
    const parsed = new URL(url, location.href);
    parsed.hash = "";
    return parsed.href;
  }

  function navigate(url) {
    const hashOnly =
      new URL(url, location.href).hash !== "" && withoutHash(url) === withoutHash(location.href);
    location.assign(url);
    if (hashOnly) location.reload();
  }

  function announce(detail) {
    document.dispatchEvent(new CustomEvent("authui:session", { detail }));
  }

  // Options that steer the client; every other option field is posted to the server.
  const CLIENT_OPTIONS = ["redirect", "redirectTo", "callbackUrl"];

  function splitOptions(options) {
    const redirectTo = options.redirectTo ?? options.callbackUrl ?? location.href;
    const fields = {};
    for (const [name, value] of Object.entries(options)) {
      if (!CLIENT_OPTIONS.includes(name) && value !== undefined) fields[name] = String(value);
    }
    return { redirect: options.redirect !== false, redirectTo, fields };
  }

  // --- Sign-in flows, per provider type ------------------------------------------------------

  // How signIn() talks to the server for each provider type: a flow takes
  // (provider, fields, authorizationParams) and resolves {response, url} like postForm.
  // Credentials post to /callback/<id>, every other type to /signin/<id> (as next-auth does).
  // Later features add their own through authui.defineSignInFlow: passkeys ("webauthn") come
  // from webauthn.js, and until it is loaded their sign-in fails with a clear message.
  const signInFlows = {
    credentials(provider, fields, params) {
      return postForm(withQuery(actionUrl("callback", provider.id), params), fields);
    },
    webauthn() {
      return Promise.reject(
        new AuthuiError("authui: passkeys need webauthn.js, loaded after authui.js"),
      );
    },
    default(provider, fields, params) {
      return postForm(withQuery(actionUrl("signin", provider.id), params), fields);
    },
  };

  // What defineSignInFlow hands to a flow's script, for the requests it makes itself.
  const flowHelpers = Object.freeze({ actionUrl, postForm, navigate, AuthuiError });

  function withQuery(url, params) {
    const query = new URLSearchParams(params || {}).toString();
    return query ? url + "?" + query : url;
  }

  /**
   * Sign in. Without a (known) provider, go to the sign-in page. Otherwise post to the
   * provider; options.redirectTo (default: this page) is where to land afterwards, the other
   * option fields (username, password, email, ...) are posted along. With redirect: false,
   * resolves {url, error, code, ok, status} instead of navigating; error and code come from
   * the url's query (null when absent), and url is null when there is an error, as in next-auth.
   */
  async function signIn(providerId, options, authorizationParams) {
    const { redirect, redirectTo, fields } = splitOptions(options ?? {});
    const providers = providerId ? await getProviders() : {};
    const provider = Object.prototype.hasOwnProperty.call(providers, providerId)
      ? providers[providerId]
      : undefined;
    if (!provider) {
      navigate(withQuery(actionUrl("signin"), { callbackUrl: redirectTo }));
      return undefined;
    }
    const flow = signInFlows[provider.type] || signInFlows.default;
    const csrfToken = await getCsrfToken();
    const { response, url } = await flow(
      provider,
      { ...fields, csrfToken, callbackUrl: redirectTo },
      authorizationParams,
    );
    if (redirect) {
      navigate(url);
      return undefined;
    }
    const query = new URL(url).searchParams;
    const error = query.get("error");
    const result = {
      url: error ? null : url,
      error,
      code: query.get("code"),
      ok: response.ok,
      status: response.status,
    };
    if (!error) announce({ trigger: "signin", provider: provider.id });
    return result;
  }

  /**
   * Add a passkey to the signed-in user's account (needs webauthn.js): signIn with
   * action "register" through options.provider, else the first passkey provider. Takes the
   * options of signIn (redirectTo, redirect) and answers like it.
   */
  async function registerPasskey(options) {
    const { provider: wanted, ...rest } = options ?? {};
    let providerId = wanted;
    if (!providerId) {
      const providers = await getProviders();
      const found = Object.values(providers).find((provider) => provider.type === "webauthn");
      if (!found) throw new AuthuiError("authui: the server has no passkey provider");
      providerId = found.id;
    }
    return signIn(providerId, { ...rest, action: "register" });
  }

  /**
   * Sign out: post to <base>/signout, then go to options.redirectTo (default: this page), or
   * with redirect: false resolve {url} and stay. With federated: true, a user who signed in
   * with a provider that has federated_logout goes through the provider's sign-out first
   * (the url is then the provider's).
   */
  async function signOut(options) {
    const { redirect, redirectTo } = splitOptions(options ?? {});
    const csrfToken = await getCsrfToken();
    const form = { csrfToken, callbackUrl: redirectTo };
    if (options?.federated) form.federated = "1";
    const { url } = await postForm(actionUrl("signout"), form);
    if (redirect) {
      navigate(url);
      return undefined;
    }
    announce({ trigger: "signout" });
    return { url };
  }

  // --- Page enhancements ---------------------------------------------------------------------

  // Functions run on the page once it is parsed, and on every piece of content htmx swaps in
  // (`htmx:load`), with the root element to enhance (webauthn.js adds the passkey forms').
  const enhancers = [];

  function onLoad(enhancer) {
    enhancers.push(enhancer);
    if (document.readyState !== "loading") enhancer(document.body);
  }

  function enhance(root) {
    for (const enhancer of enhancers) {
      try {
        enhancer(root);
      } catch (error) {
        console.error("authui:", error);
      }
    }
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => enhance(document.body));
  }
  document.addEventListener("htmx:load", (event) => {
    if (event.target !== document.body) enhance(event.target);
  });

  window.authui = Object.freeze({
    getSession,
    getCsrfToken,
    getProviders,
    signIn,
    signOut,
    registerPasskey,
    get basePath() {
      return basePath();
    },
    AuthuiError,
    onLoad,
    // Returns helpers for the flow's own requests: actionUrl, postForm, navigate, AuthuiError.
    defineSignInFlow(type, flow) {
      signInFlows[type] = flow;
      return flowHelpers;
    },
  });
})();
