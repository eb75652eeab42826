import Foundation
import HearthFuzzing

// Two builds of one program:
// - libFuzzer (`scripts/fuzz`: `swift build --scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer -Xswiftc -DHEARTH_LIBFUZZER`):
//   libFuzzer's own main drives `LLVMFuzzerTestOneInput`; HEARTH_FUZZ_TARGET names the target.
// - plain (`swift run hearth-fuzz <target|all> [--seconds S] [--iterations N] [--seed X]`): the corpus-driven
//   mutation loop the property test runs, for as long as asked.

/// Runs an async check from a synchronous caller (libFuzzer's thread, not one of the concurrency pool's).
final class Blocking<Value: Sendable>: @unchecked Sendable {
    // Proof: `value` is written once by the task before `signal()` and read only after `wait()` returns.
    private var value: Value?
    private let semaphore = DispatchSemaphore(value: 0)

    static func run(_ body: @escaping @Sendable () async -> Value) -> Value {
        let box = Blocking<Value>()
        Task {
            box.value = await body()
            box.semaphore.signal()
        }
        box.semaphore.wait()
        return box.value!
    }
}

#if HEARTH_LIBFUZZER
nonisolated(unsafe) private var rig: FuzzRig?
nonisolated(unsafe) private var target: FuzzTarget = .json

/// Starts the rig for HEARTH_FUZZ_TARGET, once.
private func prepare() {
    if rig == nil {
        let name = ProcessInfo.processInfo.environment["HEARTH_FUZZ_TARGET"] ?? ""
        guard let chosen = FuzzTarget(rawValue: name) else {
            fatalError("set HEARTH_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        target = chosen
        rig = Blocking.run { try! await FuzzRig.start() }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // libFuzzer calls this from one thread, one input at a time.
    prepare()
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let current = rig!, chosen = target
    if let finding = Blocking.run({ await current.check(chosen, input) }) {
        fatalError("fuzz finding: \(finding)")
    }
    return 0
}

/// libFuzzer's driver, for programs that have their own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<CInt>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt

/// SwiftPM links an executable's `main` to `<module>_main` (so tests can link the module): here that entry hands
/// over to libFuzzer's driver.
@_cdecl("hearth_fuzz_main")
public func hearthFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    // The rig's fresh seeds (its own ID token, refresh token, live provider callbacks) go into the first corpus
    // directory, where libFuzzer reads (and writes) inputs.
    let directories = (1..<Int(argc)).compactMap { argv[$0].map { String(cString: $0) } }.filter { !$0.hasPrefix("-") }
    if let corpus = directories.first {
        prepare()
        for (index, seed) in (rig?.freshSeeds[target] ?? []).enumerated() {
            _ = FileManager.default.createFile(atPath: corpus + "/fresh-\(index)", contents: Data(seed))
        }
    }
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in fuzzOne(data, size) }
}
#else
@main
struct HearthFuzz {
    static func main() async throws {
        var arguments = Array(CommandLine.arguments.dropFirst())
        func option(_ name: String) -> String? {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
            defer { arguments.removeSubrange(index...(index + 1)) }
            return arguments[index + 1]
        }
        let seconds = option("--seconds").flatMap(Double.init)
        let iterations = option("--iterations").flatMap(Int.init)
        let seed = option("--seed").flatMap(UInt64.init) ?? UInt64(Date().timeIntervalSince1970)
        let which = arguments.first ?? "all"
        let targets = which == "all" ? FuzzTarget.allCases : [FuzzTarget(rawValue: which)].compactMap { $0 }
        guard !targets.isEmpty else {
            print("usage: hearth-fuzz <\(FuzzTarget.allCases.map(\.rawValue).joined(separator: "|"))|all> [--seconds S] [--iterations N] [--seed X]")
            exit(2)
        }
        let rig = try await FuzzRig.start()
        var failed = false
        for target in targets {
            let deadline = seconds.map { Date().addingTimeInterval($0 / Double(targets.count)) }
            let report = await FuzzLoop.run(rig, target, seed: seed, iterations: iterations ?? (deadline == nil ? 1000 : .max), until: deadline)
            print(report.summary)
            for finding in report.findings.prefix(5) {
                let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-fuzz-\(target.rawValue)-\(UUID().uuidString).input").path
                _ = FileManager.default.createFile(atPath: path, contents: Data(finding.input))
                print("  FINDING \(finding.finding) (input saved to \(path))")
                failed = true
            }
        }
        await rig.stop()
        exit(failed ? 1 : 0)
    }
}
#endif
