import Foundation

/// One batch's events with what deciding them needs from other services (``AlertsService/prepare(_:)``).
struct PreparedDecisions: Sendable {
    var pending: [PendingEvent]
    /// The recipients subscription knows, by user id.
    var recipients: [String: AlertRecipient]
    var cities: [String: String]
    var metros: [String: String]
    /// The raw values of the outbox's channels.
    var channels: [Int]
    /// Each known user's candidates, in user order, assuming every event is fresh.
    var byUser: [UserCandidates]
    /// The instant the batch is decided at (a retried transaction decides again at its own).
    var instant: Date
    /// The decisions made while preparing, at `instant`, for users who had
    /// no policy state then (``AlertsService/decideAhead(_:mayHaveState:cities:metros:at:)``).
    var decidedAhead: DecidedAhead
    /// The events themselves, for an event that has to be set aside.
    var contents = EventContents.none
    /// Set-aside events decided again (``AlertsService/retrySetAside(_:)``):
    /// each is taken out of `set_aside_event` instead of recorded in the inbox.
    var retryingSetAside = false
}

extension PreparedDecisions {
    /// The users decided ahead, in user order.
    var usersDecidedAhead: [String] {
        byUser.indices.filter { decidedAhead.range(at: $0) != nil }.map { byUser[$0].recipient.userID }
    }

    /// `userID`'s rows decided ahead; nil when the user was not (a linear search, for tests).
    func decidedAhead(for userID: String) -> [AlertRow]? {
        guard let position = byUser.firstIndex(where: { $0.recipient.userID == userID }), let range = decidedAhead.range(at: position) else { return nil }
        return Array(decidedAhead.rows[range])
    }
}

/// The decisions made while preparing a batch
/// (``AlertsService/decideAhead(_:mayHaveState:cities:metros:at:)``): the
/// rows of every user decided ahead in one array, in the batch's user
/// order, and each user's range of them. A transaction that decides no
/// user again records and returns that array as it is: a dictionary of
/// arrays by user cost a hash per user and a copy of every row.
struct DecidedAhead: Sendable {
    /// Nothing decided ahead.
    static let none = DecidedAhead(rows: [], ranges: [])

    /// The rows, user after user.
    var rows: [AlertRow]
    /// For each user of the batch's `byUser`, its range of ``rows``; nil
    /// when it was not decided ahead. Empty when nothing was.
    var ranges: [Range<Int>?]

    /// No user was decided ahead (each has at least one row).
    var isEmpty: Bool { rows.isEmpty }

    /// The rows of the user at `position` in `byUser`, when decided ahead.
    func range(at position: Int) -> Range<Int>? {
        position < ranges.count ? ranges[position] : nil
    }
}

/// One user's candidates of a batch: they compete under the policy.
struct UserCandidates: Sendable {
    var recipient: AlertRecipient
    var candidates: [AlertCandidate]
}
