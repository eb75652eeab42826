import Foundation

/// The corpus-driven loop: every seed as is, then seeded random mutations of seeds (and of inputs that passed),
/// each checked by the rig.
public enum FuzzLoop {
    public struct Report: Sendable {
        public var target: FuzzTarget
        public var seed: UInt64
        public var executions: Int
        public var seconds: Double
        public var findings: [(input: [UInt8], finding: FuzzFinding)]

        public var summary: String {
            "fuzz \(target.rawValue): \(executions) inputs in \(String(format: "%.1f", seconds)) s (\(Int(Double(executions) / max(seconds, 0.001)))/s), seed \(seed), \(findings.count) finding(s)"
        }
    }

    public static func run(_ rig: FuzzRig, _ target: FuzzTarget, seed: UInt64, iterations: Int, until deadline: Date? = nil,
                           extraSeeds: [[UInt8]] = []) async -> Report {
        let started = Date()
        var rng = SeededGenerator(seed: seed &+ UInt64(FuzzTarget.allCases.firstIndex(of: target)! + 1) &* 0x9E37_79B9_7F4A_7C15)
        let seeds = FuzzCorpus.seeds(target) + extraSeeds
        var pool = seeds.isEmpty ? [[]] : seeds
        var report = Report(target: target, seed: seed, executions: 0, seconds: 0, findings: [])
        func check(_ input: [UInt8]) async {
            report.executions += 1
            if let finding = await rig.check(target, input) { report.findings.append((input, finding)) }
        }
        for input in seeds { await check(input) }
        var count = 0
        while count < iterations, deadline.map({ Date() < $0 }) ?? true, report.findings.count < 10 {
            let base = pool.randomElement(using: &rng)!
            let input = FuzzCorpus.mutate(base, using: &rng, others: pool)
            await check(input)
            // Keep some passing mutations as bases, so edits accumulate (bounded pool).
            if count % 4 == 0 { if pool.count < 256 { pool.append(input) } else { pool[Int.random(in: seeds.count..<pool.count, using: &rng)] = input } }
            count += 1
        }
        report.seconds = Date().timeIntervalSince(started)
        return report
    }
}
