import Foundation
import Mustache

/// The web console's pages (`/console`): the same look as every other page (``Pages/stylesheet``) plus a wider
/// layout with navigation, tables and forms. Values are HTML-escaped by the templates; contexts are built by the
/// server and never hold secrets (client secrets are shown as set / not set only).
public enum ConsolePages {
    /// One entry of the navigation bar.
    public struct NavItem: Sendable {
        public var label: String
        public var href: String
        public init(_ label: String, href: String) {
            self.label = label
            self.href = href
        }
    }

    /// The console's sections, in navigation order.
    public static let navigation: [NavItem] = [
        NavItem("Overview", href: "/console"), NavItem("Users", href: "/console/users"),
        NavItem("Sign-in method", href: "/console/providers"), NavItem("Settings", href: "/console/settings"),
        NavItem("Apps", href: "/console/apps"), NavItem("Service accounts", href: "/console/service-accounts"),
        NavItem("Signing keys", href: "/console/keys"), NavItem("Audit log", href: "/console/audit"),
    ]

    /// Additions to ``Pages/stylesheet`` for the console's wider pages.
    static let stylesheet = Pages.stylesheet + """

        body.console{padding:0}body.console main{max-width:64rem;padding:1rem}
        .bar{display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:center;padding:.6rem 1rem;border-bottom:1px solid var(--line);background:var(--card)}
        .bar .brand{font-weight:600;color:var(--accent)}.bar nav{display:flex;flex-wrap:wrap;gap:.2rem .8rem}
        .bar nav a{color:var(--fg);text-decoration:none;padding:.2rem 0}.bar nav a[aria-current=page]{border-bottom:2px solid var(--accent)}
        .bar form{margin-left:auto;display:flex;gap:.5rem;align-items:center}
        .skip{position:absolute;left:-999px}.skip:focus{left:1rem;top:1rem;background:var(--bg);padding:.4rem}
        h2{font-size:1.1rem;margin:1.6rem 0 .5rem}
        .table-wrap{overflow-x:auto}table{border-collapse:collapse;width:100%;font-size:.95rem}
        th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top;overflow-wrap:break-word}
        td.key,th.key{white-space:nowrap}
        th{color:var(--muted);font-weight:500}caption{text-align:left;color:var(--muted);padding:.3rem 0}
        .tag{display:inline-block;font-size:.8rem;padding:0 .45rem;border:1px solid var(--line);border-radius:999px;margin:0 .2rem .2rem 0}
        .tag.on{border-color:var(--ok);color:var(--ok)}.tag.off{border-color:var(--bad);color:var(--bad)}
        input[type=password],input[type=search],input[type=url],textarea,select{width:100%;padding:.6rem;font-size:1rem;border:1px solid var(--line);\
        border-radius:6px;background:var(--bg);color:var(--fg)}
        textarea{font-family:ui-monospace,monospace;min-height:7rem}
        .check{display:flex;gap:.5rem;align-items:flex-start;margin:.7rem 0;font-weight:400}.check input{margin-top:.3rem}
        .field-error{color:var(--bad);margin:.25rem 0 .6rem;font-weight:500}input[aria-invalid=true]{border-color:var(--bad)}
        form.inline{display:inline}form.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}form.row label{margin:.3rem 0}
        form.row .grow{flex:1 1 14rem}.stats{display:flex;flex-wrap:wrap;gap:1rem}.stats .card{flex:1 1 12rem}
        .figure{font-size:1.8rem;font-weight:600}button.danger{background:var(--bad);border-color:var(--bad)}
        button.small,.button.small{font-size:.85rem;padding:.25rem .7rem}:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
        button,.button{font-family:inherit;line-height:1.3;display:inline-block}
        svg text{fill:var(--muted);font-size:11px}input.uid{width:auto;max-width:14rem;padding:.3rem;font-family:ui-monospace,monospace}
        .bar{font-weight:400;color:var(--fg);margin:0}.bar .note{font-weight:400}
        @media (max-width:40rem){table thead{position:absolute;left:-9999px}table tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}        table td{display:flex;gap:.6rem;border:0;padding:.15rem 0}table td[data-label]::before{content:attr(data-label);flex:0 0 7.5rem;color:var(--muted)}}
        """

