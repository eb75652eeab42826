import Foundation

/// Shows the web sign-in to the user. The SDK gives it the auth handler URL; the flow ends when the browser
/// reaches the app's callback (a loopback address the SDK listens on, or the app's custom URL scheme, which the
/// app passes to `Auth.canHandle(_:)`).
public protocol AuthUIDelegate: Sendable {
    /// Opens `url` for the user (a browser, an in-app web view, or a program in tests).
    func open(_ url: URL) async throws
}

/// The desktop default: opens the system browser (`xdg-open` on Linux, `open` on macOS) and prints the URL too,
/// so it also works where no browser can be started.
public struct SystemBrowserUIDelegate: AuthUIDelegate {
    /// Where the "open this URL" line goes.
    public let announce: @Sendable (String) -> Void

    public init(announce: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }) {
        self.announce = announce
    }

    public func open(_ url: URL) async throws {
        announce("If your browser does not open, visit:\n  \(url.absoluteString)")
        #if os(macOS)
        let opener = "/usr/bin/open"
        #else
        let opener = "/usr/bin/xdg-open"
        #endif
        #if os(macOS) || os(Linux)
        guard FileManager.default.isExecutableFile(atPath: opener) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
        #endif
    }
}
