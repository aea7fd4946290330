public import FareLensBus

/// Analytics service messages on the bus: requests at address `analytics` (SPEC §6). Analytics publishes no events; it subscribes to all of them.
extension ServiceAddress {
    /// The analytics service: client events, privacy, reports, commission reconciliation.
    public static let analytics: ServiceAddress = "analytics"
}

extension RecordClientEventRequest: BusRequest {
    public typealias Response = RecordClientEventResponse
    public static var address: ServiceAddress { .analytics }
}
extension RecordClientEventResponse: BusMessage {}

extension SetAnalyticsOptOutRequest: BusRequest {
    public typealias Response = SetAnalyticsOptOutResponse
    public static var address: ServiceAddress { .analytics }
}
extension SetAnalyticsOptOutResponse: BusMessage {}

extension DeleteUserDataRequest: BusRequest {
    public typealias Response = DeleteUserDataResponse
    public static var address: ServiceAddress { .analytics }
}
extension DeleteUserDataResponse: BusMessage {}

extension RouteTrackRecordRequest: BusRequest {
    public typealias Response = RouteTrackRecordResponse
    public static var address: ServiceAddress { .analytics }
}
extension RouteTrackRecordResponse: BusMessage {}

extension RouteTrackRecordChanged: BusEvent {
    public static let topic = Topic("analytics.route-track-record-changed")
}

extension AnalyticsReportRequest: BusRequest {
    public typealias Response = AnalyticsReportResponse
    public static var address: ServiceAddress { .analytics }
}
extension AnalyticsReportResponse: BusMessage {}

extension CommissionNotificationRequest: BusRequest {
    public typealias Response = CommissionNotificationResponse
    public static var address: ServiceAddress { .analytics }
}
extension CommissionNotificationResponse: BusMessage {}
