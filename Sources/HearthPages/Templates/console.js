document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy-from]');
  if (!button) return;
  var field = document.getElementById(button.getAttribute('data-copy-from'));
  if (!field) return;
  var done = function () { button.textContent = 'Copied'; };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value || field.textContent).then(done, function () { field.select(); document.execCommand('copy'); done(); });
  } else { field.select(); document.execCommand('copy'); done(); }
});
document.addEventListener('submit', function (event) {
  var message = event.target.getAttribute('data-confirm');
  if (message && !window.confirm(message)) { event.preventDefault(); return; }
  var busy = event.target.getAttribute('data-busy');
  var button = event.target.querySelector('button[type=submit]');
  if (busy && button) { button.textContent = busy; button.disabled = true; event.target.setAttribute('aria-busy', 'true'); }
});
document.addEventListener('change', function (event) {
  var input = event.target;
  var target = input.getAttribute && document.getElementById(input.getAttribute('data-read-into') || '');
  if (!target || !input.files) return;
  var status = document.getElementById(input.getAttribute('data-read-status') || '');
  var say = function (text) { if (status) status.textContent = text; };
  target.value = '';
  var file = input.files[0];
  if (!file) { say(''); return; }
  if (file.size > 16384) { say(file.name + ' is too large for a key file; nothing will be sent.'); return; }
  var reader = new FileReader();
  reader.onload = function () { target.value = String(reader.result); say(file.name + ' read: it is sent when you save.'); };
  reader.onerror = function () { say(file.name + ' could not be read; paste the key instead.'); };
  reader.readAsText(file);
});
document.addEventListener('change', function (event) {
  var select = event.target;
  if (select.hasAttribute && select.hasAttribute('data-submit-on-change') && select.form) select.form.submit();
});
