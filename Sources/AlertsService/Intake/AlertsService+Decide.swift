import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB

/// Deciding: candidates → policy → recorded decisions and outbox rows, in one transaction.
extension AlertsService {
    /// Decides the candidates of `pending` events, each event exactly once
    /// (the inbox): for each user, the candidates of this batch compete
    /// (highest queue score first) under the policy; every decision is
    /// recorded with its reason and content; a `SENT` one is put into the
    /// outbox for every channel in the same transaction; a held or capped
    /// one waits for the user's next digest. `AlertDecided` is published
    /// after the commit.
    ///
    /// Users the subscription service does not know are skipped (logged).
    /// While subscription or search cannot be asked, or the transaction fails, this
    /// waits and tries again every second (the events stay unacknowledged)
    /// until it succeeds or the task is cancelled; cancelled, it records
    /// nothing. A transaction that fails for a reason in its data is split
    /// instead, and the event at fault set aside (``record(_:)``).
    ///
    /// - Returns: the recorded decisions.
    /// - Parameter contents: the events themselves, kept if one is set aside.
    @discardableResult
    func decide(_ pending: [PendingEvent], contents: EventContents = .none) async -> [AlertRow] {
        guard let prepared = await prepare(pending, contents: contents), let rows = await record(prepared) else { return [] }
        announce(rows)
        return rows
    }

    /// Decides `subscription`'s batches in order, preparing the next batch
    /// (its candidates, the GetUsers round trip) while the previous one's
    /// transaction commits on the database's writer: the writer's work and
    /// the rest overlap on two cores. At most one transaction is in flight,
    /// so each batch's policy state includes every earlier batch's
    /// decisions. A batch gathers the events that arrive within
    /// `gathering` of its first (``FareLensBus/EventSubscription/settlingBatches(maximum:gathering:)``),
    /// so candidates published together compete whatever their topic. A
    /// batch is settled — its events from other nodes acknowledged — after
    /// its commit and its `AlertDecided` events; cancelled before its
    /// transaction, a batch is left unsettled (docs/alerts.md).
    func follow(_ subscription: EventSubscription<any BusEvent>) async {
        var recording: (rows: Task<[AlertRow]?, Never>, batch: DeliveryBatch<any BusEvent>)?
        // Announcing and settling, in batch order, off the actor: the actor goes on to prepare the next batch.
        var announcing: Task<Void, Never>?
        var batches = subscription.settlingBatches(maximum: Self.batchSize, gathering: gathering).makeAsyncIterator()
        following: while let batch = await batches.next() {
            // Nil when cancelled while subscription was away: this batch is left unsettled.
            guard let pending = await pendingEvents(batch.deliveries), let prepared = await prepare(pending, contents: EventContents(batch.deliveries)) else { break }
            let previous = recording
            var previousRows: [AlertRow] = []
            if let previous {
                // Cancelled while the previous transaction was retried: it and this batch stay unsettled.
                guard let rows = await Self.value(of: previous.rows) else { recording = nil; break following }
                previousRows = rows
            }
            // Started before the previous batch is announced, so the writer goes from one transaction to the next.
            // Detached, and `record` is nonisolated: the transaction starts at once on the pool, while this actor
            // announces the previous batch and prepares the next. (A task isolated to this actor waited for the
            // actor first: the writer sat idle 2.6-4.1 ms a batch unless this loop yielded; docs/performance.md.)
            recording = (Task.detached { await self.record(prepared) }, batch)
            if let previous { announcing = finish(previousRows, previous.batch, after: announcing) }
            // Nothing more to prepare meanwhile: this batch is finished now, not when the next event comes.
            if !batches.hasWaitingDeliveries, let last = recording {
                recording = nil
                guard let rows = await Self.value(of: last.rows) else { break following }
                announcing = finish(rows, last.batch, after: announcing)
            }
        }
        if let last = recording, let rows = await Self.value(of: last.rows) { announcing = finish(rows, last.batch, after: announcing) }
        await announcing?.value
    }

    /// Announces `rows` and settles `batch` once `previous` (the batch
    /// before's) is done, on the global executor: batches are announced and
    /// settled in order, and the actor is not held up by it.
    private nonisolated func finish(_ rows: [AlertRow], _ batch: DeliveryBatch<any BusEvent>, after previous: Task<Void, Never>?) -> Task<Void, Never> {
        Task {
            await previous?.value
            announce(rows)
            batch.settle()
        }
    }

