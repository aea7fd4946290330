import FareLensBus
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging

/// The subscription service's actor: accounts, the trial and the tier each
/// user is on, and the entitlements that follow from it (SPEC §4;
/// docs/subscription.md).
///
/// Its state is the `user` table of `subscription.sqlite`, written only from
/// this actor. Requests reach it with an actor hop; the events they cause are
/// written into the same database's event outbox (``EventOutbox``) in the
/// transaction of the change, so a request is answered before any event
/// backpressure and a crash after the commit loses no event. `run()`
/// publishes those events and moves trials along
/// (a reminder one day before the end, then Free) on `trialCheckInterval`.
actor SubscriptionService: ServiceBehaviour {
    private enum State {
        /// Built, `run()` not yet called.
        case idle
        /// `run()` is publishing events and checking trials.
        case running
        /// `run()` returned.
        case stopped
    }

    private var state = State.idle
    let database: ServiceDatabase
    let validator: UserValidator
    let clock: any WallClock
    /// Where every event this service publishes is written, and published from.
    let events: EventOutbox
    private let trialCheckInterval: Duration
    let logger: Logger
    /// bcrypt for password accounts, off the concurrency pool.
    let passwords: PasswordHasher
    /// Real time, for sessions: refresh tokens and sign-in throttling last
    /// real days and minutes, whatever the business clock (a demo's runs
    /// 8 simulated hours a second).
    let sessionClock: any WallClock
    /// Checks the App Store's signed payloads; nil when `appstore.bundleId`
    /// is not set (the App Store requests answer `appstore-not-configured`).
    let appStore: AppStoreVerifier?
    /// Services that keep users' preferences from their events and started
    /// without them (a node that joined later) ask for them again.
    let announcementWants: EventSubscription<AnnouncementWanted>

    init(
        database: ServiceDatabase, airports: any AirportChecker, clock: any WallClock, bus: MessageBus,
        trialCheckInterval: Duration = .seconds(60), bcryptCost: UInt8 = 12,
        sessionClock: any WallClock = SystemWallClock(), appStore: AppStoreVerifier? = nil, logger: Logger
    ) {
        self.sessionClock = sessionClock
        self.appStore = appStore
        self.passwords = PasswordHasher(cost: bcryptCost)
        self.database = database
        self.validator = UserValidator(airports: airports)
        self.clock = clock
        self.events = EventOutbox(
            owner: "subscription", database: database, bus: bus,
            types: [TierChanged.self, TrialEnding.self, PurchaseRecorded.self, UserPreferencesChanged.self, UserDeleted.self], clock: clock,
            logger: logger)
        self.trialCheckInterval = trialCheckInterval
        self.logger = logger
        // Subscribed here, before the node's hello, so the topic is routed to this node from the start.
        self.announcementWants = bus.subscribe(AnnouncementWanted.self)
    }

    nonisolated func register(on bus: MessageBus) throws {
        try bus.serve(CreateUserRequest.self) { request, context in try await self.createUser(request, context: context) }
        try bus.serve(GetUserRequest.self) { request, _ in try await self.user(request) }
        try bus.serve(GetUsersRequest.self) { request, _ in try await self.users(request) }
        try bus.serve(UpdateUserRequest.self) { request, context in try await self.updateUser(request, context: context) }
        try bus.serve(GetEntitlementsRequest.self) { request, _ in try await self.entitlements(request) }
        try bus.serve(ApplyPurchaseNotificationRequest.self) { request, context in try await self.applyPurchase(request, context: context) }
        try bus.serve(PurchaseHistoryRequest.self) { request, _ in try await self.purchaseHistory(request) }
        try bus.serve(SetTierRequest.self) { request, context in try await self.setTier(request, context: context) }
        try bus.serve(ListUsersRequest.self) { request, _ in try await self.listUsers(request) }
        try bus.serve(DeleteUserRequest.self) { request, context in try await self.deleteUser(request, context: context) }
        try bus.serve(PreferredAirportUsersRequest.self) { request, _ in try await self.preferredAirportUsers(request) }
        try bus.serve(PreferredAirportSummaryRequest.self) { request, _ in try await self.preferredAirportSummary(request) }
        try bus.serve(PasswordSignUpRequest.self) { request, context in try await self.passwordSignUp(request, context: context) }
        try bus.serve(PasswordSignInRequest.self) { request, _ in try await self.passwordSignIn(request) }
        try bus.serve(AppleSignInRequest.self) { request, context in try await self.appleSignIn(request, context: context) }
        try bus.serve(RefreshSessionRequest.self) { request, _ in try self.refreshSession(request) }
        try bus.serve(SignOutRequest.self) { request, _ in try self.signOut(request) }
        try bus.serve(AppStoreNotificationRequest.self) { request, context in try await self.receiveAppStoreNotification(request, context: context) }
        try bus.serve(RestorePurchaseRequest.self) { request, context in try await self.restorePurchase(request, context: context) }
        try bus.serve(RecentStoreNotificationsRequest.self) { request, _ in try self.recentStoreNotifications(request) }
    }

    /// Publishes the outbox's events and checks trials until cancelled;
    /// then publishes what the outbox holds once more and returns.
    func run() async throws {
        guard case .idle = state else { return }
        state = .running
        defer { state = .stopped }
        announcePending()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.events.run() }
            group.addTask {
                await WantedAnnouncements.follow(
                    self.announcementWants, announcement: Self.preferencesAnnouncement, database: self.database, logger: self.logger
                ) { await self.announcePending() }
            }
            group.addTask {
                while !Task.isCancelled {
                    await self.advanceTrials()
                    await self.endPaidPeriods()
                    await self.purgeExpiredRefreshTokens()
                    try? await self.clock.sleep(for: self.trialCheckInterval)  // safe: the clock's time, the trial schedule itself (tests call advanceTrials directly); ends on cancellation
                }
                self.announcementWants.cancel()
            }
        }
    }

    // MARK: Accounts

    /// Creates a user on a 14-day trial; publishes `TierChanged`
    /// (unspecified → trial, `TRIAL_STARTED`) and `UserPreferencesChanged`.
    func createUser(_ request: CreateUserRequest, context: RequestContext? = nil) async throws(SubscriptionError) -> CreateUserResponse {
        let (record, _) = try await insertUser(request, context: context) { _, _ in () }
        var response = CreateUserResponse()
        response.user = record.message
        response.entitlements = TierEntitlements.of(.trial)
        return response
    }

    /// Checks and inserts a new user on a 14-day trial, with its events;
    /// `alongside` writes what else belongs to the account (a credential,
    /// an Apple subject, a refresh token) in the same transaction.
    func insertUser<Alongside: Sendable>(
        _ request: CreateUserRequest, context: RequestContext?,
        alongside: @escaping @Sendable (UserRecord, Database) throws(SubscriptionError) -> Alongside
    ) async throws(SubscriptionError) -> (UserRecord, Alongside) {
        let email = try UserValidator.email(request.email)
        let timeZone = try UserValidator.timeZone(request.timeZone)
        let quiet = try UserValidator.quietHours(request.hasQuietHours ? request.quietHours : nil)
        let home = try await validator.homeAirport(request.homeAirport)
        let preferred = try await validator.preferredAirports(request.preferredAirports, tier: .trial)
        let now = clock.now()
        let record = UserRecord(
            userID: Self.newUserID(), email: email, timeZone: timeZone, homeAirport: home, preferredAirports: preferred,
            quietStartMinute: quiet.start, quietEndMinute: quiet.end, quietDisabled: quiet.disabled,
            tier: Tier.trial.rawValue, trialEndsAtUnixMs: Self.unixMs(now) + Int64(TierEntitlements.trialDays) * 86_400_000,
            trialStage: .running, product: SubscriptionProduct.unspecified.rawValue, paidUntilUnixMs: 0, autoRenew: false,
            createdAtUnixMs: Self.unixMs(now), appAccountToken: UUID().uuidString.lowercased()
        )
        let written = try write { db throws(SubscriptionError) in
            guard try Self.catching({ try UserRecord.filter(Column("email") == email).fetchCount(db) }) == 0 else { throw .emailTaken(email) }
            try Self.catching { try record.insert(db) }
            try self.appendTierChange(record, from: .unspecified, cause: .trialStarted, at: now, parent: context, in: db)
            try self.appendPreferences(record, at: now, parent: context, in: db)
            return try alongside(record, db)
        }
        logger.info("user created", metadata: ["user": "\(record.userID)", "tier": "trial"])
        return (record, written)
    }

    /// A user by id, or by email when the id is empty.
    func user(_ request: GetUserRequest) throws(SubscriptionError) -> GetUserResponse {
        let record = try find(request.userID.isEmpty ? nil : request.userID, email: request.userID.isEmpty ? request.email : nil)
        var response = GetUserResponse()
        response.user = record.message
        response.entitlements = TierEntitlements.of(record.tierValue)
        return response
    }

    /// The most ids one `GetUsersRequest` may ask for.
    static let maximumUserIDs = 1_000

    /// Many users by id in one read: the known ones with their entitlements,
    /// and the ids no user has (each answered once, both in id order).
    func users(_ request: GetUsersRequest) throws(SubscriptionError) -> GetUsersResponse {
        guard request.userIds.count <= Self.maximumUserIDs else {
            throw .invalidField("user_ids", "at most \(Self.maximumUserIDs) ids, got \(request.userIds.count)")
        }
        guard !request.userIds.contains(where: \.isEmpty) else { throw .invalidField("user_ids", "an id is empty") }
        let ids = Set(request.userIds).sorted()
        let records: [UserRecord]
        do {
            records = try database.writer.read { db in try UserRecord.fetchAll(db, keys: ids) }
        } catch {
            throw .storage(error)
        }
        let byID = Dictionary(records.map { ($0.userID, $0) }, uniquingKeysWith: { first, _ in first })
        var response = GetUsersResponse()
        response.users.reserveCapacity(records.count)
        for id in ids {
            guard let record = byID[id] else {
                response.unknownUserIds.append(id)
                continue
            }
            var user = GetUserResponse()
            user.user = record.message
            user.entitlements = TierEntitlements.of(record.tierValue)
            response.users.append(user)
        }
        return response
    }

    /// Changes the fields that are set; publishes `UserPreferencesChanged`.
    /// Everything is checked before anything is written.
    func updateUser(_ request: UpdateUserRequest, context: RequestContext? = nil) async throws(SubscriptionError) -> UpdateUserResponse {
        let current = try find(request.userID, email: nil)
        let email = request.hasEmail ? try UserValidator.email(request.email) : nil
        let timeZone = request.hasTimeZone ? try UserValidator.timeZone(request.timeZone) : nil
        let quiet = request.hasQuietHours ? try UserValidator.quietHours(request.quietHours) : nil
        let currency = request.hasCurrency ? try UserValidator.currency(request.currency) : nil
        let home = request.hasHomeAirport ? try await validator.homeAirport(request.homeAirport) : nil
        // Checked against the tier at the time of writing (below), which a concurrent change may have moved.
        let preferred = request.hasPreferredAirports
            ? try await validator.preferredAirports(request.preferredAirports.airports, tier: current.tierValue) : nil
        let now = clock.now()
        let updated = try write { db throws(SubscriptionError) -> UserRecord in
            guard var record = try Self.catching({ try UserRecord.fetchOne(db, key: request.userID) }) else { throw .unknownUser(request.userID) }
            if let email, email != record.email {
                guard try Self.catching({ try UserRecord.filter(Column("email") == email).fetchCount(db) }) == 0 else { throw .emailTaken(email) }
                record.email = email
            }
            if let timeZone { record.timeZone = timeZone }
            if let home { record.homeAirport = home }
            if let quiet { (record.quietStartMinute, record.quietEndMinute, record.quietDisabled) = quiet }
            if let currency { record.currency = currency }
            if let preferred {
                let allowed = Int(TierEntitlements.of(record.tierValue).preferredAirports)
                guard preferred.count <= allowed else { throw .airportLimit(preferred.count, allowed: allowed, tier: TierEntitlements.name(record.tierValue)) }
                record.preferredAirports = preferred
            }
            try Self.catching { try record.update(db) }
            try self.appendPreferences(record, at: now, parent: context, in: db)
            return record
        }
        var response = UpdateUserResponse()
        response.user = updated.message
        return response
    }

    /// The user's entitlements, from their tier (``TierEntitlements``).
    func entitlements(_ request: GetEntitlementsRequest) throws(SubscriptionError) -> GetEntitlementsResponse {
        var response = GetEntitlementsResponse()
        response.entitlements = TierEntitlements.of(try find(request.userID, email: nil).tierValue)
        return response
    }

    // MARK: Helpers

    func find(_ userID: String?, email: String?) throws(SubscriptionError) -> UserRecord {
        let record: UserRecord?
        do {
            record = try database.writer.read { db in
                // A prepared statement kept by the connection: every request naming a user (the feed, entitlements, each
                // gateway call) reads this row, and preparing the query again cost more than reading it.
                if let userID { return try UserRecord.fetchOne(db.cachedStatement(sql: "SELECT * FROM user WHERE userID = ?"), arguments: [userID]) }
                return try UserRecord.filter(Column("email") == (email ?? "").trimmingCharacters(in: .whitespaces).lowercased()).fetchOne(db)
            }
        } catch {
            throw .storage(error)
        }
        guard let record else { throw .unknownUser(userID ?? email ?? "") }
        return record
    }

    nonisolated func write<T: Sendable>(_ body: @Sendable (Database) throws(SubscriptionError) -> T) throws(SubscriptionError) -> T {
        try database.write(body, storageError: SubscriptionError.storage)
    }

    static func catching<T>(_ body: () throws -> T) throws(SubscriptionError) -> T {
        do { return try body() } catch { throw .storage(error) }
    }

    /// Writes `TrialEnding` for `record` at `stage` into the event outbox
    /// inside the write transaction `db`, and `TierChanged`
    /// (`TRIAL_EXPIRED`) when the trial is over.
    nonisolated func appendTrialEnding(_ record: UserRecord, stage: TrialEnding.Stage, at now: Date, in db: Database) throws(SubscriptionError) {
        var ending = TrialEnding()
        ending.userID = record.userID
        ending.stage = stage
        ending.trialEndsAtUnixMs = record.trialEndsAtUnixMs
        ending.atUnixMs = Self.unixMs(now)
        try Self.catching { try events.append(ending, in: db) }
        if stage == .expired { try appendTierChange(record, from: .trial, cause: .trialExpired, at: now, parent: nil, in: db) }
    }

    /// Writes `TierChanged` for `record` into the event outbox inside the
    /// write transaction `db`. A tier that allows fewer preferred airports
    /// than the user has (Pro's 3 to Free's 1) keeps the first chosen
    /// (``UserRecord/trimmingPreferredAirports(to:)``), saves them, names the
    /// removed ones in the event and publishes `UserPreferencesChanged`.
    ///
    /// - Returns: `record` as saved, trimmed when it was.
    @discardableResult
    nonisolated func appendTierChange(
        _ record: UserRecord, from previous: Tier, cause: TierChangeCause, transactionID: String = "", at now: Date, parent: RequestContext?,
        in db: Database
    ) throws(SubscriptionError) -> UserRecord {
        var record = record
        let removed = record.trimmingPreferredAirports(to: Int(TierEntitlements.of(record.tierValue).preferredAirports))
        if !removed.isEmpty { try Self.catching { try record.update(db) } }
        var change = TierChanged()
        change.userID = record.userID
        change.previous = previous
        change.current = record.tierValue
        change.cause = cause
        change.transactionID = transactionID
        change.entitlements = TierEntitlements.of(record.tierValue)
        change.atUnixMs = Self.unixMs(now)
        change.removedPreferredAirports = removed
        try Self.catching { try events.append(change, parent: parent, in: db) }
        if !removed.isEmpty { try appendPreferences(record, at: now, parent: parent, in: db) }
        return record
    }

    /// Writes `UserPreferencesChanged` for `record` into the event outbox
    /// inside the write transaction `db`; `announced` when nothing changed
    /// (``announcePending()``).
    nonisolated func appendPreferences(
        _ record: UserRecord, at now: Date, parent: RequestContext?, announced: Bool = false, in db: Database
    ) throws(SubscriptionError) {
        var changed = UserPreferencesChanged()
        changed.announced = announced
        changed.userID = record.userID
        changed.timeZone = record.timeZone
        changed.homeAirport = record.homeAirport
        changed.preferredAirports = record.message.preferredAirports
        changed.quietHours = record.quietHours
        changed.tier = record.tierValue
        changed.entitlements = TierEntitlements.of(record.tierValue)
        changed.currency = record.currency
        changed.atUnixMs = Self.unixMs(now)
        try Self.catching { try events.append(changed, parent: parent, in: db) }
    }

    static func unixMs(_ date: Date) -> Int64 { date.unixMilliseconds }

    /// `u-` and 16 random hex digits.
    static func newUserID() -> String {
        var generator = SystemRandomNumberGenerator()
        return "u-" + String(generator.next() as UInt64, radix: 16).leftPadded(to: 16)
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
