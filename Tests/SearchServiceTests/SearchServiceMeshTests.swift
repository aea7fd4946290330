import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
@testable import SearchService
import Testing

/// The search service reached only through the bus, in one process and
/// split over a real Unix socket.
@Suite("Search service through the bus")
struct SearchServiceMeshTests {
    static func behaviour(on bus: MessageBus, clock: ManualWallClock, config: [String: String] = [:]) throws -> any ServiceBehaviour {
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in config { values[AbsoluteConfigKey(ConfigKey(key))] = ConfigValue(.string(value), isSecret: false) }
        let context = ServiceContext(
            bus: bus, database: try ServiceDatabase.inMemory(service: "search", migrations: SearchServiceEntry.migrations),
            logger: quietLogger(), clock: clock, configuration: ConfigReader(provider: InMemoryProvider(values: values))
        )
        return try SearchServiceEntry.makeBehaviour(context)
    }

    static let clock = ManualWallClock(Date(timeIntervalSince1970: 1_795_348_800))  // 2026-11-22 12:00 UTC

    @Test("autocomplete and a simulated search answer through the bus", arguments: MeshShape.allCases)
    func answers(shape: MeshShape) async throws {
        // The answers are what is tested, and at the start of a full parallel run the process was busy enough that a
        // search's 5 s ran out (every run of 2026-11-28): on a clock that stands no deadline passes in this process,
        // and 30 s bound the time a request spends on the wire, in real time, when split.
        try await withTestMesh(shape, deadline: .seconds(30), clock: .standing()) { server, _ in
            try Self.behaviour(on: server, clock: Self.clock).register(on: server)
        } body: { mesh in
            var autocomplete = AirportAutocompleteRequest()
            autocomplete.query = "LIS"
            let suggestions = try await mesh.clientBus.request(autocomplete).suggestions
            #expect(suggestions.first?.airport.iataCode == "LIS" && suggestions.first?.match == .iataCode)

            let response = try await mesh.clientBus.request(SearchEngineFixture.request())
            #expect(!response.offers.isEmpty && response.offers.allSatisfy(\.simulated))
            #expect(response.offers.map(\.price.minorUnits) == response.offers.map(\.price.minorUnits).sorted())
            #expect(response.providers == ["simulated"])

            var booking = BookingOptionsRequest()
            booking.offerID = response.offers[0].offerID
            booking.placement = .detail
            booking.tier = .trial
            let options = try await mesh.clientBus.request(booking).options
            #expect(options.first?.label == .lowest && options.first?.total == response.offers[0].price)
            #expect(options.filter(\.affiliate).allSatisfy { $0.subID == "ios-fl-none-none-detail-none-trial" })
        }
    }

    @Test("a failed validation reaches the caller as a remote invalid-field error naming the field", arguments: MeshShape.allCases)
    func validationError(shape: MeshShape) async throws {
        try await withTestMesh(shape) { server, _ in
            try Self.behaviour(on: server, clock: Self.clock).register(on: server)
        } body: { mesh in
            do {
                _ = try await mesh.clientBus.request(SearchEngineFixture.request { $0.destination = "LIS" })
                Issue.record("accepted origin == destination")
            } catch let error as BusError {
                #expect(error.kind == .remote && error.remoteCode == "invalid-field")
                #expect(error.message.contains("destination: equals origin"))
            }
        }
    }

    @Test("configured with Amadeus, the service answers with the stub server's offers", arguments: MeshShape.allCases)
    func amadeusConfigured(shape: MeshShape) async throws {
        try await withStubServer { server, baseURL in
            server.respond(to: "/v1/security/oauth2/token", with: try Fixture.response("amadeus-token"))
            server.respond(to: "/v2/shopping/flight-offers", with: try Fixture.response("amadeus-flight-offers"))
            let config = [
                "providers": "amadeus", "amadeus.baseUrl": baseURL,
                "amadeus.clientId": TestSecrets.amadeusClientID, "amadeus.clientSecret": TestSecrets.amadeusClientSecret,
            ]
            // 20 s, not the default 5 s: the token fetch and the search are two HTTP round trips to a
            // stub on the shared event loops, and in a full parallel run on 2 cores the 5 s ran out (3 of 5 runs, 2026-11-24).
            try await withTestMesh(shape, deadline: .seconds(20), clock: .standing()) { bus, _ in
                try Self.behaviour(on: bus, clock: Self.clock, config: config).register(on: bus)
            } body: { mesh in
                let response = try await mesh.clientBus.request(SearchEngineFixture.request { $0.origin = "LHR" })
                #expect(response.providers == ["amadeus"])
                #expect(!response.offers.isEmpty && response.offers.allSatisfy { $0.provider == "amadeus" && !$0.simulated })
                let quota = try await mesh.clientBus.request(ProviderQuotaRequest())
                #expect(quota.providers.map(\.provider) == ["amadeus"] && quota.providers.first?.used == 1)
            }
        }
    }
}
