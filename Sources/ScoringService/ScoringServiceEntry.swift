public import FareLensRuntime

/// The scoring service: price history and DealScore (SPEC § 2).
///
/// Today a registered shell — it opens `scoring.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues (see `ScoringService`).
public enum ScoringServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "scoring", address: "scoring") { _ in ScoringService() }
}
