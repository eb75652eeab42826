import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The progress bar of the CLI's long commands (`hearth users import`, `hearth users export`), always on standard error.
///
/// When standard error is a terminal, one line is redrawn in place (at most ten times a second):
///
///     [#########-----------]  45%  450 000 / 1 000 000 users  21 034 users/s  ETA 26 s
///
/// Otherwise (CI logs, a pipe) one plain line is written each time another 10 % is done, and one at the end:
///
///     45%  450 000 / 1 000 000 users  21 034 users/s  ETA 26 s
///
/// The fraction done is `done / total`, counted in items (`unit`):
///
///     let progress = Progress(total: users, unit: "users")
///     progress.advance(to: usersDone)
///     progress.finish()
///
/// Safe to share between tasks; a `total` of 0 (nothing to do) draws nothing until `finish()`.
final class Progress: Sendable {
    private struct State {
        var done = 0
        var lastDraw: ContinuousClock.Instant?
        var lastDecile = -1
        var finished = false
        var drewOnTerminal = false
    }

    private let total: Int
    private let unit: String
    private let terminal: Bool
    private let started = ContinuousClock.now
    private let state = Mutex(State())

    /// A bar for `total` units of work named `unit` (a plural: "users").
    /// - Parameter terminal: redraw one line in place; by default when standard error is a terminal.
    init(total: Int, unit: String, terminal: Bool = isatty(STDERR_FILENO) != 0) {
        self.total = max(total, 0)
        self.unit = unit
        self.terminal = terminal
    }

    /// Reports that `done` of `total` are done. Cheap to call often: it draws only when the line would change.
    func advance(to done: Int) {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.done = min(max(done, 0), total)
            guard total > 0 else { return nil }
            let now = ContinuousClock.now
            if terminal {
                if let last = state.lastDraw, now - last < .milliseconds(100) { return nil }
                state.lastDraw = now
                state.drewOnTerminal = true
                return "\r" + render(state, at: now, bar: true) + "\u{1B}[K"
            }
            let decile = state.done * 10 / total
            guard decile > state.lastDecile, decile < 10 else { return nil }
            state.lastDecile = decile
            return decile == 0 ? nil : render(state, at: now, bar: false) + "\n"
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// Draws the final line (100 %, the items done, the average rate and the time taken) and ends it; later calls do nothing.
    /// - Parameter items: the final count of items, when it differs from `total` (users added during an export).
    func finish(items: Int? = nil) {
        let line: String? = state.withLock { state in
            guard !state.finished else { return nil }
            state.finished = true
            state.done = total
            let finalItems = items ?? total
            let now = ContinuousClock.now
            let elapsed = seconds(now - started)
            let rate = Double(finalItems) / max(elapsed, 0.001)
            var text = terminal ? "\r[\(String(repeating: "#", count: Self.width))] 100%  " : "100%  "
            text += "\(Self.grouped(finalItems)) \(unit)  \(Self.grouped(Int(rate))) \(unit)/s  in \(Self.duration(elapsed))"
            return text + (terminal ? "\u{1B}[K\n" : "\n")
        }
        if let line { FileHandle.standardError.write(Data(line.utf8)) }
    }

    private static let width = 20

    private func render(_ state: State, at now: ContinuousClock.Instant, bar: Bool) -> String {
        let fraction = Double(state.done) / Double(max(total, 1))
        let elapsed = seconds(now - started)
        let rate = Double(state.done) / max(elapsed, 0.001)
        var text = ""
        if bar {
            let filled = min(Self.width, Int(fraction * Double(Self.width)))
            text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: Self.width - filled) + "] "
        }
        let percent = String(Int(fraction * 100))
        // Aligned on a terminal (the line is redrawn in place); plain lines start with the figure.
        text += (bar ? String(repeating: " ", count: max(0, 3 - percent.count)) : "") + percent + "%  "
        text += "\(Self.grouped(state.done)) / \(Self.grouped(total)) \(unit)"
        text += "  \(Self.grouped(Int(rate))) \(unit)/s"
        if fraction > 0, elapsed >= 0.5 {
            text += "  ETA \(Self.duration(elapsed * (1 - fraction) / fraction))"
        }
        return text
    }

    private func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `1000000` as `1 000 000`.
    static func grouped(_ value: Int) -> String {
        let digits = String(abs(value))
        var out = ""
        for (offset, character) in digits.enumerated() {
            if offset > 0, (digits.count - offset) % 3 == 0 { out += " " }
            out.append(character)
        }
        return (value < 0 ? "-" : "") + out
    }

    /// `26 s`, `4 min 05 s`, `1 h 02 min`; tenths under 10 s at the end (`1.4 s`).
    static func duration(_ seconds: Double) -> String {
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        if whole < 120 { return "\(whole) s" }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if whole < 3600 { return "\(whole / 60) min \(two(whole % 60)) s" }
        return "\(whole / 3600) h \(two((whole % 3600) / 60)) min"
    }
}
