@testable import AlertsService
import FareLensTesting
import Testing

/// Outbox passes never overlap, and one asked for while another runs is
/// run right after it, not dropped (``OutboxPasses``, the state machine that
/// replaced the alerts service's `delivering` flag).
@Suite struct OutboxPassesTests {
    @Test("the state machine: the first ask runs a pass, asks meanwhile become one more pass, then it stops")
    func transitions() {
        var passes = OutboxPasses()
        #expect(!passes.isRunning)
        #expect(passes.ask() == .runPass)
        #expect(passes.isRunning)
        #expect(passes.ask() == .leaveToRunningPass)
        #expect(passes.ask() == .leaveToRunningPass)
        // Two asks while it ran: one more pass covers both (it reads every due row).
        #expect(passes.passEnded() == .runAnotherPass)
        #expect(passes.isRunning)
        #expect(passes.passEnded() == .stop)
        #expect(!passes.isRunning)
        #expect(passes.ask() == .runPass)
        #expect(passes.passEnded() == .stop)
    }

    @Test("an alert accepted while a pass is under way goes out in a pass right after it, made by the same call, not at the next tick")
    func askedDuringAPassRunsAfterIt() async throws {
        let channel = GatedChannel()
        let fixture = try AlertsFixture(channels: [channel])
        let ana = try await fixture.user("ana-passes@example.com")
        let bo = try await fixture.user("bo-passes@example.com")
        _ = await fixture.alerts.decide([fixture.crossing(ana, sequence: 1)])
        let first = Task { await fixture.alerts.delivery.deliverDue() }
        try await channel.gate.waitForArrivals(1)
        _ = await fixture.alerts.decide([fixture.crossing(bo, sequence: 2)])
        // A pass runs: this call only asks it for one more.
        #expect(await fixture.alerts.delivery.deliverDue() == 0)
        channel.gate.open()
        let attempted = try await withTimeLimit("the first call's passes ended") { await first.value }
        #expect(attempted == 2)
        #expect(try fixture.outbox().map(\.status) == [.delivered, .delivered])
    }
}
