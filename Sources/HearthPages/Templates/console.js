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
