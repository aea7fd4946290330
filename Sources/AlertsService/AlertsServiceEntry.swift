public import FareLensRuntime

/// The alerts service: alert policy and the durable delivery outbox (SPEC § 5).
///
/// Today a registered shell — it opens `alerts.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues (see `AlertsService`).
public enum AlertsServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "alerts", address: "alerts") { _ in AlertsService() }
}
