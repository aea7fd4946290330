import FareLensBus
import FareLensMessages
import Foundation

/// A traveller the demo created.
struct SeededTraveller: Sendable {
    let name: String
    let city: String
    let tierName: String
    let userID: String
    let routes: [String]
}

/// Creates the cast over the bus, like any client would: users through
/// subscription, their tier, their watchlists through watchlist.
struct DemoSeeder: Sendable {
    let bus: MessageBus
    /// How long to wait for the services to be reachable (a split demo's
    /// spokes may join after the hub).
    var patience: Duration = .seconds(60)

    /// Seeds the cast, or finds it: a node restarted into the same demo
    /// (the same `--demo-epoch`, its data kept) finds the travellers it
    /// seeded before, with their watchlists, and creates nothing again.
    func seed(report: (String) -> Void) async throws -> [SeededTraveller] {
        var seeded: [SeededTraveller] = []
        for traveller in DemoTraveller.cast {
            let seededBefore = try await existingUserID(of: traveller)
            let one = if let userID = seededBefore { try await found(traveller, userID: userID) } else { try await create(traveller) }
            seeded.append(one)
            report("\(one.name) (\(one.city), \(one.tierName), quiet hours 22:00–07:00 local) is \(one.userID), watching \(one.routes.joined(separator: ", "))"
                + (seededBefore == nil ? "" : " (seeded before this restart)"))
        }
        return seeded
    }

    /// Creates `traveller`: the user, their tier unless trial, their watchlists.
    private func create(_ traveller: DemoTraveller) async throws -> SeededTraveller {
        let userID = try await patiently("creating \(traveller.name)") { try await bus.request(traveller.createRequest) }.user.userID
        if traveller.tier != .trial {
            var tier = SetTierRequest()
            tier.userID = userID
            tier.tier = traveller.tier
            tier.product = traveller.tier == .pro ? .monthly : .unspecified
            _ = try await patiently("setting \(traveller.name)'s tier") { try await bus.request(tier) }
        }
        var routes: [String] = []
        for watch in traveller.watchRequests(userID: userID) {
            _ = try await patiently("watching \(watch.origin)→\(watch.destination) for \(traveller.name)") { try await bus.request(watch) }
            routes.append("\(watch.origin)→\(watch.destination)")
        }
        return SeededTraveller(name: traveller.name, city: traveller.city, tierName: DemoLines.tierName(traveller.tier), userID: userID, routes: routes)
    }

    /// `traveller` as seeded before, user `userID`, with the routes they watch
    /// now: the cast's first, in its order (the list comes in its own), then any other.
    private func found(_ traveller: DemoTraveller, userID: String) async throws -> SeededTraveller {
        var list = ListWatchlistsRequest()
        list.userID = userID
        let watched = try await patiently("listing \(traveller.name)'s watchlists") { try await bus.request(list) }.watchlists.map { "\($0.origin)→\($0.destination)" }
        let cast = traveller.watchRequests(userID: userID).map { "\($0.origin)→\($0.destination)" }
        let routes = cast.filter(watched.contains) + watched.filter { !cast.contains($0) }
        return SeededTraveller(name: traveller.name, city: traveller.city, tierName: DemoLines.tierName(traveller.tier), userID: userID, routes: routes)
    }

    /// The id of the user with `traveller`'s email, if subscription has one
    /// (this demo seeded them before the node restarted); nil for `unknown-user`.
    private func existingUserID(of traveller: DemoTraveller) async throws -> String? {
        var lookup = GetUserRequest()
        lookup.email = traveller.email
        return try await patiently("looking up \(traveller.name)") { () async throws -> String? in
            do {
                return try await bus.request(lookup).user.userID
            } catch let error as BusError where error.remoteCode == "unknown-user" {
                return nil
            }
        }
    }

    /// Retries while the service is not reachable yet; any other error ends the demo's seeding.
    private func patiently<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        let end = ContinuousClock.now + patience
        while true {
            do {
                return try await body()
            } catch let error as BusError where error.kind == .serviceUnavailable && ContinuousClock.now < end {
                try await Task.sleep(for: .milliseconds(200))  // safe: waiting for a split demo's spoke to join, bounded by `patience`
            } catch {
                throw DemoError.seedingFailed(what, error)
            }
        }
    }
}
