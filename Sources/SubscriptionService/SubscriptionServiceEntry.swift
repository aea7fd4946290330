public import FareLensRuntime

/// The subscription service: accounts, tiers and entitlements (SPEC § 4).
///
/// Today a registered shell — it opens `subscription.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues (see `SubscriptionService`).
public enum SubscriptionServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "subscription", address: "subscription") { _ in SubscriptionService() }
}
