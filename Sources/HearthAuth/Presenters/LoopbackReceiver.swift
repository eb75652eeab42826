import Foundation
import HearthWire
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if !os(iOS) && !os(tvOS) && !os(watchOS) && !os(visionOS)
/// A one-shot HTTP listener on 127.0.0.1 and an ephemeral port (RFC 8252 loopback redirect): waits for the
/// browser's request to `path`, answers a short page and returns the full URL. Other paths get a 404; the wait
/// ends at the timeout or on task cancellation.
package final class LoopbackReceiver: Sendable {
    let port: Int
    let path: String
    let providerID: String
    let page: (@Sendable (LoopbackOutcome) -> String)?
    private let socket: Int32
    private let closed = LockedValue(false)
    /// The browser's connection for the callback, held open until `finish(_:)` answers it with the outcome.
    private let pendingClient = LockedValue<Int32?>(nil)

    package init(path: String, providerID: String, page: (@Sendable (LoopbackOutcome) -> String)? = nil) throws {
        self.path = path
        self.providerID = providerID
        self.page = page
        #if canImport(Glibc)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw AuthErrorUtils.error(.webInternalError, message: "Could not open a loopback socket.") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 8) == 0 else {
            _ = close(fd)
            throw AuthErrorUtils.error(.webInternalError, message: "Could not listen on a loopback port.")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.socket = fd
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { shutdown() }

    /// `http://127.0.0.1:<port><path>`.
    package var url: String { "http://127.0.0.1:\(port)\(path)" }

    package func shutdown() {
        let wasClosed = closed.withLock { value -> Bool in
            defer { value = true }
            return value
        }
        if !wasClosed { _ = close(socket) }
        // A callback never answered gets the plain "confirmed" page rather than a dropped connection.
        finish(.confirmed(providerID: providerID))
    }

    /// Answers the browser's callback request with the page for `outcome` (once; later calls do nothing).
    package func finish(_ outcome: LoopbackOutcome) {
        guard let client = pendingClient.withLock({ value -> Int32? in
            defer { value = nil }
            return value
        }) else { return }
        Self.respond(client, status: "200 OK", body: (page ?? Self.plainPage)(outcome))
        _ = close(client)
    }

    /// Waits for the callback request; `webContextCancelled` on timeout or cancellation.
    package func waitForCallback(timeout: TimeInterval) async throws -> URL {
        let cancelled = LockedValue(false)
        let deadline = Date().addingTimeInterval(timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<URL, any Error>) in
                Thread.detachNewThread { [self] in
                    continuation.resume(with: Result { try self.acceptLoop(deadline: deadline, cancelled: cancelled) })
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    private func acceptLoop(deadline: Date, cancelled: LockedValue<Bool>) throws -> URL {
        defer {
            let wasClosed = closed.withLock { value -> Bool in
                defer { value = true }
                return value
            }
            if !wasClosed { _ = close(socket) }
        }
        while true {
            if cancelled.withLock({ $0 }) || Date() >= deadline || closed.withLock({ $0 }) {
                throw AuthErrorUtils.error(.webContextCancelled)
            }
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 200)
            guard ready > 0 else { continue }
            let client = accept(socket, nil, nil)
            guard client >= 0 else { continue }
            guard let target = Self.readRequestTarget(client) else {
                _ = close(client)
                continue
            }
            if target.hasPrefix(path + "?") || target == path {
                // Answered by `finish(_:)` once the app knows the outcome (signed in, account exists, refused…).
                pendingClient.withLock { $0 = client }
                return URL(string: "http://127.0.0.1:\(port)\(target)") ?? URL(string: url)!
            }
            Self.respond(client, status: "404 Not Found", body: "Not found")
            _ = close(client)
        }
    }

    /// The page outcome for an error of the sign-in (after the callback arrived).
    static func outcome(of error: any Error, providerID: String) -> LoopbackOutcome {
        let error = error as NSError
        switch AuthErrorCode(rawValue: error.code) {
        case .webContextCancelled?: return .cancelled(providerID: providerID, message: error.localizedDescription)
        // The provider vouched for the user; the app asks for the second factor and completes the sign-in.
        case .secondFactorRequired?: return .confirmed(providerID: providerID)
        case .accountExistsWithDifferentCredential?:
            return .accountExists(providerID: providerID, email: error.userInfo[AuthErrors.userInfoEmailKey] as? String,
                                  signInMethods: error.userInfo[AuthErrors.userInfoSignInMethodsKey] as? [String] ?? [])
        case .invalidCredential? where error.userInfo[AuthErrors.userInfoProviderErrorKey] != nil:
            return .refused(providerID: providerID, message: error.localizedDescription)
        case .networkError?, .webNetworkRequestFailed?, .internalError?, .webInternalError?:
            return .failed(providerID: providerID, message: error.localizedDescription)
        default:
            // Hearth's rules: linked to another account, email in use, provider not enabled, the answer failed a check.
            return .notAllowed(providerID: providerID, message: error.localizedDescription)
        }
    }

    /// What the handler's result says: confirmed, cancelled or refused.
    static func outcome(of url: URL, providerID: String) -> LoopbackOutcome {
        let parameters = AuthHandlerProtocol.resultParameters(of: url)
        if let json = parameters[.firebaseError] {
            let error = FirebaseWebError(jsonString: json)
            let message = error?.message ?? "The sign-in did not complete."
            if error?.webCode == .webContextCancelled { return .cancelled(providerID: providerID, message: message) }
            return .stopped(by: error?.refusal ?? .rules, providerID: providerID, message: message)
        }
        return .confirmed(providerID: providerID)
    }

    /// The built-in page: plain HTML, escaped text.
    @Sendable static func plainPage(_ outcome: LoopbackOutcome) -> String {
        let (title, message): (String, String) = switch outcome {
        case .confirmed(let provider): ("\(provider) confirmed your identity", "Return to the app: it completes the sign-in and shows the result. You can close this window.")
        case .signedIn(let provider, let email): ("Signed in with \(provider)", "\(email.map { "Signed in as \($0). " } ?? "")You can close this window and return to the app.")
        case .linked(let provider, let email): ("\(provider) linked", "\(email.map { "\(provider) is now linked to \($0). " } ?? "")You can close this window and return to the app.")
        case .accountExists(let provider, let email, let methods):
            ("An account already exists for \(email ?? "this email")",
             "Sign in to it\(methods.isEmpty ? "" : " with \(methods.joined(separator: " or "))") first, then link \(provider). Return to the app.")
        case .cancelled(let provider, let message): ("Sign-in with \(provider) cancelled", message)
        case .refused(let provider, let message): (SignInRefusal.provider.title(provider: provider), message)
        case .notAllowed(let provider, let message): (SignInRefusal.rules.title(provider: provider), message)
        case .failed(let provider, let message): (SignInRefusal.server.title(provider: provider), message)
        }
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
        }
        return "<!doctype html><meta charset=utf-8><meta name=viewport content=\"width=device-width\"><title>\(escape(title))</title><h1>\(escape(title))</h1><p>\(escape(message))</p>"
    }

    /// The request target of the first line (`GET /path?query HTTP/1.1`), reading at most 16 KiB.
    private static func readRequestTarget(_ client: Int32) -> String? {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 16 * 1024 {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count >= 4, data.suffix(4) == [13, 10, 13, 10] { break }
            if let text = String(bytes: data, encoding: .utf8), text.contains("\r\n\r\n") { break }
        }
        guard let text = String(bytes: data, encoding: .utf8), let line = text.split(separator: "\r\n").first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private static func respond(_ client: Int32, status: String, body: String) {
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n\(body)"
        _ = response.withCString { send(client, $0, strlen($0), 0) }
    }
}
#endif
