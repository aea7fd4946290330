public import Configuration
public import FareLensMessages
public import FareLensServiceKit
import Foundation
public import X509

/// What the App Store's signed payloads are checked against (docs/payments.md):
/// keys under `appstore.` (environment `FARELENS_APPSTORE_…`).
///
/// | key | meaning | default |
/// | --- | --- | --- |
/// | `appstore.bundleId` | the app's bundle id, checked in every payload | absent: the App Store endpoints answer `appstore-not-configured` |
/// | `appstore.environment` | `Production` or `Sandbox`: payloads of the other are refused | `Production` |
/// | `appstore.appAppleId` | the app's Apple id, checked in production payloads | required with `Production` |
/// | `appstore.rootCertificates` | comma-separated DER or PEM files of trusted roots | Apple Root CA - G3, shipped |
/// | `appstore.monthlyProductId` | the product id of Pro monthly | `com.farelens.pro.monthly` |
/// | `appstore.annualProductId` | the product id of Pro annual | `com.farelens.pro.annual` |
public struct AppStoreSettings: Sendable {
    /// An App Store environment, as payloads name it.
    public enum Environment: String, Sendable, CaseIterable {
        case production = "Production"
        case sandbox = "Sandbox"
    }

    /// The trusted roots; the x5c chain of every payload must end at one.
    public var roots: [Certificate]
    public var bundleID: String
    public var environment: Environment
    /// Checked in `Production` (Apple's library does the same); a sandbox payload may omit it.
    public var appAppleID: Int64?
    /// Product id → what it sells; any other product is recorded, not applied.
    public var products: [String: SubscriptionProduct]

    /// Settings for one app.
    public init(
        roots: [Certificate], bundleID: String, environment: Environment = .production, appAppleID: Int64? = nil,
        products: [String: SubscriptionProduct] = [defaultMonthlyProductID: .monthly, defaultAnnualProductID: .annual]
    ) {
        self.roots = roots
        self.bundleID = bundleID
        self.environment = environment
        self.appAppleID = appAppleID
        self.products = products
    }

    /// The product ids Pro is sold under unless configured otherwise.
    public static let defaultMonthlyProductID = "com.farelens.pro.monthly"
    public static let defaultAnnualProductID = "com.farelens.pro.annual"

    /// The keys, for ``ConfigKeyCatalog`` (`farelens config keys`; docs/operations.md).
    public static let configKeys: [ConfigKeySpec] = [
        ConfigKeySpec("appstore.bundleId", .string, default: "", "the app's bundle id; unset: no App Store payload is accepted"),
        ConfigKeySpec("appstore.environment", .string, default: "Production", "Production or Sandbox: payloads from the other are refused"),
        ConfigKeySpec("appstore.appAppleId", .integer, default: "", "the app's Apple id, checked in production payloads (required with Production)"),
        ConfigKeySpec("appstore.rootCertificates", .string, default: "Apple Root CA - G3", "comma-separated DER or PEM root certificate files"),
        ConfigKeySpec("appstore.monthlyProductId", .string, default: defaultMonthlyProductID, "the App Store product id of Pro monthly"),
        ConfigKeySpec("appstore.annualProductId", .string, default: defaultAnnualProductID, "the App Store product id of Pro annual"),
    ]

    /// Where the shipped Apple Root CA - G3 is.
    static var appleRootG3URL: URL? {
        Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "cer", subdirectory: "Resources")
            ?? Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "cer")
    }

    /// Apple Root CA - G3, shipped with the service (Resources/README.md names its source and fingerprints).
    public static func appleRootG3() throws -> Certificate {
        guard let url = appleRootG3URL else {
            throw ConfigurationError.required(key: "appstore.rootCertificates", "the shipped Apple Root CA - G3 is missing from the service's resources")
        }
        return try Certificate(derEncoded: Array(Data(contentsOf: url)))
    }

    /// Reads `appstore.*` from a reader scoped to `appstore`; nil when
    /// `bundleId` is absent (the App Store is not configured).
    ///
    /// - Throws: ``ConfigurationError`` naming the key at fault: an
    ///   environment other than the two, a production setup without its
    ///   Apple id, an unreadable or unparsable root file.
    public static func read(_ reader: ConfigReader) throws -> AppStoreSettings? {
        // Every key the catalog declares is read, so the node's record of keys read matches it even when the App Store is off.
        var values: [String: String] = [:]
        for spec in configKeys {
            let key = ConfigKey(String(spec.key.dropFirst("appstore.".count)))
            let value = reader.string(forKey: key)?.trimmingCharacters(in: .whitespaces) ?? reader.int(forKey: key).map(String.init)
            if let value, !value.isEmpty { values[String(spec.key.dropFirst("appstore.".count))] = value }
        }
        func text(_ key: String) -> String? { values[key] }
        guard let bundleID = text("bundleId") else { return nil }
        let environmentText = text("environment") ?? Environment.production.rawValue
        guard let environment = Environment(rawValue: environmentText) else {
            throw ConfigurationError.invalid(key: "appstore.environment", value: environmentText, expected: "Production or Sandbox")
        }
        var appAppleID: Int64?
        if let idText = text("appAppleId") {
            guard let id = Int64(idText), id > 0 else {
                throw ConfigurationError.invalid(key: "appstore.appAppleId", value: idText, expected: "the app's Apple id, a positive whole number")
            }
            appAppleID = id
        }
        if environment == .production, appAppleID == nil {
            throw ConfigurationError.required(key: "appstore.appAppleId", "'appstore.appAppleId' is required when appstore.environment is Production: production payloads are checked against it")
        }
        let roots: [Certificate]
        if let paths = text("rootCertificates") {
            roots = try paths.split(separator: ",").map { try readCertificate(at: $0.trimmingCharacters(in: .whitespaces)) }
        } else {
            roots = [try appleRootG3()]
        }
        let monthly = text("monthlyProductId") ?? defaultMonthlyProductID
        let annual = text("annualProductId") ?? defaultAnnualProductID
        guard monthly != annual else {
            throw ConfigurationError.invalid(key: "appstore.annualProductId", value: annual, expected: "a product id other than appstore.monthlyProductId's")
        }
        return AppStoreSettings(roots: roots, bundleID: bundleID, environment: environment, appAppleID: appAppleID, products: [monthly: .monthly, annual: .annual])
    }

    /// One root certificate file, DER or PEM.
    private static func readCertificate(at path: String) throws -> Certificate {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError.invalid(key: "appstore.rootCertificates", value: path, expected: "a readable DER or PEM certificate file")
        }
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----"), let certificate = try? Certificate(pemEncoded: text) {
            return certificate
        }
        guard let certificate = try? Certificate(derEncoded: Array(data)) else {
            throw ConfigurationError.invalid(key: "appstore.rootCertificates", value: path, expected: "a DER or PEM X.509 certificate")
        }
        return certificate
    }
}
