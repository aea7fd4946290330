import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

@Suite("Subscription service through the bus")
struct SubscriptionMeshTests {
    @Test("create, get and entitlements answer through the bus; a bad airport reaches the caller as unknown-airport", arguments: MeshShape.allCases)
    func throughTheBus(shape: MeshShape) async throws {
        try await withTestMesh(shape) { server, _ in
            try serveAirportLookup(on: server)
            let fixture = try SubscriptionFixture(bus: server)
            // The real airport check: over the bus, as the node wires it.
            let service = SubscriptionService(database: fixture.database, airports: BusAirportChecker(bus: server), clock: fixture.clock, bus: server, logger: quietLogger())
            try service.register(on: server)
        } body: { mesh in
            var create = SubscriptionFixture.create { $0.homeAirport = "JFK" }
            let created = try await mesh.clientBus.request(create)
            #expect(created.user.tier == .trial && created.user.homeAirport == "JFK")
            var get = GetEntitlementsRequest()
            get.userID = created.user.userID
            #expect(try await mesh.clientBus.request(get).entitlements.preferredAirports == 3)

            create = SubscriptionFixture.create("bo@example.com") { $0.homeAirport = "QQQ" }
            do {
                _ = try await mesh.clientBus.request(create)
                Issue.record("an unknown airport was accepted")
            } catch let error as BusError {
                #expect(error.kind == .remote && error.remoteCode == "unknown-airport")
                #expect(error.message == "home_airport: 'QQQ' is not a known IATA airport or metro code")
            }
        }
    }
}
