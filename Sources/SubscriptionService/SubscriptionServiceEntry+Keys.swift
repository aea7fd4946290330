public import FareLensServiceKit

extension SubscriptionServiceEntry {
    /// The keys the subscription service reads (`subscription.*`), for
    /// ``ConfigKeyCatalog`` (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = [
        ConfigKeySpec("subscription.bcryptCost", .integer, default: "12", "bcrypt's cost for passwords, 4–31"),
    ]
}