    /// The result of a ``record(_:)`` task, which is cancelled with the waiting task.
    private static func value(of recording: Task<[AlertRow]?, Never>) async -> [AlertRow]? {
        await withTaskCancellationHandler { await recording.value } onCancel: { recording.cancel() }
    }

    /// What deciding `pending` needs, gathered before the transaction: the
    /// recipients' settings, read from what alerts keeps of subscription's
    /// events (``recipientsKept(_:)``: nothing asked), and the city names
    /// for the wording, with metros so that LON→EDI and LHR→EDI are one
    /// route for mutes and dedupe, asked of search's directory and waited
    /// for while it cannot answer (``learnPlaces(_:)``). Nil on
    /// cancellation. `contents`, the events themselves, is kept beside them
    /// in case one is set aside.
    func prepare(_ pending: consuming [PendingEvent], contents: EventContents = .none) async -> PreparedDecisions? {
        // An event without a user names no one: its candidates are skipped like an unknown user's.
        let userIDs = Set(pending.flatMap { $0.candidates.map(\.userID) }).filter { !$0.isEmpty }.sorted()
        guard let recipients = await recipientsKept(userIDs) else { return nil }
        var codes = Set<String>()
        for candidate in pending.lazy.flatMap(\.candidates) { codes.insert(candidate.origin); codes.insert(candidate.destination) }
        guard await learnPlaces(codes) else { return nil }
        // Asked (at most every 10 minutes, within a second) only when a recipient reads prices in a currency of their own.
        let rates = recipients.values.contains { !$0.currency.isEmpty } ? await exchangeRates.current(bus, parent: nil) : nil
        let instant = clock.now()
        // Handed over, not shared: the wording is then written into the candidates in place, not into a copy of each.
        var prepared = await Self.prepared(
            consume pending, recipients: recipients, cities: cities, metros: metros, channels: channelKinds,
            usersWithState: usersWithState, rates: rates, at: instant
        )
        prepared.contents = contents
        return prepared
    }

    /// The rest of ``prepare(_:)``, the batch's longest stretch of work, off
    /// the actor (so the actor is free to resume the recording task the
    /// moment the previous transaction commits) and off the database's
    /// writer: the wording that does not depend on the instant of the
    /// decision, the candidates by user, and the decisions of users who
    /// have no policy state, made at `instant`.
    @concurrent
    static func prepared(
        _ pending: consuming [PendingEvent], recipients: [String: AlertRecipient], cities: [String: String], metros: [String: String], channels: [Int],
        usersWithState: UsersWithPolicyState, rates: ExchangeRateTable? = nil, at instant: Date
    ) async -> PreparedDecisions {
        var worded = consume pending
        for event in worded.indices {
            for index in worded[event].candidates.indices {
                if let rates, let currency = recipients[worded[event].candidates[index].userID]?.currency, !currency.isEmpty {
                    approximate(&worded[event].candidates[index], in: currency, with: rates)
                }
                let candidate = worded[event].candidates[index]
                worded[event].candidates[index].presetContent = AlertWording.instantFreeContent(for: candidate, city: cities[candidate.destination] ?? candidate.destination)
            }
        }
        let byUser = candidatesByUser(worded, known: recipients)
        let ahead = decideAhead(byUser, mayHaveState: usersWithState.mayHaveState(byUser.map(\.recipient.userID)), cities: cities, metros: metros, at: instant)
        return PreparedDecisions(
            pending: worded, recipients: recipients, cities: cities, metros: metros, channels: channels,
            byUser: byUser, instant: instant, decidedAhead: ahead
        )
    }

    /// An exceptional deal's or a price drop's price also in `currency`, the
    /// recipient's, when it is another and the rates convert it (a threshold
    /// alert already says its price in the threshold's currency).
    static func approximate(_ candidate: inout AlertCandidate, in currency: String, with rates: ExchangeRateTable) {
        guard candidate.kind == .exceptionalDeal || candidate.kind == .priceDrop, candidate.price.currency != currency,
              let converted = try? rates.convert(candidate.price, to: currency) else { return }
        candidate.approximatePrice = converted
        candidate.approximateRateDate = rates.date.description
    }

