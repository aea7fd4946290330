public import FareLensBus

/// Alerts service messages on the bus: requests at address `alerts`, events on `alerts.*` topics (SPEC §5).
extension ServiceAddress {
    /// The alerts service: alert policy, history, mutes and pauses, delivery.
    public static let alerts: ServiceAddress = "alerts"
}

extension AlertHistoryRequest: BusRequest {
    public typealias Response = AlertHistoryResponse
    public static var address: ServiceAddress { .alerts }
}
extension AlertHistoryResponse: BusMessage {}

extension MuteRouteRequest: BusRequest {
    public typealias Response = MuteRouteResponse
    public static var address: ServiceAddress { .alerts }
}
extension MuteRouteResponse: BusMessage {}

extension UnmuteRouteRequest: BusRequest {
    public typealias Response = UnmuteRouteResponse
    public static var address: ServiceAddress { .alerts }
}
extension UnmuteRouteResponse: BusMessage {}

extension PauseAlertsRequest: BusRequest {
    public typealias Response = PauseAlertsResponse
    public static var address: ServiceAddress { .alerts }
}
extension PauseAlertsResponse: BusMessage {}

extension ResumeAlertsRequest: BusRequest {
    public typealias Response = ResumeAlertsResponse
    public static var address: ServiceAddress { .alerts }
}
extension ResumeAlertsResponse: BusMessage {}

extension AlertSettingsRequest: BusRequest {
    public typealias Response = AlertSettingsResponse
    public static var address: ServiceAddress { .alerts }
}
extension AlertSettingsResponse: BusMessage {}

extension ReplayAlertsRequest: BusRequest {
    public typealias Response = ReplayAlertsResponse
    public static var address: ServiceAddress { .alerts }
}
extension ReplayAlertsResponse: BusMessage {}

extension SetAsideEventsRequest: BusRequest {
    public typealias Response = SetAsideEventsResponse
    public static var address: ServiceAddress { .alerts }
}
extension SetAsideEventsResponse: BusMessage {}

extension RetrySetAsideRequest: BusRequest {
    public typealias Response = RetrySetAsideResponse
    public static var address: ServiceAddress { .alerts }
}
extension RetrySetAsideResponse: BusMessage {}

extension RegisterDeviceRequest: BusRequest {
    public typealias Response = RegisterDeviceResponse
    public static var address: ServiceAddress { .alerts }
}
extension RegisterDeviceResponse: BusMessage {}

extension UnregisterDeviceRequest: BusRequest {
    public typealias Response = UnregisterDeviceResponse
    public static var address: ServiceAddress { .alerts }
}
extension UnregisterDeviceResponse: BusMessage {}

extension ListDevicesRequest: BusRequest {
    public typealias Response = ListDevicesResponse
    public static var address: ServiceAddress { .alerts }
}
extension ListDevicesResponse: BusMessage {}

/// Durable: analytics' alerts report counts every decision exactly once,
/// also when it runs in another process that was down for a while (its
/// report is checked against alerts' own records end to end).
extension AlertDecided: BusEvent {
    public static let topic = Topic("alerts.alert-decided", durable: true)
}
extension AlertDelivered: BusEvent {
    public static let topic = Topic("alerts.alert-delivered")
}
extension AlertDeliveryFailed: BusEvent {
    public static let topic = Topic("alerts.alert-delivery-failed")
}
/// Not durable: a notice for the app and analytics; the device row is gone either way.
extension DeviceRemoved: BusEvent {
    public static let topic = Topic("alerts.device-removed")
}
