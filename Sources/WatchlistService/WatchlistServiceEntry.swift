public import FareLensRuntime

/// The watchlist service: routes people watch and their scheduled checks (SPEC § 3).
///
/// Today a registered shell — it opens `watchlist.sqlite`, starts, reports ready and
/// drains on shutdown like every service, but handles no messages yet; its
/// features arrive with their own issues (see `WatchlistService`).
public enum WatchlistServiceEntry {
    /// How the node builds this service.
    public static let descriptor = ServiceDescriptor(name: "watchlist", address: "watchlist") { _ in WatchlistService() }
}