    /// Each known user's candidates among `pending`'s, in user order, each
    /// user's in event order.
    static func candidatesByUser(_ pending: [PendingEvent], known: [String: AlertRecipient]) -> [UserCandidates] {
        // Sorted by user, then taken run by run: a dictionary of arrays by user cost a hash per candidate, an
        // array per user to grow and a sort of its pairs anyway (docs/performance.md).
        var places: [(userID: String, event: Int, index: Int)] = []
        places.reserveCapacity(pending.reduce(0) { $0 + $1.candidates.count })
        for (event, pendingEvent) in pending.enumerated() {
            for (index, candidate) in pendingEvent.candidates.enumerated() { places.append((candidate.userID, event, index)) }
        }
        places.sort { lhs, rhs in
            if lhs.userID != rhs.userID { return lhs.userID < rhs.userID }
            return lhs.event != rhs.event ? lhs.event < rhs.event : lhs.index < rhs.index
        }
        var byUser: [UserCandidates] = []
        var start = places.startIndex
        while start < places.endIndex {
            let userID = places[start].userID
            var end = start + 1
            while end < places.endIndex, places[end].userID == userID { end += 1 }
            if let recipient = known[userID] {
                byUser.append(UserCandidates(recipient: recipient, candidates: places[start..<end].map { pending[$0.event].candidates[$0.index] }))
            }
            start = end
        }
        return byUser
    }

    /// The decisions of the users of `byUser` that `mayHaveState` (one flag
    /// each, from ``UsersWithPolicyState/mayHaveState(_:)``; nil, none)
    /// says have no policy state, made with the empty state at `now`: the
    /// decisions the transaction would make for them, unless one gains
    /// state first, which it checks.
    static func decideAhead(_ byUser: [UserCandidates], mayHaveState: [Bool]?, cities: [String: String], metros: [String: String], at now: Date) -> DecidedAhead {
        guard let mayHaveState else { return .none }
        var generator = SystemRandomNumberGenerator()
        var ids: UInt64 = generator.next()
        var ahead = DecidedAhead.none
        ahead.rows.reserveCapacity(byUser.count)
        ahead.ranges.reserveCapacity(byUser.count)
        for (user, hasState) in zip(byUser, mayHaveState) {
            guard !hasState else {
                ahead.ranges.append(nil)
                continue
            }
            var state = RecipientState(day: QuietHoursWindow.localDay(now, in: user.recipient.zone), metros: metros)
            let start = ahead.rows.count
            decide(user, state: &state, cities: cities, at: now, ids: &ids, into: &ahead.rows)
            ahead.ranges.append(start..<ahead.rows.count)
        }
        return ahead
    }

    /// Appends to `rows` the rows of one user's competing candidates,
    /// decided by the policy from `state` at `now` (built in place: a row
    /// copied from an array of its own retained its dozen strings again).
    static func decide(_ user: UserCandidates, state: inout RecipientState, cities: [String: String], at now: Date, ids: inout UInt64, into rows: inout [AlertRow]) {
        for verdict in AlertPolicy.verdicts(user.candidates, for: user.recipient, state: &state, at: now) {
            let candidate = user.candidates[verdict.index]
            let content = candidate.presetContent ?? AlertWording.content(for: candidate, city: cities[candidate.destination] ?? candidate.destination, at: now)
            rows.append(AlertRow(verdict, of: candidate, recipient: user.recipient, content: content, id: newAlertID(at: now, random: ids), at: now))
            ids &+= 1
        }
    }

