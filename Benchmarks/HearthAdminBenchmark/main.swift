// HearthAdmin's TokenVerifier measured against the raw RSA verification it cannot avoid, and against Python
// google-auth on the same tokens, all in one run. Usage:
//   swift run -c release HearthAdminBenchmark [path/to/python-with-google-auth]
// Prints verifications per second and the ratios (targets: ≥ 0.85 of raw RSA, ≥ 5× google-auth).
import Crypto
import CryptoExtras
import Foundation
import HearthAdmin
import HearthTesting
import HearthWire
import X509

let python = CommandLine.arguments.dropFirst().first { !$0.hasPrefix("--") }
let iterations = 2000

func rate(_ count: Int, _ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

func base64URL(_ text: Substring) -> Data {
    var value = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while value.count % 4 != 0 { value.append("=") }
    return Data(base64Encoded: value)!
}

try await HearthHarness.run { h in
    var tokens: [String] = []
    for index in 0..<20 { tokens.append(try await h.signUp(email: "bench\(index)@example.com").idToken!) }
    let verifier = TokenVerifier(projectId: h.projectId, keySource: .hearth(h.baseURL))
    _ = try await verifier.verifyIDToken(tokens[0])

    // Reference: RSA-SHA256 (PKCS#1 v1.5) verification of the same signing inputs, keys already parsed.
    let certificates = try JSONDecoder().decode([String: String].self,
                                                from: try await h.send(.get, WirePaths.x509Certificates).body)
    let kid = (jwtHeader(tokens[0])?["kid"] as? String)!
    let publicKey = _RSA.Signing.PublicKey(try Certificate(pemEncoded: certificates[kid]!).publicKey)!
    let prepared = tokens.map { token -> (Data, _RSA.Signing.RSASignature) in
        let parts = token.split(separator: ".")
        return (Data("\(parts[0]).\(parts[1])".utf8), _RSA.Signing.RSASignature(rawRepresentation: base64URL(parts[2])))
    }
    for (input, signature) in prepared { precondition(publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5)) }

    // Alternating rounds, best of each: the machine may be shared, and both sides see the same load.
    var raw = 0.0
    var hearth = 0.0
    for _ in 0..<5 {
        raw = max(raw, await rate(iterations) {
            for index in 0..<iterations {
                let (input, signature) = prepared[index % prepared.count]
                precondition(publicKey.isValidSignature(signature, for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5))
            }
        })
        hearth = max(hearth, try await rate(iterations) {
            for index in 0..<iterations { _ = try await verifier.verifyIDToken(tokens[index % tokens.count]) }
        })
    }
    print("raw RSA-SHA256 verify:          \(Int(raw)) /s")
    print("HearthAdmin TokenVerifier:      \(Int(hearth)) /s  (ratio to raw RSA: \(String(format: "%.2f", hearth / raw)), target ≥ 0.85)")

    guard let python else {
        print("google-auth: skipped (pass the path of a python3 with google-auth installed)")
        return
    }
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: tokens).write(to: directory.appendingPathComponent("tokens.json"))
    let script = """
        import json, sys, time
        from google.auth import jwt
        from google.auth.transport import requests as google_requests
        from google.oauth2 import id_token
        tokens = json.load(open(sys.argv[1])); url = sys.argv[2]; project = sys.argv[3]
        request = google_requests.Request()
        n = 300
        start = time.perf_counter()
        for i in range(n): id_token.verify_token(tokens[i % len(tokens)], request, audience=project, certs_url=url)
        verify_token = n / (time.perf_counter() - start)
        certs = request(url, method="GET").data
        certs = json.loads(certs)
        n = 2000
        start = time.perf_counter()
        for i in range(n): jwt.decode(tokens[i % len(tokens)], certs=certs, audience=project)
        print(json.dumps({"verify_token": verify_token, "jwt_decode_preloaded": n / (time.perf_counter() - start)}))
        """
    try script.write(to: directory.appendingPathComponent("bench.py"), atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python)
    process.arguments = [directory.appendingPathComponent("bench.py").path, directory.appendingPathComponent("tokens.json").path,
                         h.baseURL + WirePaths.x509Certificates, h.projectId]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard let figures = try JSONSerialization.jsonObject(with: output) as? [String: Double],
          let verifyToken = figures["verify_token"], let decode = figures["jwt_decode_preloaded"] else {
        print("google-auth: failed (\(String(decoding: output, as: UTF8.self)))")
        return
    }
    print("google-auth id_token.verify_token: \(Int(verifyToken)) /s  (HearthAdmin is \(String(format: "%.1f", hearth / verifyToken))×, target ≥ 5×)")
    print("google-auth jwt.decode, certs preloaded: \(Int(decode)) /s  (HearthAdmin is \(String(format: "%.1f", hearth / decode))×)")
}
