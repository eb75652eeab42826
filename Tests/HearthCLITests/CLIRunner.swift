import Foundation
import HearthTesting
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `hearth` binary as a user would (`.build/debug/hearth`, or `HEARTH_BINARY`).
struct CLI {
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        var output: String { stdout + stderr }
        /// `stderr` without the server libraries' log lines (`2026-11-28T18:22:29+0000 warning …`): what the command
        /// says to its user. (A PostgreSQL store's pool can log a start-up warning first on a loaded machine.)
        var messages: String {
            stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                !(line.count > 11 && line.prefix(10).allSatisfy { $0.isNumber || $0 == "-" } && line.dropFirst(10).first == "T")
            }.joined(separator: "\n")
        }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static var binary: String {
        ProcessInfo.processInfo.environment["HEARTH_BINARY"] ?? root.appendingPathComponent(".build/debug/hearth").path
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The environment of a run: no HEARTH_* from the caller, a private config home, no browser opener.
    static func environment(_ extra: [String: String], configHome: String) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment["XDG_CONFIG_HOME"] = configHome
        environment["PATH"] = "/usr/sbin:/sbin"
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs to completion (killed after `timeout` seconds).
    @discardableResult
    static func run(_ arguments: [String], environment extra: [String: String] = [:], configHome: String? = nil,
                    in directory: String? = nil, timeout: TimeInterval = 60) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.environment = environment(extra, configHome: configHome ?? temporaryDirectory())
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outData = Locked(Data()), errData = Locked(Data())
        let readers = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            readers.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.mutate { $0 = data }
                readers.leave()
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        readers.wait()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData.value, as: UTF8.self),
                      stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

/// `hearth` on a terminal: util-linux's script(1) gives the command one, and what is written to its input is typed
/// there. Standard output and error arrive together in `text`.
final class TerminalRun: Sendable {
    let process: Process
    let input: Pipe
    let output: Pipe
    let text = Locked("")

    /// Starts `hearth <command>` (one shell command line) on a terminal.
    init(_ command: String, environment: [String: String] = [:], configHome: String) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-q", "-e", "-c", "\(CLI.binary) \(command)", "/dev/null"]
        process.environment = CLI.environment(environment, configHome: configHome)
        input = Pipe()
        output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let text = text
        output.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            text.mutate { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
    }

    /// Waits (until `deadline`) for `prompt` in the output; false if it did not come.
    func wait(for prompt: String, until deadline: Date) async throws -> Bool {
        while !text.value.contains(prompt), process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        return text.value.contains(prompt)
    }

    /// Types a line.
    func type(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// Waits (until `deadline`) for the command to end, stopping it then; its exit status.
    func finish(by deadline: Date) async throws -> Int32 {
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        output.fileHandleForReading.readabilityHandler = nil
        return process.terminationStatus
    }
}

/// A `hearth serve` running in the background; stopped with `stop()`.
final class RunningServer: Sendable {
    let process: Process
    let output: Locked<String>
    let errors: Locked<String>
    let dataDir: String
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    private init(process: Process, output: Locked<String>, errors: Locked<String>, dataDir: String, port: Int) {
        self.process = process
        self.output = output
        self.errors = errors
        self.dataDir = dataDir
        self.port = port
    }

    /// Starts `hearth serve --port 0 <arguments>` and waits for its banner.
    static func start(_ arguments: [String] = [], dataDir: String = CLI.temporaryDirectory() + "/data",
                      environment: [String: String] = [:]) throws -> RunningServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["serve", "--port", "0", "--data-dir", dataDir] + arguments
        process.environment = CLI.environment(environment, configHome: CLI.temporaryDirectory())
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let output = Locked(""), errors = Locked("")
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.mutate { $0 += String(decoding: data, as: UTF8.self) }
        }
        err.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            errors.mutate { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, process.isRunning {
            let text = output.value
            if let range = text.range(of: #"at http://[^ \n]+:(\d+)"#, options: .regularExpression),
               let port = Int(text[range].split(separator: ":").last ?? "") {
                return RunningServer(process: process, output: output, errors: errors, dataDir: dataDir, port: port)
            }
            usleep(50_000)
        }
        process.terminate()
        throw CLIFailure("the server did not start: \(output.value) \(errors.value)")
    }

    /// Starts a server once (creating the database and keys) and stops it.
    static func startAndStop(dataDir: String) {
        (try? start([], dataDir: dataDir))?.stop()
    }

    var banner: String { output.value }
    var log: String { errors.value }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Texts no user should see.
let rawErrorMarkers = ["NSCocoaErrorDomain", "Error Domain=", "errno", "NSPOSIXErrorDomain", "Fatal error", "IOError("]
