public import FareLensBus

/// Subscription service messages on the bus: requests at address `subscription`, events on `subscription.*` topics (SPEC §4).
extension ServiceAddress {
    /// The subscription service: accounts, tiers, entitlements, purchases.
    public static let subscription: ServiceAddress = "subscription"
}

extension CreateUserRequest: BusRequest {
    public typealias Response = CreateUserResponse
    public static var address: ServiceAddress { .subscription }
}
extension CreateUserResponse: BusMessage {}

extension GetUserRequest: BusRequest {
    public typealias Response = GetUserResponse
    public static var address: ServiceAddress { .subscription }
}
extension GetUserResponse: BusMessage {}

extension GetUsersRequest: BusRequest {
    public typealias Response = GetUsersResponse
    public static var address: ServiceAddress { .subscription }
}
extension GetUsersResponse: BusMessage {}

extension UpdateUserRequest: BusRequest {
    public typealias Response = UpdateUserResponse
    public static var address: ServiceAddress { .subscription }
}
extension UpdateUserResponse: BusMessage {}

extension GetEntitlementsRequest: BusRequest {
    public typealias Response = GetEntitlementsResponse
    public static var address: ServiceAddress { .subscription }
}
extension GetEntitlementsResponse: BusMessage {}

extension PreferredAirportUsersRequest: BusRequest {
    public typealias Response = PreferredAirportUsersResponse
    public static var address: ServiceAddress { .subscription }
}
extension PreferredAirportUsersResponse: BusMessage {}

extension PreferredAirportSummaryRequest: BusRequest {
    public typealias Response = PreferredAirportSummaryResponse
    public static var address: ServiceAddress { .subscription }
}
extension PreferredAirportSummaryResponse: BusMessage {}

extension ApplyPurchaseNotificationRequest: BusRequest {
    public typealias Response = ApplyPurchaseNotificationResponse
    public static var address: ServiceAddress { .subscription }
}
extension ApplyPurchaseNotificationResponse: BusMessage {}

extension SetTierRequest: BusRequest {
    public typealias Response = SetTierResponse
    public static var address: ServiceAddress { .subscription }
}
extension SetTierResponse: BusMessage {}

extension ListUsersRequest: BusRequest {
    public typealias Response = ListUsersResponse
    public static var address: ServiceAddress { .subscription }
}
extension ListUsersResponse: BusMessage {}

extension DeleteUserRequest: BusRequest {
    public typealias Response = DeleteUserResponse
    public static var address: ServiceAddress { .subscription }
}
extension DeleteUserResponse: BusMessage {}

extension PurchaseHistoryRequest: BusRequest {
    public typealias Response = PurchaseHistoryResponse
    public static var address: ServiceAddress { .subscription }
}
extension PurchaseHistoryResponse: BusMessage {}

/// Durable: watchlists deactivate on a downgrade, alert caps follow the tier and trial→paid conversion counts it; each change is published once.
extension TierChanged: BusEvent {
    public static let topic = Topic("subscription.tier-changed", durable: true)
}
/// Durable: it becomes a message to the user (one day before and at expiry), like an alert, and is published once per stage.
extension TrialEnding: BusEvent {
    public static let topic = Topic("subscription.trial-ending", durable: true)
}
/// Durable: purchases are money (DESIGN lists them); published once per transaction id.
extension PurchaseRecorded: BusEvent {
    public static let topic = Topic("subscription.purchase-recorded", durable: true)
}
/// Durable: the watchlist schedule runs in the user's time zone, so a lost change means checks at the wrong hour.
extension UserPreferencesChanged: BusEvent {
    public static let topic = Topic("subscription.user-preferences-changed", durable: true)
}
/// Durable: erasure of a deleted user's data must not be lost.
extension UserDeleted: BusEvent {
    public static let topic = Topic("subscription.user-deleted", durable: true)
}
