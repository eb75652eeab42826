// Hearth's helper iframe for the Firebase JS SDK (what the SDK embeds from /emulator/auth/iframe). It talks to the
// SDK through gapi.iframes (https://apis.google.com/js/api.js, loaded by the page after this script): it answers
// webStorageSupport, sends exactly one first event (a kept redirect result, or auth/no-auth-event), then relays the
// popup results Hearth's result page posts from Hearth's own origin — only those meant for the page embedding it.
(function () {
  "use strict";
  var params = new URLSearchParams(location.search);
  var apiKey = params.get("apiKey") || "";
  var appName = params.get("appName") || "[DEFAULT]";
  var storageKey = "hearth:redirectEvent:" + apiKey + ":" + appName;
  var embedder = null;
  if (location.ancestorOrigins && location.ancestorOrigins.length) {
    embedder = location.ancestorOrigins[0];
  } else if (document.referrer) {
    try { embedder = new URL(document.referrer).origin; } catch (e) { embedder = null; }
  }
  var parentFrame = null;
  var waiting = [];
  function filter() { return window.gapi && gapi.iframes ? gapi.iframes.CROSS_ORIGIN_IFRAMES_FILTER : undefined; }
  function send(event) {
    if (!parentFrame) { waiting.push(event); return; }
    parentFrame.send("authEvent", { type: "authEvent", authEvent: event }, function () {}, filter());
  }
  function keptRedirectEvent() {
    var text = null;
    try { text = sessionStorage.getItem(storageKey); sessionStorage.removeItem(storageKey); } catch (e) { return null; }
    if (!text) return null;
    try {
      var kept = JSON.parse(text);
      if (kept.expiresAt < Date.now()) return null;
      if (kept.appOrigin !== embedder) {
        console.error("Hearth: a sign-in result for " + kept.appOrigin + " is not given to " + embedder);
        return null;
      }
      return kept.event;
    } catch (e) { return null; }
  }
  window.addEventListener("message", function (e) {
    if (e.origin !== location.origin || !e.data || typeof e.data !== "object" || !e.data.hearthAuthEvent) return;
    if (e.data.apiKey !== apiKey || e.data.appName !== appName) return;
    if (e.data.appOrigin !== embedder) {
      console.error("Hearth: a sign-in result for " + e.data.appOrigin + " is not given to " + embedder);
      return;
    }
    send(e.data.hearthAuthEvent);
  });
  window.gapi_onload = function () {
    gapi.load("gapi.iframes", {
      callback: function () {
        var context = gapi.iframes.getContext();
        var parent = context.getParentIframe();
        parent.register("webStorageSupport", function () { return { status: "ACK", webStorageSupport: true }; }, filter());
        parentFrame = parent;
        var first = keptRedirectEvent() || { type: "unknown", eventId: null, urlResponse: null, sessionId: null, postBody: null,
                                             tenantId: null, error: { code: "auth/no-auth-event", message: "" } };
        send(first);
        waiting.splice(0).forEach(send);
      },
      timeout: 30000,
      ontimeout: function () { console.error("Hearth: gapi.iframes did not load (https://apis.google.com must be reachable)"); }
    });
  };
})();