    /// The script the pages share: copy buttons (no build step, no inline script).
    public static let script = """
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
        """

    /// The console pages' `Content-Security-Policy`: the console's own script only, forms to itself.
    public static let contentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; img-src 'self' data:; "
        + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    static let layout = """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Hearth console</title><style>{{{stylesheet}}}</style><script src="/console/console.js" defer></script></head>
        <body class="console"><a class="skip" href="#content">Skip to content</a>
        <header class="bar"><span class="brand">Hearth console</span><span class="note">{{projectId}}</span>
        {{#signedIn}}<nav aria-label="Console sections">{{#nav}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/nav}}</nav>
        <form method="post" action="/console/logout"><input type="hidden" name="csrf" value="{{csrf}}"><span class="note">Signed in as {{adminName}}</span>
        <button type="submit" class="secondary small">Log out</button></form>{{/signedIn}}
        </header>
        <main id="content"><h1>{{title}}</h1>
        {{#flash}}<p class="card success" role="status">{{flash}}</p>{{/flash}}
        {{#error}}<p class="card error" role="alert">{{error}}</p>{{/error}}
        {{{body}}}
        </main></body></html>
        """

    static let templates: [String: String] = [
        "signed-in": """
            <meta http-equiv="refresh" content="0;url=/console">
            <section class="card success"><p>You are signed in to the console as {{adminName}}.</p>
            <div class="actions"><a class="button" href="/console">Continue to the console</a></div></section>
            """,
        "blank": """
            <p class="note">Nothing was changed. Use your browser's Back button to return to the form and correct it.</p>
            """,
        "login": """
            <section class="card"><p>Open the one-time link <code>hearth serve</code> printed (or run <code>hearth console login-link</code>),
            or sign in as a console administrator (<code>hearth console admins add</code>).</p>
            <form method="post" action="/console/login"><input type="hidden" name="csrf" value="{{loginCsrf}}">
            <label for="name">Administrator name</label><input id="name" type="text" name="name" autocomplete="username" required autofocus>
            <label for="password">Password</label><input id="password" type="password" name="password" autocomplete="current-password" required>
            <div class="actions"><button type="submit">Sign in</button></div></form></section>
            """,
        "overview": """
            <div class="stats"><section class="card"><h2>Users</h2><p class="figure">{{usersTotal}}</p><p class="note">{{usersNew}} new in the last 30 days</p></section>
            <section class="card"><h2>Sign-ins, last 30 days</h2><p class="figure">{{signInsTotal}}</p></section>
            <section class="card"><h2>Refused sign-ins, last 30 days</h2><p class="figure">{{refusedTotal}}</p></section></div>
            <h2 id="chart-title">Sign-ins per day by provider</h2>
            <figure>{{{chart}}}<figcaption class="note">{{#legend}}<span class="tag"><span aria-hidden="true" style="color:{{color}}">■</span> {{provider}}: {{count}}</span>{{/legend}}{{^legend}}No sign-ins in the last 30 days.{{/legend}}</figcaption></figure>
            <h2>Refused sign-ins by reason</h2>
            {{#hasRefusals}}<div class="table-wrap"><table><thead><tr><th scope="col">Reason</th><th scope="col">Last 30 days</th></tr></thead><tbody>
            {{#refusals}}<tr><td data-label="Reason"><code>{{reason}}</code></td><td data-label="Last 30 days">{{count}}</td></tr>{{/refusals}}</tbody></table></div>{{/hasRefusals}}
            {{^hasRefusals}}<p class="note">No refused sign-ins in the last 30 days.</p>{{/hasRefusals}}
            """,
        "users": """
            <form method="get" action="/console/users" role="search" class="row"><div class="grow"><label for="q">Search by email, UID or phone number</label>
            <input id="q" type="search" name="q" value="{{query}}"></div><button type="submit">Search</button>{{#query}} <a class="button secondary" href="/console/users">Clear</a>{{/query}}</form>
            <div class="table-wrap"><table><caption>{{caption}}</caption><thead><tr><th scope="col">Identifier</th><th scope="col">Providers</th>
            <th scope="col">Created</th><th scope="col">Last sign-in</th><th scope="col">User UID</th></tr></thead><tbody>
            {{#users}}<tr><td data-label="Identifier"><a href="{{href}}">{{identifier}}</a>{{#disabled}} <span class="tag off">disabled</span>{{/disabled}}</td>
            <td data-label="Providers">{{#providers}}<span class="tag">{{.}}</span>{{/providers}}</td><td data-label="Created">{{created}}</td><td data-label="Last sign-in">{{lastSignIn}}</td>
            <td data-label="User UID"><input class="uid" id="uid-{{index}}" type="text" readonly value="{{uid}}" aria-label="UID of {{identifier}}">
            <button type="button" class="secondary small" data-copy-from="uid-{{index}}" aria-label="Copy UID of {{identifier}}">Copy</button></td></tr>{{/users}}
            </tbody></table></div>
            <div class="actions">{{#previous}}<a class="button secondary" href="{{previous}}" rel="prev">Previous page</a>{{/previous}}{{#next}}<a class="button secondary" href="{{next}}" rel="next">Next page</a>{{/next}}</div>
            <h2>Add user</h2>
            <form method="post" action="/console/users" class="card"><input type="hidden" name="csrf" value="{{csrf}}">
            <label for="new-email">Email</label><input id="new-email" type="email" name="email" required autocomplete="off">
            <label for="new-password">Password</label><input id="new-password" type="password" name="password" required minlength="6" autocomplete="new-password">
            <div class="actions"><button type="submit">Add user</button></div></form>
            """,
        "user": """
            <section class="card"><dl>{{#facts}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/facts}}</dl>
            <h2>Linked providers</h2>{{#hasProviders}}<ul>{{#providers}}<li><span class="tag">{{providerId}}</span> {{detail}}</li>{{/providers}}</ul>{{/hasProviders}}
            {{^hasProviders}}<p class="note">None (anonymous or custom-token user).</p>{{/hasProviders}}</section>
            <h2>Account</h2><div class="actions">
            <form method="post" action="/console/user/{{#disabled}}enable{{/disabled}}{{^disabled}}disable{{/disabled}}" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="uid" value="{{uid}}">
            <button type="submit" class="secondary">{{#disabled}}Enable account{{/disabled}}{{^disabled}}Disable account{{/disabled}}</button></form>
            <form method="post" action="/console/user/revoke" class="inline"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="uid" value="{{uid}}">
            <button type="submit" class="secondary">Revoke sessions</button></form>
            <a class="button secondary" href="{{deleteHref}}">Delete user</a></div>
            <h2>Custom claims</h2>
            <form method="post" action="/console/user/claims"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="uid" value="{{uid}}">
            <label for="claims">Custom claims (a JSON object, at most 1000 characters; empty clears them)</label>
            <textarea id="claims" name="claims" spellcheck="false">{{claims}}</textarea>
            <div class="actions"><button type="submit">Save claims</button></div></form>
            """,
        "confirm-delete": """
            <section class="card warning"><p>Delete <strong>{{identifier}}</strong> (UID <code>{{uid}}</code>)? Its sign-ins, linked providers and sessions are
            removed; this cannot be undone.</p>
            <form method="post" action="/console/user/delete"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="uid" value="{{uid}}">
            <div class="actions"><button type="submit" class="danger">Delete permanently</button><a class="button secondary" href="{{backHref}}">Cancel</a></div></form></section>
            """,
        "providers": """
            <div class="table-wrap"><table><caption>Sign-in providers</caption><thead><tr><th scope="col">Provider</th><th scope="col">Status</th><th scope="col">Action</th></tr></thead><tbody>
            {{#providers}}<tr><td data-label="Provider">{{name}} <span class="note">{{providerId}}</span></td>
            <td data-label="Status"><span class="tag {{#enabled}}on{{/enabled}}">{{status}}</span></td>
            <td data-label="Action">{{#toggle}}<form method="post" action="/console/providers/builtin" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="provider" value="{{providerId}}"><input type="hidden" name="enabled" value="{{#enabled}}false{{/enabled}}{{^enabled}}true{{/enabled}}">
            <button type="submit" class="secondary small" aria-label="{{#enabled}}Disable{{/enabled}}{{^enabled}}Enable{{/enabled}} {{name}}">{{#enabled}}Disable{{/enabled}}{{^enabled}}Enable{{/enabled}}</button></form>{{/toggle}}
            {{#editHref}}<a class="button secondary small" href="{{editHref}}" aria-label="Configure {{name}}">Configure</a>{{/editHref}}</td></tr>{{/providers}}
            </tbody></table></div>
            <div class="actions"><a class="button" href="/console/provider?id=oidc.new">Add OIDC provider</a></div>
            """,
        "provider": """
            <section class="card"><label for="redirect-uri">Redirect URI to register at the provider</label>
            <div class="row" style="display:flex;gap:.5rem"><input id="redirect-uri" type="text" readonly value="{{redirectURI}}">
            <button type="button" class="secondary" data-copy-from="redirect-uri">Copy redirect URI</button></div>
            <p class="note">{{hint}}</p></section>
            <form method="post" action="/console/provider" class="card"><input type="hidden" name="csrf" value="{{csrf}}">
            {{#formError}}<p class="field-error" role="alert">{{formError}}</p>{{/formError}}
            {{#isNew}}<label for="provider-id">Provider ID (oidc. followed by letters, digits, - or _)</label><input id="provider-id" type="text" name="provider" value="{{providerId}}" required pattern="oidc\\.[A-Za-z0-9_-]+" {{#providerIdError}}aria-invalid="true" aria-describedby="provider-id-error"{{/providerIdError}}>
            {{#providerIdError}}<p class="field-error" id="provider-id-error">{{providerIdError}}</p>{{/providerIdError}}{{/isNew}}
            {{^isNew}}<input type="hidden" name="provider" value="{{providerId}}">{{/isNew}}
            {{#isOIDC}}<label for="display-name">Display name</label><input id="display-name" type="text" name="displayName" value="{{displayName}}">
            <label for="issuer">Issuer URL</label><input id="issuer" type="url" name="issuer" value="{{issuer}}" required {{#issuerError}}aria-invalid="true" aria-describedby="issuer-error"{{/issuerError}}>
            {{#issuerError}}<p class="field-error" id="issuer-error">{{issuerError}}</p>{{/issuerError}}{{/isOIDC}}
            <label for="client-id">Client ID</label><input id="client-id" type="text" name="clientId" value="{{clientId}}" required autocomplete="off" {{#clientIdError}}aria-invalid="true" aria-describedby="client-id-error"{{/clientIdError}}>
            {{#clientIdError}}<p class="field-error" id="client-id-error">{{clientIdError}}</p>{{/clientIdError}}
            <label for="client-secret">Client secret ({{secretState}})</label>
            <input id="client-secret" type="password" name="clientSecret" autocomplete="new-password" {{^secretSet}}required{{/secretSet}} placeholder="{{#secretSet}}Leave empty to keep the stored secret{{/secretSet}}">
            {{#clientSecretError}}<p class="field-error">{{clientSecretError}}</p>{{/clientSecretError}}
            {{#isMicrosoft}}<label for="allowed-tenants">Allowed tenants (empty: every tenant)</label>
            <input id="allowed-tenants" type="text" name="allowedTenants" value="{{allowedTenants}}" autocomplete="off" placeholder="contoso.com, 72f988bf-86f1-41af-91ab-2d7cd011db47, consumers" {{#allowedTenantsError}}aria-invalid="true" aria-describedby="allowed-tenants-error"{{/allowedTenantsError}}>
            {{#allowedTenantsError}}<p class="field-error" id="allowed-tenants-error">{{allowedTenantsError}}</p>{{/allowedTenantsError}}
            <p class="note">Tenant IDs, verified domains, consumers (personal accounts) or organizations, separated by commas. Checked on every Microsoft sign-in; an app's tenant parameter can only narrow this list.</p>{{/isMicrosoft}}
            <label class="check"><input type="checkbox" name="enabled" value="true" {{#enabled}}checked{{/enabled}}> Enabled</label>
            <input type="hidden" name="vaultFields" value="1">
            <label class="check"><input type="checkbox" name="tokenVault" value="true" {{#tokenVault}}checked{{/tokenVault}}> Keep the provider's refresh token in the token vault, so apps get fresh provider access tokens{{^vaultKeys}} (this server has no vault keys yet){{/vaultKeys}}</label>
            <label for="native-client-ids">Native client IDs whose ID tokens are accepted (comma-separated, e.g. an MSAL app's ID)</label>
            <input id="native-client-ids" type="text" name="nativeClientIds" value="{{nativeClientIds}}" autocomplete="off" {{#nativeClientIdsError}}aria-invalid="true" aria-describedby="native-client-ids-error"{{/nativeClientIdsError}}>
            {{#nativeClientIdsError}}<p class="field-error" id="native-client-ids-error">{{nativeClientIdsError}}</p>{{/nativeClientIdsError}}
            <div class="actions"><button type="submit">Save</button><a class="button secondary" href="/console/providers">Cancel</a></div></form>
            {{#canTest}}<form method="post" action="/console/provider/test" class="card" data-busy="Testing… (each probe waits at most 4 s)"><input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="provider" value="{{providerId}}">
            <p class="note">Checks the saved settings without a user: discovery, issuer, signing keys, client ID and secret, redirect URI. Each probe of the provider waits at most 4 seconds.</p>
            <div class="actions"><button type="submit" class="secondary">Test configuration</button></div></form>{{/canTest}}
            """,
        "provider-test": """
            <section class="card {{^ok}}error{{/ok}}" role="status"><p><strong>{{providerId}}</strong>: {{summary}}</p></section>
            <div class="table-wrap"><table><caption>Configuration checks</caption><thead><tr><th scope="col">Check</th><th scope="col">Result</th><th scope="col">Details</th></tr></thead><tbody>
            {{#checks}}<tr><td data-label="Check" class="key">{{name}}</td><td data-label="Result" class="key"><span class="tag {{#passed}}on{{/passed}}{{#failed}}off{{/failed}}">{{status}}</span></td>
            <td data-label="Details">{{detail}}{{#fix}}<p class="note">Fix: {{fix}}</p>{{/fix}}</td></tr>{{/checks}}
            </tbody></table></div>
            <div class="actions"><a class="button secondary" href="{{backHref}}">Back to the provider</a></div>
            """,
        "settings": """
            <form method="post" action="/console/settings" class="card"><input type="hidden" name="csrf" value="{{csrf}}">
            <fieldset style="border:0;padding:0;margin:0"><legend><strong>User account linking</strong></legend>
            <label class="check"><input type="radio" name="linking" value="one" {{#onePerEmail}}checked{{/onePerEmail}}> One account per email address</label>
            <label class="check"><input type="radio" name="linking" value="multiple" {{^onePerEmail}}checked{{/onePerEmail}}> Multiple accounts per email address</label></fieldset>
            <label class="check"><input type="checkbox" name="enumeration" value="true" {{#enumeration}}checked{{/enumeration}}> Email enumeration protection</label>
            <fieldset style="border:0;padding:0;margin:0"><legend><strong>User actions</strong></legend>
            <label class="check"><input type="checkbox" name="signup" value="true" {{#signupAllowed}}checked{{/signupAllowed}}> Allow users to sign up</label>
            <label class="check"><input type="checkbox" name="deletion" value="true" {{#deletionAllowed}}checked{{/deletionAllowed}}> Allow users to delete their account</label></fieldset>
            <div class="actions"><button type="submit">Save settings</button></div></form>
            <h2>Authorized domains</h2>
            <div class="table-wrap"><table><caption>Domains allowed as sign-in redirect targets</caption><thead><tr><th scope="col">Domain</th><th scope="col">Action</th></tr></thead><tbody>
            {{#domains}}<tr><td data-label="Domain">{{domain}}</td><td data-label="Action"><form method="post" action="/console/settings/domains" class="inline"><input type="hidden" name="csrf" value="{{csrf}}">
            <input type="hidden" name="remove" value="{{domain}}"><button type="submit" class="secondary small" aria-label="Remove {{domain}}">Remove</button></form></td></tr>{{/domains}}
            </tbody></table></div>
            <form method="post" action="/console/settings/domains" class="row"><input type="hidden" name="csrf" value="{{csrf}}">
            <div class="grow"><label for="domain">Domain to authorize</label><input id="domain" type="text" name="add" required placeholder="app.example.com"></div>
            <button type="submit">Add domain</button></form>
            """,
        "apps": """
            <p class="note">Apps allowed to receive sign-in results.</p>
            <div class="table-wrap"><table><caption>{{caption}}</caption><thead><tr><th scope="col">App</th><th scope="col">Kind</th><th scope="col">URL scheme / redirect</th><th scope="col">Action</th></tr></thead><tbody>
            {{#apps}}<tr><td data-label="App">{{name}} <span class="note">{{id}}</span></td><td data-label="Kind">{{kind}}</td><td data-label="URL scheme"><code>{{redirect}}</code></td>
            <td data-label="Action"><form method="post" action="/console/apps/remove" class="inline" data-confirm="Remove {{id}}? It can no longer receive sign-in results.">
            <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="id" value="{{id}}">
            <button type="submit" class="secondary small" aria-label="Remove {{id}}">Remove</button></form></td></tr>{{/apps}}
            </tbody></table></div>
            <h2>Add an Apple app</h2>
            <form method="post" action="/console/apps" class="card"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="kind" value="apple">
            <label for="bundle-id">Bundle ID</label><input id="bundle-id" type="text" name="bundleId" required placeholder="com.example.notes" autocomplete="off">
            <label for="app-id">Firebase app ID (gives the URL scheme app-1-…)</label><input id="app-id" type="text" name="appId" placeholder="1:1234567890:ios:0a1b2c3d" autocomplete="off">
            <label for="oauth-client-id">Or OAuth client ID (its reverse is the URL scheme)</label><input id="oauth-client-id" type="text" name="clientId" placeholder="1234-abcd.apps.googleusercontent.com" autocomplete="off">
            <p class="note">Add the URL scheme shown in the table to the app's URL types in Xcode.</p>
            <div class="actions"><button type="submit">Add Apple app</button></div></form>
            <h2>Add a desktop app</h2>
            <form method="post" action="/console/apps" class="row"><input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="kind" value="desktop">
            <div class="grow"><label for="desktop-id">Desktop app ID (what the app sends as appId)</label><input id="desktop-id" type="text" name="id" required placeholder="hearth-cli"></div>
            <button type="submit">Add desktop app</button></form>
            """,
        "service-accounts": """
            <div class="table-wrap"><table><caption>{{caption}}</caption><thead><tr><th scope="col">Service account</th><th scope="col">Key ID</th><th scope="col">Created</th><th scope="col">Action</th></tr></thead><tbody>
            {{#keys}}<tr><td data-label="Service account">{{email}}</td><td data-label="Key ID"><code>{{keyId}}</code></td><td data-label="Created">{{created}}</td><td data-label="Action"><form method="post" action="/console/service-accounts/remove" class="inline" data-confirm="Remove key {{keyId}}? Tokens signed with it stop working at once.">
            <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="email" value="{{email}}"><input type="hidden" name="keyId" value="{{keyId}}">
            <button type="submit" class="secondary small" aria-label="Remove key {{keyId}}">Remove</button></form></td></tr>{{/keys}}
            </tbody></table></div>
            <h2>Create a key</h2>
            <form method="post" action="/console/service-accounts" class="card"><input type="hidden" name="csrf" value="{{csrf}}">
            <label for="sa-email">Service account email</label><input id="sa-email" type="email" name="email" required placeholder="admin@{{projectId}}.iam.gserviceaccount.com">
            <p class="note">The key file downloads once; Hearth keeps only its public half.</p>
            <div class="actions"><button type="submit">Create key and download JSON</button></div></form>
            """,
        "keys": """
            <div class="table-wrap"><table><caption>ID-token signing keys</caption><thead><tr><th scope="col">Key ID</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Active from</th></tr></thead><tbody>
            {{#keys}}<tr><td data-label="Key ID"><code>{{kid}}</code></td><td data-label="State"><span class="tag">{{state}}</span></td><td data-label="Created">{{created}}</td><td data-label="Active from">{{activates}}</td></tr>{{/keys}}
            </tbody></table></div>
            <p class="note">Keys rotate every {{rotationHours}} hours; the next key is published {{prepublishMinutes}} minutes before it signs.</p>
            <form method="post" action="/console/keys/rotate" data-confirm="Publish a new signing key now? It signs from {{prepublishMinutes}} minutes from now."><input type="hidden" name="csrf" value="{{csrf}}">
            <div class="actions"><button type="submit">Rotate now</button></div></form>
            """,
        "audit": """
            <div class="table-wrap"><table><caption>Admin writes, newest first</caption><thead><tr><th scope="col">Time (UTC)</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Fields</th></tr></thead><tbody>
            {{#entries}}<tr><td data-label="Time (UTC)">{{time}}</td><td data-label="Who">{{actor}}</td><td data-label="Action"><code>{{action}}</code></td><td data-label="Target">{{target}}</td><td data-label="Fields" class="note">{{detail}}</td></tr>{{/entries}}
            </tbody></table></div>
            <div class="actions">{{#next}}<a class="button secondary" href="{{next}}" rel="next">Older entries</a>{{/next}}</div>
            """,
    ]

    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        // The templates are constants: parsing cannot fail at run time.
        try! library.register(MustacheTemplate(string: layout), named: "layout")
        for (name, text) in templates { try! library.register(MustacheTemplate(string: text), named: name) }
        return library
    }()

    /// Renders the console page `template` with `context` inside the layout. `adminName`/`csrf` are nil on the
    /// login page (no navigation).
    public static func render(_ template: String, title: String, projectId: String, current: String?, adminName: String?, csrf: String?,
                              flash: String? = nil, error: String? = nil, context: [String: Any]) -> String {
        var values = context
        values["csrf"] = csrf ?? ""
        values["projectId"] = projectId
        let body = library.render(values, withTemplate: template) ?? ""
        var page: [String: Any] = [
            "title": title, "stylesheet": stylesheet, "projectId": projectId, "body": body,
            "nav": navigation.map { ["label": $0.label, "href": $0.href, "current": $0.href == current] as [String: Any] },
        ]
        if let adminName, let csrf {
            page["signedIn"] = true
            page["adminName"] = adminName
            page["csrf"] = csrf
        }
        if let flash, !flash.isEmpty { page["flash"] = flash }
        if let error, !error.isEmpty { page["error"] = error }
        return library.render(page, withTemplate: "layout") ?? ""
    }
}
