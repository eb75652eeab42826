import Mustache

/// A console page's template: one `Templates/console-<name>.mustache` file. The names are the library's names, so
/// a page cannot ask for a template that does not exist.
public enum ConsoleTemplate: String, CaseIterable, Sendable {
    case signedIn = "console-signed-in"
    case blank = "console-blank"
    case login = "console-login"
    case overview = "console-overview"
    case users = "console-users"
    case user = "console-user"
    case confirmDelete = "console-confirm-delete"
    case providers = "console-providers"
    case provider = "console-provider"
    case appleProvider = "console-provider-apple"
    case providerTest = "console-provider-test"
    case settings = "console-settings"
    case apps = "console-apps"
    case serviceAccounts = "console-service-accounts"
    case keys = "console-keys"
    case audit = "console-audit"
    case templates = "console-templates"
    case tenants = "console-tenants"
    case tenant = "console-tenant"
    case confirmDeleteTenant = "console-confirm-delete-tenant"
    case blockingFunctions = "console-blocking-functions"
    case phone = "console-phone"

    var source: [UInt8] {
        switch self {
        case .signedIn: PackageResources.console_signed_in_mustache
        case .blank: PackageResources.console_blank_mustache
        case .login: PackageResources.console_login_mustache
        case .overview: PackageResources.console_overview_mustache
        case .users: PackageResources.console_users_mustache
        case .user: PackageResources.console_user_mustache
        case .confirmDelete: PackageResources.console_confirm_delete_mustache
        case .providers: PackageResources.console_providers_mustache
        case .provider: PackageResources.console_provider_mustache
        case .appleProvider: PackageResources.console_provider_apple_mustache
        case .providerTest: PackageResources.console_provider_test_mustache
        case .settings: PackageResources.console_settings_mustache
        case .apps: PackageResources.console_apps_mustache
        case .serviceAccounts: PackageResources.console_service_accounts_mustache
        case .keys: PackageResources.console_keys_mustache
        case .audit: PackageResources.console_audit_mustache
        case .templates: PackageResources.console_templates_mustache
        case .tenants: PackageResources.console_tenants_mustache
        case .tenant: PackageResources.console_tenant_mustache
        case .confirmDeleteTenant: PackageResources.console_confirm_delete_tenant_mustache
        case .blockingFunctions: PackageResources.console_blocking_functions_mustache
        case .phone: PackageResources.console_phone_mustache
        }
    }
}

/// The other templates: the pages' frame and partials.
enum PageTemplate: String, CaseIterable {
    /// The `<head>` and banner of a message or login page (a partial).
    case head
    /// ``Pages/message(title:message:tone:facts:items:detail:links:badge:)``.
    case message
    /// A dev identity provider's login form.
    case login
    /// A dev provider's `form_post` answer, ``Pages/formPost(title:action:fields:script:)``.
    case formPost = "form-post"
    /// An email action page: ``Pages/action(title:message:tone:facts:error:forms:note:links:badge:)``.
    case action
    /// The dev mailbox, ``Pages/devMailbox(_:summary:clear:)``.
    case devMail = "dev-mail"
    /// The dev SMS sink, ``Pages/devSms(_:summary:clear:)``.
    case devSms = "dev-sms"
    /// The console's frame: navigation, flash and error, and the page body.
    case consoleLayout = "console-layout"
    /// The passkey page, ``Pages/passkey(enroll:options:returnURL:state:appName:site:script:)``.
    case passkey
    /// The overview's chart, an SVG (a partial).
    case consoleChart = "console-chart"
    /// The dev try page of the web flow, ``Pages/devTryWeb(providers:selected:customParameters:scopes:apiKey:origin:handler:signIn:warning:links:script:)``.
    case devTryWeb = "dev-try-web"
    /// A tenant's create and edit form fields (a partial of the Tenants and tenant pages).
    case consoleTenantFields = "console-tenant-fields"

    var source: [UInt8] {
        switch self {
        case .head: PackageResources.head_mustache
        case .message: PackageResources.message_mustache
        case .login: PackageResources.login_mustache
        case .formPost: PackageResources.form_post_mustache
        case .action: PackageResources.action_mustache
        case .devMail: PackageResources.dev_mail_mustache
        case .devSms: PackageResources.dev_sms_mustache
        case .consoleLayout: PackageResources.console_layout_mustache
        case .passkey: PackageResources.passkey_mustache
        case .consoleChart: PackageResources.console_chart_mustache
        case .devTryWeb: PackageResources.dev_try_web_mustache
        case .consoleTenantFields: PackageResources.console_tenant_fields_mustache
        }
    }
}

/// The templates and assets under `Templates/`, compiled into the module (`embedInCode`), so `hearth` stays one
/// file to deploy. A file's last newline is not part of its text.
enum Templates {
    static func text(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// The name of the template that renders a console page's ``ConsolePages/BodyScope``: the page's own template
    /// with the page on top of the scope, so what the page does not answer (`csrf`, `projectId`) comes from the scope.
    static func bodyName(_ template: ConsoleTemplate) -> String { template.rawValue + "+scope" }

    /// Every template under its name, for partials (`{{> head}}`) and rendering.
    static let library: MustacheLibrary = {
        var library = MustacheLibrary()
        // The files are part of the binary: a parse error is a programming error, and the test that renders every
        // page finds it.
        for template in PageTemplate.allCases {
            try! library.register(text(template.source), named: template.rawValue)
        }
        for template in ConsoleTemplate.allCases {
            try! library.register(text(template.source), named: template.rawValue)
            try! library.register("{{#page}}{{> \(template.rawValue)}}{{/page}}", named: bodyName(template))
        }
        return library
    }()

    /// Renders `model` (a struct whose stored properties the template reads) with the template named `name`.
    static func render(_ model: Any, _ name: String) -> String {
        guard let html = library.render(model, withTemplate: name) else {
            // Every case of both enums is registered above, so this cannot happen; never answer a blank page.
            preconditionFailure("no template named \(name)")
        }
        return html
    }

    /// The stylesheet of every page.
    static let pagesStylesheet = text(PackageResources.pages_css)
    /// The console's additions to it.
    static let consoleStylesheet = text(PackageResources.console_css)
    /// The console's script.
    static let consoleScript = text(PackageResources.console_js)
    /// The passkey page's script.
    static let passkeyScript = text(PackageResources.passkey_js)
    /// The dev try web page's script.
    static let devTryWebScript = text(PackageResources.dev_try_web_js)
    /// The web result page's script.
    static let webResultScript = text(PackageResources.web_result_js)
    /// The helper iframe's script.
    static let webIframeScript = text(PackageResources.iframe_js)
}
