import Foundation

/// Instruction counts of the server under `valgrind --tool=callgrind --instr-atstart=no` (`--callgrind`): the
/// counters are zeroed and instrumentation switched on just before a scenario's requests, and dumped just after,
/// so a dump holds that scenario's instructions (every thread of the server) and nothing else. Counts are stable
/// on a busy machine where CPU times are not; wall times under valgrind mean nothing.
enum Callgrind {
    static func start(pid: Int32) throws {
        try control(["-z", "\(pid)"])
        try control(["-i", "on", "\(pid)"])
    }

    /// Dumps the scenario and answers its total instructions (`Ir`); the dump stays in `directory` for
    /// `callgrind_annotate`. Callgrind reads commands only while the process runs code, so an idle server is
    /// `poke`d (a `/healthz`, a few thousand instructions against the scenario's hundreds of millions) until the
    /// dump appears.
    static func stop(pid: Int32, directory: String, label: String, poke: @Sendable () async -> Void) async throws -> Double {
        let before = dumps(pid: pid, directory: directory)
        // The dump's description: letters, digits and underscores only (the command goes through vgdb's monitor).
        let description = String(label.map { $0.isLetter || $0.isNumber ? $0 : "_" })
        try control(["-d", description, "\(pid)"])
        for _ in 0..<600 {
            if let file = dumps(pid: pid, directory: directory).subtracting(before).first,
               let text = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8),
               let total = totals(text) {
                try control(["-i", "off", "\(pid)"])
                return total
            }
            await poke()
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BenchError("callgrind wrote no dump for \(label) in \(directory)")
    }

    private static func dumps(pid: Int32, directory: String) -> Set<String> {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return Set(files.filter { $0.hasPrefix("callgrind.out.\(pid).") })
    }

    /// The `totals:` line at the end of a dump; nil until the file is complete.
    static func totals(_ text: String) -> Double? {
        for line in text.split(separator: "\n").reversed() where line.hasPrefix("totals:") {
            if let value = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) { return value }
        }
        return nil
    }

    private static func control(_ arguments: [String]) throws {
        guard OpenSSLSpeed.run(["callgrind_control"] + arguments) != nil else {
            throw BenchError("callgrind_control \(arguments.joined(separator: " ")) failed (is the server running under valgrind?)")
        }
    }
}
