import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import Testing

@Suite("--services selection")
struct ServiceSelectionTests {
    @Test("'all' selects the six services and the gateway, the gateway last")
    func all() throws {
        let names = try ServiceSelection.select("all", from: ServiceCatalog.all).map(\.name)
        #expect(Set(names) == ["search", "watchlist", "scoring", "alerts", "subscription", "analytics", "gateway"])
        #expect(names.last == "gateway")
    }

    @Test("A list selects exactly those services, in start order")
    func list() throws {
        let names = try ServiceSelection.select("scoring, search", from: ServiceCatalog.all).map(\.name)
        #expect(names == ["search", "scoring"])
    }

    @Test("An unknown service name is an error that names it")
    func unknown() {
        #expect { try ServiceSelection.select("search,pricing", from: ServiceCatalog.all) }
            throws: { ($0 as? ConfigurationError)?.message.contains("'pricing'") == true }
        #expect(throws: ConfigurationError.self) { try ServiceSelection.select(" , ", from: ServiceCatalog.all) }
    }
}
