@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing

/// Alerts across services, in one process and split over the socket: the
/// watchlist's durable events published on one node are decided, recorded and
/// delivered by the alerts service on the other, which asks subscription and
/// search across the bridge.
@Suite struct AlertsMeshTests {
    final class Holder: Sendable {
        let fixture = Locked<AlertsFixture?>(nil)
        let delivered = Locked<EventSubscription<AlertDelivered>?>(nil)
    }

    @Test("crossings published on the server are decided once by alerts on the client (Free cap 3, the 4th capped), delivered once each, and answer history and mutes over the bus", arguments: MeshShape.allCases)
    func crossingsToDeliveries(shape: MeshShape) async throws {
        let holder = Holder()
        try await withTestMesh(shape, deadline: .seconds(20)) { server, client in
            // Subscription and the directory on the server (the hub when split); alerts on the client.
            holder.fixture.set(try AlertsFixture(bus: server, alertsBus: client))
            // Subscribed before the spoke's hello, so the topic is routed to the hub from the start.
            holder.delivered.set(server.subscribe(AlertDelivered.self))
        } body: { mesh in
            let fixture = try #require(holder.fixture.get())
            let delivered = try #require(holder.delivered.get())
            let user = try await fixture.user("mesh@example.com")
            let task = Task { try await fixture.alerts.run() }
            defer { task.cancel() }
            for (index, destination) in ["NRT", "LAX", "SFO", "LHR"].enumerated() {
                var event = ThresholdCrossed()
                event.checkID = "c\(index)"
                event.userID = user
                event.watchlistID = "w\(index)"
                event.origin = "JFK"
                event.destination = destination
                event.priceThreshold = usd(70_000)
                event.check.lowestPrice = usd(65_000 - Int64(index) * 1_000)
                event.check.belowThreshold = true
                try await mesh.serverBus.publish(event)
            }
            var history = AlertHistoryRequest()
            history.userID = user
            try await waitUntil("all four decided") { ((try? await mesh.serverBus.request(history))?.alerts.count ?? 0) == 4 }
            let events = try await firstEvents(3, of: delivered)
            #expect(Set(events.map(\.alertID)).count == 3)
            let decisions = try await mesh.serverBus.request(history).alerts.map(\.decision)
            #expect(decisions.filter { $0 == .sent }.count == 3 && decisions.filter { $0 == .capped }.count == 1)
            #expect(Set(fixture.channel.deliveredIDs).count == 3 && fixture.channel.deliveredIDs.count == 3)
            var mute = MuteRouteRequest()
            mute.userID = user
            mute.origin = "JFK"
            mute.destination = "CDG"
            #expect(try await mesh.serverBus.request(mute).mutedUntilUnixMs > 0)
        }
    }
}
