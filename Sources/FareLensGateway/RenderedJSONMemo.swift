import Crypto
import FareLensMessages
import SwiftProtobuf
import Synchronization

/// The JSON bodies of messages the gateway answered recently, kept by the
/// messages themselves, so the same answer again (a cached search, the
/// airports of "san", an unchanged feed page) is not printed again.
///
/// Printing a message as the API's JSON (``ProtoJSONWithDefaults``) costs
/// several times encoding it as protobuf: a `perf` profile of the cached
/// search under load had 19% of the node's CPU in printing the answer
/// (docs/performance.md, "Gateway"). The key is the message, found by its
/// type, its hash and protobuf's equality: two equal messages print the
/// same body, so either's body is the other's. Hashing walks the message
/// once; the protobuf encoding the memo was keyed by before computed the
/// nested messages' sizes at every level, and was 9.5% of a cached search's
/// CPU. Equality is cheap where it matters most: an answer built from the
/// same cached offers shares their storage, which protobuf's `==` compares
/// first. A body is only ever answered to a request whose answer *is* that
/// message, so a user's data reaches no one else through it.
///
/// Bounded by bytes: each entry counts its body twice, once for the body
/// and once for the message it is kept by (a message's protobuf encoding,
/// which its in-memory fields resemble, is shorter than its JSON, where
/// every field's name is spelled out). Entries are kept in two generations
/// of at most half of ``byteBudget`` each; when the current one is full it
/// becomes the previous one and the older is dropped, and an entry found in
/// the previous one moves to the current. Bodies longer than ``largestKept``
/// bytes are not kept.
final class RenderedJSONMemo: Sendable {
    /// A printed body and its strong entity tag (the `ETag` of a cacheable answer).
    struct Rendered: Sendable {
        let json: [UInt8]
        let tag: String

        /// What keeping it costs, its message counted at its body's length.
        var cost: Int { 2 * json.count }
    }

    /// A message as a key, its hash computed once (a lookup in both generations and a keep would hash it again).
    private struct Key: Hashable {
        let message: any SwiftProtobuf.Message
        let hash: Int

        init(_ message: some SwiftProtobuf.Message) {
            var hasher = Hasher()
            hasher.combine(ObjectIdentifier(type(of: message)))
            message.hash(into: &hasher)
            self.message = message
            self.hash = hasher.finalize()
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
        /// Protobuf's equality, which is false for messages of two types.
        static func == (lhs: Key, rhs: Key) -> Bool { lhs.hash == rhs.hash && lhs.message.isEqualTo(message: rhs.message) }
    }

    private struct Generations {
        var current: [Key: Rendered] = [:]
        var currentBytes = 0
        var previous: [Key: Rendered] = [:]

        /// The body kept for `key`; one found in the previous generation moves to the current one.
        mutating func find(_ key: Key, halfBudget: Int) -> Rendered? {
            if let kept = current[key] { return kept }
            guard let kept = previous.removeValue(forKey: key) else { return nil }
            keep(kept, for: key, halfBudget: halfBudget)
            return kept
        }

        /// Keeps `rendered` for `key`; a current generation it would take
        /// past `halfBudget` becomes the previous one first. So each
        /// generation holds at most half the budget, whatever is found again.
        mutating func keep(_ rendered: Rendered, for key: Key, halfBudget: Int) {
            let cost = rendered.cost
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
    /// The longest body kept (bytes).
    let largestKept: Int
    private let printer: ProtoJSONWithDefaults
    private let generations = Mutex(Generations())

    /// A memo holding up to `byteBudget` bytes, printing with `printer`.
    init(byteBudget: Int = 8 << 20, largestKept: Int = 64 << 10, printer: ProtoJSONWithDefaults = .fareLens) {
        self.byteBudget = byteBudget
        self.largestKept = largestKept
        self.printer = printer
    }

    /// `message`'s body, printed now or kept from an earlier answer.
    ///
    /// - Throws: what printing the message throws.
    func rendered<M: SwiftProtobuf.Message>(_ message: M) throws -> Rendered {
        let key = Key(message)
        let halfBudget = byteBudget / 2
        if let kept = generations.withLock({ $0.find(key, halfBudget: halfBudget) }) { return kept }
        let fresh = Self.render(try printer.utf8(of: message))
        guard fresh.json.count <= largestKept else { return fresh }
        generations.withLock { $0.keep(fresh, for: key, halfBudget: halfBudget) }
        return fresh
    }

    /// How many bodies are kept (both generations); for tests.
    var count: Int { generations.withLock { $0.current.count + $0.previous.count } }

    /// The bytes kept, keys and bodies as counted (``Rendered/cost``), in both generations; for tests.
    var keptBytes: Int {
        generations.withLock { generations in
            (Array(generations.current.values) + Array(generations.previous.values)).reduce(0) { $0 + $1.cost }
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
