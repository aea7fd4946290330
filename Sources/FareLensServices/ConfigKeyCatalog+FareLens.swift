import AlertsService
import AnalyticsService
import FareLensGateway
import FareLensRuntime
public import FareLensServiceKit
import SearchService
import SubscriptionService

extension ConfigKeyCatalog {
    /// Every key `farelens serve` reads: the node's and each service's
    /// (scoring and watchlist read none). `farelens config keys` lists them;
    /// start-up reports any other given key. `ConfigKeyCatalogTests` runs a
    /// node with every service and fails on a key read that is not here.
    public static let farelens = ConfigKeyCatalog(
        NodeConfiguration.configKeys + AnalyticsSettings.configKeys + SubscriptionServiceEntry.configKeys + AppStoreSettings.configKeys + SearchSettings.configKeys
            + AlertDeliverySettings.configKeys + GatewaySettings.configKeys
    )
}
