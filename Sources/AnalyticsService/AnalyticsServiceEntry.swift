public import FareLensRuntime

/// The analytics service: events from every service, pseudonymised, with reports (SPEC § 6).
///
/// Today a registered shell — it opens `analytics.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues (see `AnalyticsService`).
public enum AnalyticsServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "analytics", address: "analytics") { _ in AnalyticsService() }
}
