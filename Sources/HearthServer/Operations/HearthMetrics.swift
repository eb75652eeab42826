import Prometheus
import Synchronization

/// One server's metrics: Prometheus counters and duration histograms in this server's own registry, so two servers in
/// one process (tests, replicas) never mix their figures and nothing depends on the process-wide `MetricsSystem`.
/// `GET /metrics` renders ``exposition()``; each family carries its `# HELP` line (``MetricName/help``), made through
/// the registry's own descriptors (swift-metrics' factory passes no help text).
///
/// Names and label names live in ``MetricName``; the recording methods check that each call passes exactly the
/// label values its metric declares.
public final class HearthMetrics: Sendable {
    /// The Prometheus registry behind the handles.
    public let registry: PrometheusCollectorRegistry
    /// Sign-ins hash passwords (tens of milliseconds) and federated ones wait for a provider: buckets up to 10 s.
    static let durationBuckets: [Duration] = [
        .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25),
        .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500),
        .seconds(5), .seconds(10),
    ]

    public init() {
        registry = PrometheusCollectorRegistry()
    }

    /// A metric and its label values: the key of a handle made once.
    private struct HandleKey: Hashable {
        let name: MetricName
        let labels: [String]
    }

    /// The registry's handles, made on first use: the registry's own lookup (help text checked, labels sorted and
    /// compared under its lock) on every request cost more than the request's whole routing.
    private let counters = Mutex<[HandleKey: Counter]>([:])
    private let histograms = Mutex<[HandleKey: DurationHistogram]>([:])

    /// Adds `amount` to a counter.
    public func count(_ name: MetricName, _ labels: [String] = [], by amount: Int = 1) {
        counter(name, labels).increment(by: Int64(amount))
    }

    /// Records one duration in a histogram.
    public func record(_ name: MetricName, _ labels: [String] = [], nanoseconds: Int64) {
        histogram(name, labels).record(.nanoseconds(nanoseconds))
    }

    private func counter(_ name: MetricName, _ labels: [String]) -> Counter {
        let key = HandleKey(name: name, labels: labels)
        if let known = counters.withLock({ $0[key] }) { return known }
        let made = registry.makeCounter(descriptor: name.descriptor, labels: dimensions(name, labels))
        counters.withLock { $0[key] = made }
        return made
    }

    private func histogram(_ name: MetricName, _ labels: [String]) -> DurationHistogram {
        let key = HandleKey(name: name, labels: labels)
        if let known = histograms.withLock({ $0[key] }) { return known }
        let made = registry.makeDurationHistogram(descriptor: name.descriptor, labels: dimensions(name, labels), buckets: Self.durationBuckets)
        histograms.withLock { $0[key] = made }
        return made
    }

    /// Runs a store operation and records how long it took under ``MetricName/storeOperationDuration``.
    public func timeStore<Result>(_ operation: String, _ body: () async throws -> Result) async rethrows -> Result {
        let started = ContinuousClock.now
        do {
            let result = try await body()
            record(.storeOperationDuration, [operation, "ok"], nanoseconds: Self.nanoseconds(since: started))
            return result
        } catch {
            record(.storeOperationDuration, [operation, "error"], nanoseconds: Self.nanoseconds(since: started))
            throw error
        }
    }

    /// The current value of one counter (nil when it was never incremented): what `/metrics` shows for it.
    public func counterValue(_ name: MetricName, _ labels: [String] = []) -> Double? {
        let wanted = Dictionary(uniqueKeysWithValues: dimensions(name, labels))
        for line in exposition().split(separator: "\n") where line.hasPrefix(name.rawValue) {
            let rest = line.dropFirst(name.rawValue.count)
            var found: [String: String] = [:]
            var valueText = rest
            if rest.hasPrefix("{"), let close = rest.lastIndex(of: "}") {
                for pair in rest[rest.index(after: rest.startIndex)..<close].split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    found[String(parts[0])] = String(parts[1].dropFirst().dropLast())
                }
                valueText = rest[rest.index(after: close)...]
            } else if !rest.hasPrefix(" ") {
                continue
            }
            if found == wanted { return Double(valueText.drop { $0 == " " }) }
        }
        return nil
    }

    /// The Prometheus text exposition of every metric recorded so far.
    public func exposition() -> String {
        registry.emitToString()
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    private func dimensions(_ name: MetricName, _ labels: [String]) -> [(String, String)] {
        precondition(labels.count == name.labelNames.count, "\(name.rawValue) takes the labels \(name.labelNames)")
        return Array(zip(name.labelNames, labels))
    }
}
