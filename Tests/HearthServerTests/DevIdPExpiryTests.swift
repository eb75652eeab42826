import Foundation
import Testing
@testable import HearthDevIdP

/// The dev identity providers drop expired login forms and codes in place, oldest first.
@Suite struct DevIdPExpiryTests {
    static func request(at time: Date) -> DevIdPState.PendingRequest {
        DevIdPState.PendingRequest(clientId: "client", redirectUri: "http://127.0.0.1/cb", state: "s", nonce: "n",
                                   codeChallenge: nil, scope: "openid", entraTenant: nil, createdAt: time)
    }

    @Test func queuePopsOnlyDueEntriesInOrderAndCompacts() {
        var queue = ExpiryQueue()
        let start = Date(timeIntervalSince1970: 1_000_000)
        for index in 0..<200 { queue.append("k\(index)", expiresAt: start.addingTimeInterval(Double(index))) }
        var removed: [String] = []
        queue.removeExpired(at: start.addingTimeInterval(149.5)) { removed.append($0) }
        #expect(removed == (0..<150).map { "k\($0)" })
        #expect(queue.count == 50)
        // Not yet due: nothing goes, whatever the number of calls.
        removed = []
        queue.removeExpired(at: start.addingTimeInterval(149.9)) { removed.append($0) }
        #expect(removed.isEmpty)
        // A clock that steps back drops nothing.
        queue.removeExpired(at: start) { removed.append($0) }
        #expect(removed.isEmpty)
        queue.removeExpired(at: start.addingTimeInterval(10_000)) { removed.append($0) }
        #expect(removed == (150..<200).map { "k\($0)" })
        #expect(queue.count == 0)
    }

    @Test func expiredCodesAndFormsGoWhenTheNextFormArrivesAndLiveOnesStay() async throws {
        let state = try await DevIdPState(algorithm: "ES256")
        let start = Date()
        var codes: [String] = []
        for index in 0..<100 {
            let time = start.addingTimeInterval(Double(index))
            _ = await state.addPending(Self.request(at: time))
            codes.append(await state.issueCode(Self.request(at: time), email: "u\(index)@example.com", name: "U", now: time))
        }
        #expect(await state.heldCounts.codes == 100)
        #expect(await state.heldCounts.pending == 100)

        // 650 s after the start: the first 51 codes (issued at 0…50 s, 600 s lifetime) are past; forms live 900 s.
        let later = start.addingTimeInterval(650)
        _ = await state.addPending(Self.request(at: later))
        #expect(await state.heldCounts.codes == 49)
        #expect(await state.heldCounts.pending == 101)
        // A pruned code is unknown; a live one still redeems, once.
        if case .unknown = await state.redeem(codes[0], now: later) {} else { Issue.record("an expired code was kept") }
        if case .ok = await state.redeem(codes[99], now: later) {} else { Issue.record("a live code was dropped") }
        if case .redeemed = await state.redeem(codes[99], now: later) {} else { Issue.record("a code redeemed twice") }

        // Past every lifetime: everything goes but the form made now.
        _ = await state.addPending(Self.request(at: start.addingTimeInterval(2_000)))
        #expect(await state.heldCounts.codes == 0)
        #expect(await state.heldCounts.pending == 1)
    }
}
