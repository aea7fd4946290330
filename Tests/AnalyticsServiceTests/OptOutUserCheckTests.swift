import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import Testing
@testable import AnalyticsService

/// An opt-out names a user the subscription service knows: a mistyped id
/// was recorded as opted out while the real user went on being recorded.
@Suite("Opt-out of a known user only")
struct OptOutUserCheckTests {
    /// Subscription's answer to `GetUserRequest`, as the real service gives it: `u-ana` exists, nobody else.
    struct NoSuchUser: ServiceError {
        let code = "unknown-user"
        let message: String
    }

    /// Serves `GetUserRequest` on `bus` as subscription would, knowing `u-ana` only.
    static func serveUsers(on bus: MessageBus) throws {
        try bus.serve(GetUserRequest.self) { request, _ in
            guard request.userID == "u-ana" else { throw NoSuchUser(message: "no user '\(request.userID)'") }
            var response = GetUserResponse()
            response.user.userID = request.userID
            return response
        }
    }

    static func withSubscription() throws -> AnalyticsFixture {
        let bus = MessageBus()
        try serveUsers(on: bus)
        return try AnalyticsFixture(bus: bus)
    }

    @Test("an opt-out or opt-in of an id subscription does not know is refused with unknown-user naming it, and nothing is written; a known user's is recorded")
    func unknownRefused() async throws {
        let fixture = try Self.withSubscription()
        for out in [true, false] {
            do throws(AnalyticsError) {
                _ = try await fixture.service.setOptOut(optOut("u-anna", out))
                Issue.record("the opt-\(out ? "out" : "in") of an unknown id was accepted")
            } catch {
                #expect(error.code == "unknown-user" && error.field == "user_id")
                #expect(error.message == "no user 'u-anna'")
            }
        }
        #expect(try fixture.count("opt_out") == 0)
        #expect(try await fixture.service.setOptOut(optOut("u-ana", true)).optedOut)
        #expect(try fixture.count("opt_out") == 1)
    }

    @Test("over the bus the caller sees remote unknown-user")
    func overTheBus() async throws {
        let fixture = try Self.withSubscription()
        do {
            _ = try await fixture.bus.request(optOut("u-anna", true), timeout: .seconds(10))
            Issue.record("accepted")
        } catch {
            #expect(error.kind == .remote && error.remoteCode == "unknown-user")
        }
    }

    @Test("when subscription cannot be asked the opt-out is recorded anyway: a privacy request does not wait for another service")
    func subscriptionAway() async throws {
        let fixture = try AnalyticsFixture()
        #expect(try await fixture.service.setOptOut(optOut("u-anyone", true)).optedOut)
        #expect(try fixture.count("opt_out") == 1)
    }
}
