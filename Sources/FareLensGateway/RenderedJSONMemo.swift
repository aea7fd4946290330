import Crypto
import FareLensMessages
import SwiftProtobuf
import Synchronization

/// The JSON bodies of messages the gateway answered recently, kept by the
/// messages' protobuf bytes, so the same answer again (a cached search, the
/// airports of "san", an unchanged feed page) is not printed again.
///
/// Printing a message as the API's JSON (``ProtoJSONWithDefaults``) costs
/// several times encoding it as protobuf: a `perf` profile of the cached
/// search under load had 19% of the node's CPU in printing the answer
/// (docs/performance.md, "Gateway"). The key is the message's type and its
/// protobuf encoding, which the body is printed from; two messages with the
/// same bytes are the same message, so either's body is the other's. (Two
/// equal messages whose maps encode in another order are two keys: a miss,
/// never a wrong body.) A body is only ever answered to a request whose
/// answer *is* that message, so a user's data reaches no one else through
/// it.
///
/// Bounded by bytes: entries are kept in two generations of at most half
/// of ``byteBudget`` each; when the current one is full it becomes the
/// previous one and the older is dropped, and an entry found in the
/// previous one moves to the current. Messages encoding to more than ``largestKept`` bytes (an export)
/// are printed every time.
final class RenderedJSONMemo: Sendable {
    /// A printed body and its strong entity tag (the `ETag` of a cacheable answer).
    struct Rendered: Sendable {
        let json: [UInt8]
        let tag: String
    }

    private struct Key: Hashable {
        let type: ObjectIdentifier
        let bytes: [UInt8]

        /// The bytes hashed in one call, not one `combine` a byte (the
        /// synthesized hash): 3% of the node's CPU under the cached search.
        func hash(into hasher: inout Hasher) {
            hasher.combine(type)
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    private struct Generations {
        var current: [Key: Rendered] = [:]
        var currentBytes = 0
        var previous: [Key: Rendered] = [:]

        /// The body kept for `key`; one found in the previous generation moves to the current one.
        mutating func find(_ key: Key, halfBudget: Int) -> Rendered? {
            if let kept = current[key] { return kept }
            guard let kept = previous.removeValue(forKey: key) else { return nil }
            keep(kept, for: key, cost: key.bytes.count + kept.json.count, halfBudget: halfBudget)
            return kept
        }

        /// Keeps `rendered` for `key`; a current generation it would take
        /// past `halfBudget` becomes the previous one first. So each
        /// generation holds at most half the budget, whatever is found again.
        mutating func keep(_ rendered: Rendered, for key: Key, cost: Int, halfBudget: Int) {
            guard cost <= halfBudget else { return }
            if currentBytes + cost > halfBudget {
                previous = current
                current = [:]
                currentBytes = 0
            }
            guard current.updateValue(rendered, forKey: key) == nil else { return }
            currentBytes += cost
        }
    }

    /// What both generations may hold together, keys and bodies (bytes).
    let byteBudget: Int
    /// The largest protobuf encoding kept (bytes).
    let largestKept: Int
    private let printer: ProtoJSONWithDefaults
    private let generations = Mutex(Generations())

    /// A memo holding up to `byteBudget` bytes, printing with `printer`.
    init(byteBudget: Int = 8 << 20, largestKept: Int = 32 << 10, printer: ProtoJSONWithDefaults = .fareLens) {
        self.byteBudget = byteBudget
        self.largestKept = largestKept
        self.printer = printer
    }

    /// `message`'s body, printed now or kept from an earlier answer.
    ///
    /// - Throws: what printing or encoding the message throws.
    func rendered(_ message: some SwiftProtobuf.Message) throws -> Rendered {
        let bytes: [UInt8] = try message.serializedBytes()
        guard bytes.count <= largestKept else { return Self.render(try printer.utf8(of: message)) }
        let key = Key(type: ObjectIdentifier(type(of: message)), bytes: bytes)
        let halfBudget = byteBudget / 2
        if let kept = generations.withLock({ $0.find(key, halfBudget: halfBudget) }) { return kept }
        let fresh = Self.render(try printer.utf8(of: message))
        generations.withLock { $0.keep(fresh, for: key, cost: bytes.count + fresh.json.count, halfBudget: halfBudget) }
        return fresh
    }

    /// How many bodies are kept (both generations); for tests.
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// The bytes kept, keys and bodies, in both generations; for tests.
    var keptBytes: Int {
        generations.withLock { generations in
            (Array(generations.current) + Array(generations.previous)).reduce(0) { $0 + $1.key.bytes.count + $1.value.json.count }
        }
    }

    /// A strong entity tag for a body: the first 16 bytes of its SHA-256, in hex, quoted.
    static func entityTag(of json: [UInt8]) -> String {
        "\"" + SHA256.hash(data: json).prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + "\""
    }

    private static func render(_ json: [UInt8]) -> Rendered {
        Rendered(json: json, tag: entityTag(of: json))
    }
}