    /// Decides and records `prepared` in one transaction, at the instant it
    /// was prepared, and returns the rows. A transaction that fails (a
    /// full disk) is rolled back and tried again every second, logged at
    /// the first and every tenth attempt, until it commits, each retry
    /// deciding everything again at the clock's current instant; nil when the
    /// task is cancelled first (nothing recorded, the batch left unsettled).
    /// A transaction that fails for a reason in its data
    /// (``FareLensStore/DatabaseFailure/isCausedByData(_:)``), which trying again cannot change, is not
    /// retried: its events are decided one at a time and the one that fails
    /// alone is set aside (``recordOneByOne(_:)``).
    nonisolated func record(_ prepared: PreparedDecisions) async -> [AlertRow]? {
        var attempts = 0
        let recorded = await retryingEverySecond(
            "alert decisions not recorded; trying again every second", level: .error, metadata: ["events": "\(prepared.pending.count)"], isFinal: DatabaseFailure.isCausedByData
        ) {
            attempts += 1
            let first = attempts == 1
            let now = first ? prepared.instant : clock.now()
            let (usersWithState, decidedEvents) = (usersWithState, decidedEvents)
            return try await database.writer.write { db in
                try Self.decideAndRecord(
                    prepared, at: now, decidedAhead: first ? prepared.decidedAhead : .none, usersWithState: usersWithState, announcingTo: decidedEvents, in: db)
            }
        }
        switch recorded {
        case nil: return nil
        case .success(let rows)?: return rows
        case .failure(let failure)?: return await recordOneByOne(prepared, failure: failure)
        }
    }

    /// After the commit: the metrics, and the outbox woken when something
    /// was sent (`AlertDecided` is published by ``decidedEvents``).
    nonisolated func announce(_ rows: [AlertRow]) {
        AlertsMetrics.decided(rows)
        if rows.contains(where: { $0.decision == AlertDecision.sent.rawValue }) { delivery.poke() }
    }

    /// The transaction of ``record(_:)``: each event once (the inbox, or for
    /// a retry the set-aside events), then
    /// each user's candidates through the policy, every outcome recorded
    /// and a sent one put into the outbox. Only the users in
    /// `usersWithState` have their state read from the database. A user's
    /// rows in `decidedAhead` are recorded as they are when the user is
    /// still not in `usersWithState` and every event of the batch is fresh
    /// (a redelivered one changes what competes); otherwise the user is
    /// decided here. When no user is decided here, the rows recorded and
    /// returned are `decidedAhead`'s array itself.
    static func decideAndRecord(
        _ prepared: PreparedDecisions, at now: Date, decidedAhead: DecidedAhead, usersWithState: UsersWithPolicyState, announcingTo outbox: DecidedAlerts,
        in db: Database
    ) throws -> [AlertRow] {
        let fresh = prepared.retryingSetAside ? try takenFromSetAside(prepared.pending, in: db) : try freshEvents(prepared.pending, at: now, in: db)
        let allFresh = fresh.count == prepared.pending.count
        let byUser = allFresh ? prepared.byUser : candidatesByUser(fresh, known: prepared.recipients)
        let ahead = allFresh ? decidedAhead : .none
        let lookingUp = try usersWithState.usersToLookUp(among: byUser.lazy.map(\.recipient.userID), at: now, in: db)
        let gainedState = ahead.isEmpty ? [] : Set(lookingUp)
        let decidedHere = byUser.indices.lazy.filter { ahead.range(at: $0) == nil || gainedState.contains(byUser[$0].recipient.userID) }.map { byUser[$0].recipient }
        // A state for every user not decided ahead, or decided ahead but gaining state since.
        var states = try AlertRow.states(of: Array(decidedHere), at: now, metros: prepared.metros, lookingUp: lookingUp, in: db)
        let insert = try db.cachedStatement(sql: AlertRow.insertSQL)
        var sequences = try DecisionSequences(in: db)
        // `decided[range]` recorded, a sent one with its outbox rows. By index, not `for row in`: each copy of a row
        // retained and released its dozen strings.
        func record(_ decided: [AlertRow], _ range: Range<Int>) throws {
            for index in range {
                try decided[index].insert(with: insert, sequence: sequences.take())
                if decided[index].decision == AlertDecision.sent.rawValue {
                    usersWithState.insert(decided[index].userID)
                    try enqueue(decided[index], channels: prepared.channels, at: now, in: db)
                }
            }
        }
        var rows: [AlertRow]
        if states.isEmpty {
            // Every user was decided ahead: their rows, in user order already, are recorded and returned as they are.
            rows = ahead.rows
            try record(rows, rows.indices)
        } else {
            rows = []
            rows.reserveCapacity(byUser.count)
            var generator = SystemRandomNumberGenerator()
            var ids: UInt64 = generator.next()
            for (position, user) in byUser.enumerated() {
                let start = rows.count
                if var state = states.removeValue(forKey: user.recipient.userID) {
                    decide(user, state: &state, cities: prepared.cities, at: now, ids: &ids, into: &rows)
                } else if let range = ahead.range(at: position) {
                    rows.append(contentsOf: ahead.rows[range])
                } else {
                    continue
                }
                try record(rows, start..<rows.count)
            }
        }
        try sequences.save(announcing: rows, to: outbox, in: db)
        return rows
    }

