@testable import AlertsService
import FareLensMessages
import FareLensTesting
import Foundation
import Logging
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
    @Test("a delivery pass cancelled (the service stopping) lets the attempts under way finish and records them, and starts no others: they stay due")
    func stopStartsNoFurtherAttempts() async throws {
        let channel = GatedChannel()
        let gate = channel.gate
        let fixture = try AlertsFixture(channels: [channel])
        var pending: [PendingEvent] = []
        for index in 0..<20 {
            let user = try await fixture.user("stop\(index)@example.com")
            pending.append(fixture.crossing(user, sequence: UInt64(index + 1)))
        }
        let decided = await fixture.alerts.decide(pending)
        #expect(decided.count == 20 && decided.allSatisfy { $0.decisionValue == .sent })
        let pass = Task { await fixture.alerts.delivery.deliverDue() }
        try await gate.waitForArrivals(AlertDelivery.deliveryConcurrency)
        #expect(gate.arrivals == AlertDelivery.deliveryConcurrency)
        pass.cancel()
        gate.open()
        let attempted = try await withTimeLimit("the pass returned") { await pass.value }
        #expect(attempted == AlertDelivery.deliveryConcurrency)
        let outbox = try fixture.outbox()
        #expect(outbox.filter { $0.status == .delivered }.count == AlertDelivery.deliveryConcurrency)
        #expect(outbox.filter { $0.status == .pending && $0.attempts == 0 }.count == 20 - AlertDelivery.deliveryConcurrency)
    }

    @Test("stopping the service does not cancel an attempt in flight: it finishes and is recorded as delivered, so a restart does not send it again")
    func attemptsFinishOnStop() async throws {
        let channel = GatedChannel()
        let fixture = try AlertsFixture(channels: [channel])
        let user = try await fixture.user("gil@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(user, sequence: 1)])
        let pass = Task { await fixture.alerts.delivery.deliverDue() }
        try await channel.gate.waitForArrivals(1)
        pass.cancel()
        channel.gate.open()
        #expect(await pass.value == 1)
        let row = try #require(try fixture.outbox().first)
        #expect(row.status == .delivered && row.attempts == 1, "\(row.status) \(row.lastError)")
    }

    @Test("a digest pass cut short by a stop logs no error: the stop is not a failure, and the next start sends what is due")
    func digestPassStoppedQuietly() async throws {
        let fixture = try AlertsFixture()
        let lines = Locked<[String]>([])
        let logger = Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
        let service = AlertsFixture.service(database: fixture.database, bus: fixture.bus, clock: fixture.clock, channels: [fixture.channel], logger: logger)
        let stopped = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await service.digest.sendDueDigests()
        }
        #expect(await stopped.value.isEmpty)
        #expect(lines.get().filter { $0.hasPrefix("error") } == [])
        // Not cancelled, the same pass runs and logs nothing either.
        #expect(await service.digest.sendDueDigests().isEmpty)
        #expect(lines.get().filter { $0.hasPrefix("error") } == [])
    }
}
