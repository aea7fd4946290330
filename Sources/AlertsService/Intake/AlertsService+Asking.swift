import FareLensBus
import FareLensMessages
import Logging

/// Asking subscription who an alert is for, waiting while it cannot answer:
/// an event is decided with the answer or not at all, never skipped because
/// subscription was away (docs/alerts.md, "When subscription is away").
extension AlertsService {
    /// The settings of `userIDs` from subscription, asked ``GetUsersRequest``
    /// by ``recipientsPerRequest``, every failure waited out
    /// (``retryingEverySecond(_:level:metadata:isFinal:_:)``: the ids are valid by construction);
    /// users it does not know are left out (logged). Nil on cancellation.
    func recipientsWaiting(_ userIDs: [String]) async -> [String: AlertRecipient]? {
        var recipients: [String: AlertRecipient] = [:]
        recipients.reserveCapacity(userIDs.count)
        var zones = RecipientZones()
        for start in stride(from: 0, to: userIDs.count, by: Self.recipientsPerRequest) {
            var request = GetUsersRequest()
            request.userIds = Array(userIDs[start..<min(userIDs.count, start + Self.recipientsPerRequest)])
            let asked = await retryingEverySecond("GetUsers unanswered; alert decisions wait", level: .warning, metadata: ["users": "\(request.userIds.count)"]) {
                () async throws(BusError) in try await bus.request(request)
            }
            guard case .success(let answer)? = asked else { return nil }
            for known in answer.users { recipients[known.user.userID] = zones.recipient(known.user, entitlements: known.entitlements) }
            for unknown in answer.unknownUserIds { logger.notice("alert for an unknown user skipped", metadata: ["user": "\(unknown)"]) }
        }
        return recipients
    }

    /// Users asked for in one ``GetUsersRequest`` (subscription's limit).
    static let recipientsPerRequest = 1_000
}