    /// The events of `pending` not applied before, in order, recorded in
    /// the inbox: one row per consumer and publisher for the whole batch.
    static func freshEvents(_ pending: [PendingEvent], at now: Date, in db: Database) throws -> [PendingEvent] {
        var fresh = [Bool](repeating: false, count: pending.count)
        // Nearly always one consumer: a batch comes from one subscription.
        for (consumer, indices) in Dictionary(grouping: pending.indices, by: { pending[$0].consumer }) {
            let recorded = try ServiceDatabase.recordOnce(indices.map { pending[$0].key }, consumer: consumer, at: now, in: db)
            for (index, isFresh) in zip(indices, recorded) { fresh[index] = isFresh }
        }
        return zip(pending, fresh).filter(\.1).map(\.0)
    }

    /// The events of `pending` still set aside, in order, each deleted from
    /// `set_aside_event`: a retry's counterpart of the inbox (the events are
    /// in the inbox already), so that two retries of one event decide it once.
    static func takenFromSetAside(_ pending: [PendingEvent], in db: Database) throws -> [PendingEvent] {
        let delete = try db.cachedStatement(sql: "DELETE FROM set_aside_event WHERE publisher = ? AND sequence = ? AND consumer = ?")
        return try pending.filter { event in
            try delete.execute(arguments: [event.key.publisher, Int64(bitPattern: event.key.sequence), event.consumer])
            return db.changesCount > 0
        }
    }

    /// Puts `row` into the outbox once per channel — for push once per
    /// device the user has registered, none when they have none — due at
    /// once (next attempt 0: retries are due by real time, which a business
    /// clock's `now` is not), with its payload fixed: the webhook's and the
    /// log's ``AlertPayload`` (a digest's with the alerts it carries), push's
    /// ``ApnsPayload``, each with the route's track record when analytics
    /// has told one in the last two days (``KeptTrackRecords``).
    static func enqueue(_ row: AlertRow, channels: [Int], carried: [String]? = nil, at now: Date, in db: Database) throws {
        let statement = try db.cachedStatement(sql: """
            INSERT INTO outbox (alertID, channel, address, userID, kind, body, status, attempts, nextAttemptAtUnixMs, lastError, createdAtUnixMs, finishedAtUnixMs)
            VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, '', ?, 0)
            """)
        let nowMs = now.unixMilliseconds
        func insert(_ channel: Int, address: String, body: [UInt8]) throws {
            // Bound through SQLite's C interface, like the alert row: one per sent decision and channel (decision 0007).
            try statement.executeBinding { values in
                values.bind(row.alertID); values.bind(channel); values.bind(address); values.bind(row.userID); values.bind(row.kind); values.bind(blob: body)
                values.bind(OutboxRow.Status.pending.rawValue); values.bind(Int64(0)); values.bind(nowMs)
            }
        }
        var body: [UInt8]?
        // One primary-key read (none for a digest or notice, which have no route).
        let trackRecord = try KeptTrackRecords.summary(row.origin, row.destination, at: now, in: db)
        for channel in channels {
            if channel == AlertChannel.push.rawValue {
                let tokens = try DeviceRow.tokens(of: row.userID, in: db)
                guard !tokens.isEmpty else { continue }
                var payload = ApnsPayload(row)
                payload.trackRecord = trackRecord ?? ""
                let push = payload.jsonBytes()
                for token in tokens { try insert(channel, address: token, body: push) }
            } else {
                let payload = body ?? {
                    var payload = AlertPayload(row, carried: carried)
                    payload.data.trackRecord = trackRecord
                    return payload.jsonBytes()
                }()
                body = payload
                try insert(channel, address: "", body: payload)
            }
        }
    }
}
