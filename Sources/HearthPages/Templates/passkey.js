// Hearth's passkey page (/__/auth/passkey): a WebAuthn bridge. The server checked the options and the return
// address and put them on #passkey; on a click this script asks the browser for the passkey and returns the
// authenticator's response (JSON, base64url) to the app with its state. No request leaves this page but that return.
(function () {
  'use strict';
  var root = document.getElementById('passkey');
  var go = document.getElementById('passkey-go');
  var back = document.getElementById('passkey-return');
  var statusLine = document.getElementById('passkey-status');
  var errorLine = document.getElementById('passkey-error');
  if (!root || !go) return;
  var mode = root.getAttribute('data-mode');
  var returnURL = root.getAttribute('data-return');
  var state = root.getAttribute('data-state');

  // Standard or URL-safe base64, padded or not (Hearth sends challenge and user.id as standard padded base64).
  function bytes(text) {
    var normal = String(text).replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
    while (normal.length % 4) normal += '=';
    var binary = atob(normal);
    var out = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }
  // Unpadded base64url of an ArrayBuffer, or of a string's UTF-8 bytes.
  function url64(value) {
    var data = typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value);
    var binary = '';
    for (var i = 0; i < data.length; i++) binary += String.fromCharCode(data[i]);
    return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function descriptors(list) {
    return (list || []).map(function (item) {
      var copy = { type: item.type || 'public-key', id: bytes(item.id) };
      if (item.transports) copy.transports = item.transports;
      return copy;
    });
  }
  function withParameters(base, pairs) {
    var query = pairs.map(function (pair) { return encodeURIComponent(pair[0]) + '=' + encodeURIComponent(pair[1]); }).join('&');
    return base + (base.indexOf('?') >= 0 ? '&' : '?') + query;
  }
  function show(message) {
    errorLine.textContent = message;
    errorLine.hidden = false;
  }

  var options;
  try {
    options = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes(root.getAttribute('data-options'))));
    if (mode === 'enroll') {
      options.challenge = bytes(options.challenge);
      options.user.id = bytes(options.user.id);
      options.user.name = options.user.name || 'Passkey';
      options.user.displayName = options.user.displayName || options.user.name;
      options.rp.name = options.rp.name || options.rp.id || location.hostname;
      options.excludeCredentials = descriptors(options.excludeCredentials);
    } else {
      options.challenge = bytes(options.challenge);
      options.allowCredentials = descriptors(options.allowCredentials);
    }
  } catch (e) {
    show('The app sent options this page cannot read. Return to the app and start again.');
    statusLine.hidden = true;
    return;
  }
  if (!window.PublicKeyCredential || !navigator.credentials) {
    show('This browser cannot use passkeys. Open the page in a current browser, or return to the app.');
    statusLine.hidden = true;
    offerReturn('NotSupportedError', 'This browser cannot use passkeys.');
    return;
  }

  function offerReturn(code, message) {
    if (!back) return;
    back.href = withParameters(returnURL, [['error', code], ['error_description', message], ['state', state]]);
    back.hidden = false;
  }

  function responseJSON(credential) {
    var answer = credential.response;
    var json = { id: credential.id, rawId: url64(credential.rawId), type: credential.type, response: {} };
    if (credential.authenticatorAttachment) json.authenticatorAttachment = credential.authenticatorAttachment;
    json.response.clientDataJSON = url64(answer.clientDataJSON);
    if (mode === 'enroll') {
      json.response.attestationObject = url64(answer.attestationObject);
      if (typeof answer.getTransports === 'function') json.response.transports = answer.getTransports();
    } else {
      json.response.authenticatorData = url64(answer.authenticatorData);
      json.response.signature = url64(answer.signature);
      if (answer.userHandle && answer.userHandle.byteLength) json.response.userHandle = url64(answer.userHandle);
    }
    return json;
  }

  var messages = {
    NotAllowedError: 'The passkey request was cancelled or timed out, or this device has no passkey for this site.',
    InvalidStateError: 'This device already has a passkey for this account.',
    SecurityError: 'The browser refused: this page’s address does not match the passkey’s site.',
    NotSupportedError: 'This device cannot make a passkey of the kind the app asked for.',
    AbortError: 'The passkey request was stopped.'
  };

  go.disabled = false;
  go.addEventListener('click', function () {
    go.disabled = true;
    errorLine.hidden = true;
    if (back) back.hidden = true;
    statusLine.hidden = false;
    statusLine.textContent = 'Waiting for your passkey…';
    var request = mode === 'enroll' ? navigator.credentials.create({ publicKey: options }) : navigator.credentials.get({ publicKey: options });
    request.then(function (credential) {
      if (!credential) throw new DOMException('No passkey was chosen.', 'NotAllowedError');
      statusLine.textContent = 'Done. Returning to the app…';
      location.assign(withParameters(returnURL, [['passkeyResponse', url64(JSON.stringify(responseJSON(credential)))], ['state', state]]));
    }).catch(function (error) {
      var name = error && error.name ? error.name : 'UnknownError';
      statusLine.hidden = true;
      show(messages[name] || ('The passkey request failed (' + name + ').'));
      offerReturn(name, messages[name] || String(error && error.message || name));
      go.disabled = false;
      go.textContent = 'Try again';
    });
  });
  statusLine.textContent = mode === 'enroll' ? 'Press the button, then follow your device to create the passkey.'
    : 'Press the button, then choose your passkey.';
})();
