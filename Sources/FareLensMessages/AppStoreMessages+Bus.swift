public import FareLensBus

// App Store requests (Protos/appstore.proto), answered by the subscription
// service, where purchases are applied; the gateway and farelensctl ask them.

extension AppStoreNotificationRequest: BusRequest {
    public typealias Response = AppStoreNotificationResponse
    public static var address: ServiceAddress { .subscription }
}
extension AppStoreNotificationResponse: BusMessage {}

extension RestorePurchaseRequest: BusRequest {
    public typealias Response = RestorePurchaseResponse
    public static var address: ServiceAddress { .subscription }
}
extension RestorePurchaseResponse: BusMessage {}

extension RecentStoreNotificationsRequest: BusRequest {
    public typealias Response = RecentStoreNotificationsResponse
    public static var address: ServiceAddress { .subscription }
}
extension RecentStoreNotificationsResponse: BusMessage {}
