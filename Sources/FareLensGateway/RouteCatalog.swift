import Hummingbird
import Synchronization

/// Every path template the gateway serves with its methods, so that a
/// request to a known path with a method it does not take is answered 405
/// with `Allow` (the router alone says 404), and an unknown path 404.
struct RouteCatalog: Sendable {
    private var routes: [(segments: [Substring], methods: Set<String>)] = []

    /// Records `method` at `path` (`v1/me/watchlists/:id`).
    mutating func add(_ method: HTTPRequest.Method, _ path: String) {
        let segments = path.split(separator: "/")
        if let index = routes.firstIndex(where: { $0.segments == segments }) {
            routes[index].methods.insert(method.rawValue)
        } else {
            routes.append((segments, [method.rawValue]))
        }
    }

    /// The methods `path` takes; empty when no route has this shape.
    func methods(at path: String) -> [String] {
        let parts = path.split(separator: "/")
        let found = routes.filter { route in
            route.segments.count == parts.count && zip(route.segments, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
        return found.flatMap(\.methods).sorted()
    }
}

/// The catalog, set once the routes are registered (after the middleware that reads it is made).
final class RouteCatalogBox: Sendable {
    private let catalog = Mutex(RouteCatalog())
    func set(_ value: RouteCatalog) { catalog.withLock { $0 = value } }
    func get() -> RouteCatalog { catalog.withLock { $0 } }
}
