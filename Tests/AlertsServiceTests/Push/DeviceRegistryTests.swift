@testable import AlertsService
import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import GRDB
import Testing

/// The device registry over the bus: registration, its named refusals, a
/// token moving between users, removal, and erasure with the user.
@Suite struct DeviceRegistryTests {
    static func register(_ fixture: AlertsFixture, _ user: String, _ token: String, environment: PushEnvironment = .production) async throws -> RegisterDeviceResponse {
        var request = RegisterDeviceRequest()
        request.userID = user
        request.device.token = token
        request.device.environment = environment
        request.device.appVersion = "1.4.0"
        request.device.locale = "en-GB"
        request.device.timeZone = "Europe/London"
        return try await fixture.bus.request(request)
    }

    static func devices(_ fixture: AlertsFixture, _ user: String) async throws -> [Device] {
        var list = ListDevicesRequest()
        list.userID = user
        return try await fixture.bus.request(list).devices
    }

    @Test("a device registers once per token (upper-case digits stored lower-case), updates in place, and lists newest first")
    func registerAndList() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ana@example.com")
        let first = try await Self.register(fixture, user, PushKit.token(1).uppercased())
        #expect(first.created && first.device.token == PushKit.token(1) && first.device.platform == "ios" && first.device.environment == .production)
        fixture.clock.advance(by: 60)
        let second = try await Self.register(fixture, user, PushKit.token(2), environment: .sandbox)
        fixture.clock.advance(by: 60)
        let again = try await Self.register(fixture, user, PushKit.token(1))
        #expect(!again.created && again.device.registeredAtUnixMs == first.device.registeredAtUnixMs && again.device.updatedAtUnixMs > first.device.updatedAtUnixMs)
        #expect(second.device.environment == .sandbox)
        #expect(try await Self.devices(fixture, user).map(\.token) == [PushKit.token(1), PushKit.token(2)])
    }

    @Test("bad tokens, platforms, zones and locales are refused with their codes; the 21st device is refused as too-many-devices")
    func refusals() async throws {
        let fixture = try AlertsFixture()
        let user = try await fixture.user("ben@example.com")
        for bad in ["", "abc", String(repeating: "g", count: 64), String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "a", count: 62) + " é"] {
            await #expect { try await Self.register(fixture, user, bad) } throws: { ($0 as? BusError)?.remoteCode == "invalid-device-token" }
        }
        var android = RegisterDeviceRequest()
        android.userID = user
        android.device.token = PushKit.token(1)
        android.device.platform = "android"
        await #expect { try await fixture.bus.request(android) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" && ($0 as? BusError)?.field == "device.platform" }
        var zone = android
        zone.device.platform = "ios"
        zone.device.timeZone = "Mars/Olympus"
        await #expect { try await fixture.bus.request(zone) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" && ($0 as? BusError)?.field == "device.time_zone" }
        var locale = android
        locale.device.platform = ""
        locale.device.locale = "en GB; drop"
        await #expect { try await fixture.bus.request(locale) } throws: { ($0 as? BusError)?.remoteCode == "invalid-field" && ($0 as? BusError)?.field == "device.locale" }
        for index in 0..<DeviceRow.limitPerUser { _ = try await Self.register(fixture, user, PushKit.token(index)) }
        await #expect { try await Self.register(fixture, user, PushKit.token(99)) } throws: { ($0 as? BusError)?.remoteCode == "too-many-devices" }
        // Updating one of the twenty is not a new device.
        #expect(try await !Self.register(fixture, user, PushKit.token(3)).created)
    }

    @Test("a token registered by another user moves to them; the first user can no longer remove it (not registered), the second can; erasing a user removes theirs")
    func movesAndRemoval() async throws {
        let fixture = try AlertsFixture()
        let ana = try await fixture.user("ana@example.com")
        let ben = try await fixture.user("ben@example.com")
        let removed = fixture.bus.subscribe(DeviceRemoved.self)
        _ = try await Self.register(fixture, ana, PushKit.token(1))
        #expect(try await Self.register(fixture, ben, PushKit.token(1)).created)
        #expect(try await Self.devices(fixture, ana).isEmpty)
        var unregister = UnregisterDeviceRequest()
        unregister.userID = ana
        unregister.token = PushKit.token(1)
        #expect(try await !fixture.bus.request(unregister).wasRegistered)
        unregister.userID = ben
        #expect(try await fixture.bus.request(unregister).wasRegistered)
        #expect(try await Self.devices(fixture, ben).isEmpty)
        _ = try await Self.register(fixture, ana, PushKit.token(2))
        await fixture.alerts.erase(ana)
        #expect(try await Self.devices(fixture, ana).isEmpty)
        let publisher = await fixture.alerts.events
        let publishing = Task { await publisher.run() }
        let events = try await firstEvents(2, of: removed)
        publisher.finish()
        await publishing.value
        #expect(events.map(\.reason) == ["unregistered", "user-deleted"])
        #expect(events.map(\.userID) == [ben, ana])
    }
}
