// Hearth's web result page (the end of a Firebase JS SDK sign-in, in the popup or the tab): hands the auth event to
// the app's helper iframe on Hearth's origin (popup), or keeps it for that iframe and returns to the app (redirect).
// The event goes only to Hearth's own origin; the iframe then checks that the page embedding it is the app's.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("hearth-web-result").textContent);
  var status = document.getElementById("hearth-web-status");
  function say(text, error) {
    if (status) status.textContent = text;
    (error ? console.error : console.log)("Hearth: " + text);
  }
  if (data.consoleError) {
    console.error("Hearth: " + data.consoleError);
    return;
  }
  var message = { hearthAuthEvent: data.event, appOrigin: data.appOrigin, apiKey: data.apiKey, appName: data.appName };
  if (!data.popup) {
    try {
      sessionStorage.setItem(data.storageKey, JSON.stringify({ event: data.event, appOrigin: data.appOrigin, expiresAt: Date.now() + 300000 }));
    } catch (e) {
      say("This browser does not let Hearth keep the sign-in result (storage is blocked): sign in with a popup instead.", true);
      return;
    }
    location.replace(data.redirectUrl);
    return;
  }
  var opener = window.opener;
  if (!opener) {
    say("This window lost its link to the app (a Cross-Origin-Opener-Policy other than same-origin-allow-popups on the app's page, or on a page on the way, cuts it), so the sign-in cannot be handed back. See docs/web.md.", true);
    return;
  }
  var delivered = false;
  try {
    if (opener.location.origin === location.origin && opener.location.pathname === "/__dev/try/web") {
      opener.postMessage(message, location.origin);
      delivered = true;
    }
  } catch (e) { /* the opener is the app, on another origin */ }
  if (!delivered) {
    for (var i = 0; i < opener.frames.length; i++) {
      try {
        var frame = opener.frames[i];
        if (frame.location.origin !== location.origin) continue;
        var path = frame.location.pathname;
        if (path !== "/emulator/auth/iframe" && path !== "/__/auth/iframe") continue;
        var query = new URLSearchParams(frame.location.search);
        if ((query.get("apiKey") || "") !== data.apiKey || (query.get("appName") || "[DEFAULT]") !== data.appName) continue;
        frame.postMessage(message, location.origin);
        delivered = true;
      } catch (e) { /* a frame of another origin */ }
    }
  }
  if (delivered) {
    say("Done: returning to the app.");
    setTimeout(function () { window.close(); }, 300);
  } else {
    say("The app's page has no Hearth helper frame to take the result (was it reloaded, or pointed at another server?). Start the sign-in again from the app.", true);
  }
})();
