import FareLensBus
import FareLensMessages
import Logging

/// Asking subscription who an alert is for, waiting while it cannot answer:
/// an event is decided with the answer or not at all, never skipped because
/// subscription was away (docs/alerts.md, "When subscription is away").
extension AlertsService {
    /// `ask`'s answer, asked again every second while it fails — logged at
    /// the first and every tenth attempt — unless `isRefusal` says the
    /// failure is the answer itself (asking again would get it again): then
    /// that failure. Nil once the task is cancelled: the caller decides
    /// nothing and its events stay unacknowledged.
    func askWaiting<T>(
        _ what: String, metadata: Logger.Metadata, isRefusal: (BusError) -> Bool = { _ in false },
        _ ask: () async throws(BusError) -> T
    ) async -> Result<T, BusError>? {
        var attempt = 0
        while !Task.isCancelled {
            do throws(BusError) {
                return .success(try await ask())
            } catch {
                if isRefusal(error), !Task.isCancelled { return .failure(error) }
                if attempt % 10 == 0 {
                    logger.warning("\(what) unanswered; alert decisions wait", metadata: metadata.merging(["attempt": "\(attempt + 1)", "error": "\(error)"]) { $1 })
                }
                attempt += 1
                try? await Task.sleep(for: .seconds(1))  // safe: waiting for subscription to come back; ends on cancellation
            }
        }
        return nil
    }

    /// Whether subscription refused a request for what it says, rather than
    /// failing to answer it: not transient (``BusError/Kind/isTransient``)
    /// and not its own storage failing, which may recover.
    static func isRefusal(_ error: BusError) -> Bool {
        !error.kind.isTransient && error.remoteCode != "storage"
    }

    /// The settings of `userIDs` from subscription, asked ``GetUsersRequest``
    /// by ``recipientsPerRequest`` (``askWaiting(_:metadata:isRefusal:_:)``:
    /// every failure is waited out, since the ids are valid by construction);
    /// users it does not know are left out (logged). Nil on cancellation.
    func recipientsWaiting(_ userIDs: [String]) async -> [String: AlertRecipient]? {
        var recipients: [String: AlertRecipient] = [:]
        recipients.reserveCapacity(userIDs.count)
        for start in stride(from: 0, to: userIDs.count, by: Self.recipientsPerRequest) {
            var request = GetUsersRequest()
            request.userIds = Array(userIDs[start..<min(userIDs.count, start + Self.recipientsPerRequest)])
            guard case .success(let answer) = await askWaiting("GetUsers", metadata: ["users": "\(request.userIds.count)"], { () async throws(BusError) in try await bus.request(request) }) else {
                return nil
            }
            for known in answer.users { recipients[known.user.userID] = AlertRecipient(user: known.user, entitlements: known.entitlements) }
            for unknown in answer.unknownUserIds { logger.notice("alert for an unknown user skipped", metadata: ["user": "\(unknown)"]) }
        }
        return recipients
    }

    /// Users asked for in one ``GetUsersRequest`` (subscription's limit).
    static let recipientsPerRequest = 1_000

    /// Every user preferring `airport` or its `metro` (a user who prefers
    /// LON hears of a deal from LCY), once each with the higher weight.
    func preferredAirportUsers(_ airport: String, orMetro metro: String?) async throws(BusError) -> [PreferredAirportUser] {
        let direct = try await preferredAirportUsers(airport)
        guard let metro else { return direct }
        let viaMetro = try await preferredAirportUsers(metro)
        var best: [String: PreferredAirportUser] = [:]
        for user in direct + viaMetro where user.weight > best[user.userID]?.weight ?? -1 { best[user.userID] = user }
        return best.values.sorted { $0.userID < $1.userID }
    }

    /// Every user preferring `airport`, all pages.
    func preferredAirportUsers(_ airport: String) async throws(BusError) -> [PreferredAirportUser] {
        var users: [PreferredAirportUser] = []
        var request = PreferredAirportUsersRequest()
        request.airport = airport
        repeat {
            let page = try await bus.request(request)
            users += page.users
            request.pageToken = page.nextPageToken
        } while !request.pageToken.isEmpty
        return users
    }
}
