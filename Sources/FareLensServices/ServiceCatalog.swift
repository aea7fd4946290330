import AlertsService
import AnalyticsService
public import FareLensRuntime
import ScoringService
import SearchService
import SubscriptionService
import WatchlistService

/// The six services, in start order: analytics first (it hears every topic,
/// so it must be listening before anyone publishes), alerts last. Shutdown
/// runs in the reverse order.
public enum ServiceCatalog {
    /// Every service this executable can host.
    public static let all: [ServiceDescriptor] = [
        AnalyticsServiceEntry.descriptor,
        SubscriptionServiceEntry.descriptor,
        SearchServiceEntry.descriptor,
        ScoringServiceEntry.descriptor,
        WatchlistServiceEntry.descriptor,
        AlertsServiceEntry.descriptor,
    ]
}
