// A stand-in for https://apis.google.com/js/api.js (the gapi loader and gapi.iframes), for Hearth's web tests only
// (Tests/e2e/web_sdk.py serves it over loopback HTTPS and maps apis.google.com to it). It implements exactly what
// the Firebase JS SDK and Hearth's auth iframe use:
// - loading: gapi.load(name, callback | {callback, timeout, ontimeout}); window[<the ?onload= of this script>]() and
//   window.gapi_onload() are called once gapi is defined (the SDK uses the first, Hearth's iframe the second);
// - parent side (the app page): gapi.iframes.getContext().open(options, callback) inserts the iframe and resolves as
//   the callback's promise does; the Iframe object has restyle (resolves at once), ping (resolves when the child's
//   gapi answers), register(type, handler) and send(type, data, callback);
// - child side (the iframe): gapi.iframes.getContext().getParentIframe() with register and send to window.parent.
// Handlers' return values travel back as a one-element array; a message for a type with no handler yet is queued
// until one is registered (the SDK registers 'authEvent' only after open() resolves). Exceptions thrown by callbacks
// are caught (the SDK's webStorageSupport callback always throws after reading the answer).
// The parent <-> child wire format is private to this file: both pages must load it.
(function () {
  'use strict';
  if (window.gapi && window.gapi.iframes && window.gapi.iframes.__standIn) return;
  var MARK = '__hearthGapiStandIn';
  var FILTER = function () { return true; };
  var onloadName = null;
  try { onloadName = new URL(document.currentScript.src).searchParams.get('onload'); } catch (e) { /* no src */ }

  function report(error) { try { console.error('gapi stand-in:', error); } catch (e) { /* no console */ } }

  // One end of a parent <-> child channel. `target()` is the other window; `origin` its origin (a child learns its
  // parent's from the first message it accepts, and queues what it sends until then).
  function Channel(target, origin) {
    this.target = target;
    this.origin = origin;
    this.handlers = {};
    this.waiting = {};   // type -> messages that arrived before a handler
    this.callbacks = {}; // message id -> reply callback
    this.outbox = [];    // posts before the other side's origin is known
    this.pongs = [];
    this.seq = 0;
  }
  Channel.prototype.post = function (message) {
    message[MARK] = 1;
    if (!this.origin) { this.outbox.push(message); return; }
    var win = this.target();
    if (win) win.postMessage(message, this.origin);
  };
  Channel.prototype.learnOrigin = function (origin) {
    if (this.origin) return;
    this.origin = origin;
    var queued = this.outbox.splice(0);
    for (var i = 0; i < queued.length; i++) this.post(queued[i]);
  };
  Channel.prototype.register = function (type, handler) {
    this.handlers[type] = handler;
    var queued = this.waiting[type] || [];
    delete this.waiting[type];
    for (var i = 0; i < queued.length; i++) this.dispatch(queued[i]);
  };
  Channel.prototype.send = function (type, data, callback) {
    var id = ++this.seq;
    if (typeof callback === 'function') this.callbacks[id] = callback;
    this.post({ op: 'message', id: id, type: type, data: data });
  };
  Channel.prototype.dispatch = function (message) {
    var handler = this.handlers[message.type];
    if (!handler) { (this.waiting[message.type] = this.waiting[message.type] || []).push(message); return; }
    var self = this;
    Promise.resolve().then(function () { return handler(message.data); }).then(
      function (answer) { self.post({ op: 'reply', id: message.id, data: [answer] }); },
      function (error) { report(error); self.post({ op: 'reply', id: message.id, data: [] }); });
  };
  Channel.prototype.receive = function (message) {
    if (message.op === 'message') {
      this.dispatch(message);
    } else if (message.op === 'reply') {
      var callback = this.callbacks[message.id];
      delete this.callbacks[message.id];
      if (callback) { try { callback(message.data); } catch (error) { report(error); } }
    } else if (message.op === 'pong') {
      var waiting = this.pongs.splice(0);
      for (var i = 0; i < waiting.length; i++) waiting[i]();
    }
  };

  // The Iframe object both sides use (the SDK calls restyle, ping, register and send on the parent side).
  function iframeApi(channel) {
    return {
      register: function (type, handler) { channel.register(type, handler); },
      send: function (type, data, callback) { channel.send(type, data, callback); },
      restyle: function () { return Promise.resolve([true]); },
      ping: function (callback) {
        return new Promise(function (resolve) {
          var answered = false, timer = null;
          channel.pongs.push(function () {
            if (answered) return;
            answered = true;
            clearInterval(timer);
            if (typeof callback === 'function') { try { callback([true]); } catch (error) { report(error); } }
            resolve([true]);
          });
          // Repeated: the first posts reach the iframe's initial about:blank document, or a page still loading.
          var tick = function () { if (!answered) channel.post({ op: 'ping' }); };
          tick();
          timer = setInterval(tick, 100);
        });
      }
    };
  }

  var children = [];        // parent side: {element, channel} per opened iframe
  var parentChannel = null; // child side
  var iframesLoaded = false; // a child answers pings once gapi.iframes is loaded in it

  function toParent() {
    if (!parentChannel) parentChannel = new Channel(function () { return window.parent; }, null);
    return parentChannel;
  }

  window.addEventListener('message', function (event) {
    var message = event.data;
    if (!message || typeof message !== 'object' || message[MARK] !== 1) return;
    if (window.parent !== window && event.source === window.parent) {
      var channel = toParent();
      channel.learnOrigin(event.origin);
      if (event.origin !== channel.origin) return;
      if (message.op === 'ping') { if (iframesLoaded) channel.post({ op: 'pong' }); return; }
      channel.receive(message);
      return;
    }
    for (var i = 0; i < children.length; i++) {
      var child = children[i];
      if (event.source === child.element.contentWindow && event.origin === child.channel.origin) {
        child.channel.receive(message);
        return;
      }
    }
  });

  var context = {
    open: function (options, callback) {
      var element = document.createElement('iframe');
      var attributes = options.attributes || {};
      for (var name in attributes) {
        if (name === 'style') {
          for (var property in attributes.style) element.style[property] = attributes.style[property];
        } else {
          element.setAttribute(name, attributes[name]);
        }
      }
      element.src = options.url;
      (options.where || document.body).appendChild(element);
      var channel = new Channel(function () { return element.contentWindow; }, new URL(options.url, location.href).origin);
      children.push({ element: element, channel: channel });
      var api = iframeApi(channel);
      return Promise.resolve()
        .then(function () { return typeof callback === 'function' ? callback(api) : api; })
        .then(function (result) { return result || api; });
    },
    getParentIframe: function () { return iframeApi(toParent()); }
  };

  var gapi = window.gapi = window.gapi || {};
  gapi.iframes = {
    __standIn: true,
    CROSS_ORIGIN_IFRAMES_FILTER: FILTER,
    SAME_ORIGIN_IFRAMES_FILTER: FILTER,
    Iframe: function Iframe() {},
    getContext: function () { return context; }
  };
  gapi.load = function (name, options) {
    var callback = typeof options === 'function' ? options : (options && options.callback);
    setTimeout(function () {
      if (name === 'gapi.iframes') iframesLoaded = true;
      if (typeof callback === 'function') callback();
    }, 0);
  };
  setTimeout(function () {
    if (onloadName && typeof window[onloadName] === 'function') window[onloadName]();
    if (typeof window.gapi_onload === 'function') window.gapi_onload();
  }, 0);
})();
