@testable import AlertsService
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// A channel that waits at a gate, then says whether its attempt was cancelled.
final class GatedChannel: AlertDeliveryChannel {
    let channel = AlertChannel.webhook
    let gate = Gate()

    func deliver(_ alert: OutboundAlert) async -> DeliveryOutcome {
        await gate.wait()
        return Task.isCancelled ? .retry(reason: "cancelled before an answer", retryAfter: nil) : .delivered
    }
}

@Suite struct GracefulStopTests {
    @Test("stopping the service does not cancel an attempt in flight: it finishes and is recorded as delivered, so a restart does not send it again")
    func attemptsFinishOnStop() async throws {
        let channel = GatedChannel()
        let fixture = try AlertsFixture(channels: [channel])
        let user = try await fixture.user("gil@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        let pass = Task { await fixture.alerts.deliverDue() }
        try await channel.gate.waitForArrivals(1)
        pass.cancel()
        channel.gate.open()
        #expect(await pass.value == 1)
        let row = try #require(try fixture.outbox().first)
        #expect(row.status == .delivered && row.attempts == 1, "\(row.status) \(row.lastError)")
    }
}
