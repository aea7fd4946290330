import FareLensBus
import FareLensMessages
import Logging

/// Who an alert is for, read from what alerts keeps of subscription's
/// events (``KeptAudience``): subscription is asked only about a user no
/// event has told alerts of (docs/alerts.md, "The audience of an
/// exceptional deal, and each user's settings").
extension AlertsService {
    /// How long (transport time) a batch waits for the settings of a user
    /// alerts has not heard of yet: an event of watchlist's can arrive
    /// before subscription's event about the user it names. After it, that
    /// user's candidates are skipped, logged (a user no service knows).
    static let unheardUserPatience = 30

    /// The settings of `userIDs` as alerts keeps them. A user it has not
    /// heard of (neither known nor deleted) is asked of subscription
    /// (``askSubscription(about:)``): a node that joined after a user was
    /// created never receives the events that announced them. A user
    /// subscription does not know is skipped (logged). While subscription
    /// cannot be asked, the user is waited for: the store is read again
    /// every second of the transport clock (an event can be on its way),
    /// subscription asked again every fifth, up to ``unheardUserPatience``
    /// seconds, then the user is skipped (logged); a deleted user is skipped
    /// at once. A failing read is waited out the same way. Nil on
    /// cancellation.
    func recipientsKept(_ userIDs: [String]) async -> [String: AlertRecipient]? {
        guard !userIDs.isEmpty else { return [:] }
        var waited = 0
        var unknownToSubscription = Set<String>()
        var askedAt: Int?  // the second of waiting subscription was last asked at
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
            let unheard = userIDs.filter { recipients[$0] == nil && !deleted.contains($0) && !unknownToSubscription.contains($0) }
            if unheard.isEmpty {
                if !unknownToSubscription.isEmpty {
                    logger.warning(
                        "alerts for users subscription does not know skipped",
                        metadata: ["users": "\(unknownToSubscription.sorted().prefix(5).joined(separator: ","))", "count": "\(unknownToSubscription.count)"])
                }
                return recipients
            }
            if waited % 5 == 0, askedAt != waited {
                askedAt = waited
                if let unknown = await askSubscription(about: unheard) {
                    unknownToSubscription.formUnion(unknown)
                    continue  // read again: the answered users are kept now
                }
            }
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

    /// Asks subscription (`GetUsers`, a thousand at a time) for users alerts
    /// has not heard of, and keeps those it knows in the audience as if
    /// announced. Returns the ids subscription does not know, or nil when it
    /// cannot be asked now (away, or past the bus's deadline).
    func askSubscription(about userIDs: [String]) async -> Set<String>? {
        var unknown = Set<String>()
        for start in stride(from: 0, to: userIDs.count, by: 1_000) {
            var request = GetUsersRequest()
            request.userIds = Array(userIDs[start..<min(userIDs.count, start + 1_000)])
            let answer: GetUsersResponse
            do {
                answer = try await bus.request(request)
            } catch {
                logger.notice("subscription cannot be asked for users alerts has not heard of; waiting for their events", metadata: ["count": "\(userIDs.count)", "error": "\(error)"])
                return nil
            }
            await audience.keep(answered: answer.users)
            unknown.formUnion(answer.unknownUserIds)
        }
        logger.notice("asked subscription for users alerts had not heard of", metadata: ["count": "\(userIDs.count)", "unknown": "\(unknown.count)"])
        return unknown
    }
}
