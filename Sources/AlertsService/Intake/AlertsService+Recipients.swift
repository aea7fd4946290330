import FareLensBus
import FareLensMessages
import Logging

/// Who an alert is for, read from what alerts keeps of subscription's
/// events (``KeptAudience``): nothing is asked when a batch is decided
/// (docs/alerts.md, "The audience of an exceptional deal, and each user's settings").
extension AlertsService {
    /// How long (transport time) a batch waits for the settings of a user
    /// alerts has not heard of yet: an event of watchlist's can arrive
    /// before subscription's event about the user it names. After it, that
    /// user's candidates are skipped, logged (a user no service knows).
    static let unheardUserPatience = 30

    /// The settings of `userIDs` as alerts keeps them. A user it has not
    /// heard of (neither known nor deleted) is waited for: the store is read
    /// again every second of the transport clock, up to
    /// ``unheardUserPatience`` seconds, then skipped (logged); a deleted
    /// user is skipped at once. A failing read is waited out the same way.
    /// Nil on cancellation.
    func recipientsKept(_ userIDs: [String]) async -> [String: AlertRecipient]? {
        guard !userIDs.isEmpty else { return [:] }
        var waited = 0
        while true {
            let audience = self.audience
            let read = await retryingEverySecond("users' alert settings unreadable; alert decisions wait", level: .error, metadata: ["users": "\(userIDs.count)"]) {
                () async throws in try await audience.users(userIDs)
            }
            guard case .success(let (known, deleted))? = read else { return nil }
            var recipients: [String: AlertRecipient] = [:]
            recipients.reserveCapacity(known.count)
            var zones = RecipientZones()
            for record in known {
                let (user, entitlements) = record.asSubscriptionUser
                recipients[record.userID] = zones.recipient(user, entitlements: entitlements)
            }
            let unheard = userIDs.filter { recipients[$0] == nil && !deleted.contains($0) }
            if unheard.isEmpty { return recipients }
            if waited >= Self.unheardUserPatience {
                logger.warning("alerts for users alerts has not heard of skipped", metadata: ["users": "\(unheard.prefix(5).joined(separator: ","))", "count": "\(unheard.count)"])
                return recipients
            }
            if waited == 0 {
                logger.notice("alert decisions wait for users' settings not heard yet", metadata: ["users": "\(unheard.prefix(5).joined(separator: ","))", "count": "\(unheard.count)"])
            }
            waited += 1
            do { try await transport.sleep(for: .seconds(1)) } catch { return nil }  // safe: real time (the transport clock): the settings' events are on their way; ends on cancellation
        }
    }
}
