import Foundation
import HearthCore
import HearthDevIdP
import HearthPages
import HearthTesting
import HearthWire
import Testing

/// The dev identity providers' pages all come from one template and one stylesheet: the Apple- and Google-shaped
/// providers' login forms and Apple's `form_post` page look like the Microsoft and Yahoo forms.
@Suite struct DevIdPPagesTests {
    /// What every dev provider's login form carries: the shared stylesheet, a viewport, the banner, the card.
    static func expectSharedLook(_ html: String, provider: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(html.contains("<style>\(Pages.stylesheet)</style>"), "no shared stylesheet", sourceLocation: sourceLocation)
        #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#), sourceLocation: sourceLocation)
        #expect(html.contains("<title>Sign in to \(provider) · Hearth</title>"), sourceLocation: sourceLocation)
        #expect(html.contains("<header>Hearth · development provider</header>"), sourceLocation: sourceLocation)
        #expect(html.contains(#"<section class="card"><h1>Sign in to \#(provider)</h1>"#), sourceLocation: sourceLocation)
        #expect(html.contains(#"<button class="secondary" type="submit" name="action" value="cancel" formnovalidate>Cancel</button>"#),
                sourceLocation: sourceLocation)
        #expect(!html.contains("{{"), sourceLocation: sourceLocation)
    }

    /// Issue 35, smaller things: the Apple and Google dev sign-in forms were bare HTML; they are the shared login
    /// template (the stylesheet, banner and card of the Microsoft and Yahoo forms) with their checkbox and note.
    @Test func appleAndGoogleFormsHaveTheSharedLook() async throws {
        try await DevAppleGoogleProviderTests.run { env in
            let apple = try await Browser.get(DevAppleGoogleProviderTests.appleAuthorize(env))
            #expect(apple.status == 200)
            Self.expectSharedLook(apple.body, provider: "Apple")
            #expect(apple.body.contains(#"<label class="check" for="hide_email"><input id="hide_email" type="checkbox" name="hide_email" value="1"> Hide My Email (share a private relay address)</label>"#))

            let google = try await Browser.get(DevAppleGoogleProviderTests.googleAuthorize(env, hd: "example.com"))
            #expect(google.status == 200)
            Self.expectSharedLook(google.body, provider: "Google")
            #expect(google.body.contains("<p>This app asks for an account of example.com.</p>"))
            #expect(google.body.contains(#"<input id="unverified" type="checkbox" name="unverified" value="1"> Email address not verified</label>"#))

            // A refused address comes back on the same page, with what was typed and the error.
            let form = try await Browser.get(DevAppleGoogleProviderTests.appleAuthorize(env))
            let requestId = try #require(HearthHarness.capture(#"name="request_id" value="([^"]+)""#, in: form.body))
            let again = try await Browser.post(env.apple.base + "/auth/authorize",
                                               form: [("request_id", requestId), ("email", "not-an-address"), ("name", "Ada <b>"), ("action", "login")])
            #expect(again.status == 400)
            Self.expectSharedLook(again.body, provider: "Apple")
            #expect(again.body.contains(#"<p class="error-text" role="alert">Enter a valid email address.</p>"#))
            #expect(again.body.contains(#"name="name" value="Ada &lt;b&gt;""#))

            // The Microsoft form, whose look the others now share, keeps it and has no checkbox.
            let microsoft = Pages.login(provider: "Microsoft", action: "/a", requestId: "r", email: "", name: "", entraTenant: nil, error: nil)
            Self.expectSharedLook(microsoft, provider: "Microsoft")
            #expect(!microsoft.contains(#"type="checkbox""#))
        }
    }

    /// Issue 35, smaller things: Apple's `form_post` answer (seen while it submits, or for good without JavaScript) is
    /// a page in the same look, and still POSTs its fields by itself.
    @Test func applesFormPostPageHasTheSharedLook() async throws {
        try await DevAppleGoogleProviderTests.run { env in
            let page = try await DevAppleGoogleProviderTests.login(DevAppleGoogleProviderTests.appleAuthorize(env), email: "ada@example.com", name: "Ada")
            #expect(page.status == 200)
            #expect(page.body.contains("<style>\(Pages.stylesheet)</style>"))
            #expect(page.body.contains("<title>Returning to the app · Hearth</title>"))
            #expect(page.body.contains(#"<form method="post" action="\#(env.redirectUri)">"#))
            #expect(page.body.contains("<script>document.forms[0].submit();</script>"))
            #expect(DevAppleGoogleProviderTests.postedFields(page)["code"] != nil)
        }
    }
}
