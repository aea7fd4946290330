public import FareLensRuntime

/// The search service: airports, flight search, fare providers, cache, quota, market sweep and booking options (SPEC § 1).
///
/// Today a registered shell — it opens `search.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues.
public enum SearchServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "search", address: "search") { _ in IdleBehaviour() }
}
