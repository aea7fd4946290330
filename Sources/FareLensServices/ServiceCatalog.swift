import AlertsService
import AnalyticsService
import FareLensGateway
import FareLensRuntime
public import FareLensServiceKit
import ScoringService
import SearchService
import SubscriptionService
import WatchlistService

/// The six services and the gateway, in start order: analytics first (it
/// hears every topic, so it must be listening before anyone publishes),
/// alerts after the other services, the gateway last (the app's requests
/// arrive once every service it calls is registered). Shutdown runs in the
/// reverse order: the gateway stops taking requests first.
public enum ServiceCatalog {
    /// Every service this executable can host.
    public static let all: [ServiceDescriptor] = [
        AnalyticsServiceEntry.descriptor,
        SubscriptionServiceEntry.descriptor,
        SearchServiceEntry.descriptor,
        ScoringServiceEntry.descriptor,
        WatchlistServiceEntry.descriptor,
        AlertsServiceEntry.descriptor,
        GatewayEntry.descriptor,
    ]
}
