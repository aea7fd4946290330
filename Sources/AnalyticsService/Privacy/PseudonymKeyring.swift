import Crypto
import Foundation
import Synchronization

/// The keys user ids are pseudonymised with: `p{version}:{hex}` where hex is
/// the first 16 bytes of HMAC-SHA256(key, user id). The highest version makes
/// every new pseudonym; every version is used to *find* a user's rows
/// (opt-out, trial conversion, delete), so a key can rotate without losing
/// or orphaning anyone's data (docs/analytics.md, "Pseudonyms").
struct PseudonymKeyring: Sendable {
    /// Highest version first.
    let keys: [PseudonymKey]
    /// Users' pseudonyms made lately: every search and alert event names its
    /// user, and one HMAC per key per event was 3% of a node's CPU under a
    /// search load (docs/performance.md, "Gateway").
    private let made: PseudonymMemo

    /// A keyring; `keys` must not be empty. It keeps up to `remembered` users' pseudonyms.
    init(_ keys: [PseudonymKey], remembered: Int = 4096) {
        precondition(!keys.isEmpty, "a keyring needs a key")  // safe: the entry builds it from settings or the generated key, never empty
        self.keys = keys.sorted { $0.version > $1.version }
        self.made = PseudonymMemo(capacity: remembered)
    }

    /// The current key's version.
    var currentVersion: Int { keys[0].version }

    /// The pseudonym new rows carry.
    func current(_ userID: String) -> String { all(userID)[0] }

    /// The user's pseudonym under every key, current first: the rows to look for.
    func all(_ userID: String) -> [String] {
        if let known = made.pseudonyms(of: userID) { return known }
        let pseudonyms = keys.map { Self.pseudonym(userID, $0) }
        made.keep(pseudonyms, of: userID)
        return pseudonyms
    }

    static func pseudonym(_ userID: String, _ key: PseudonymKey) -> String {
        let code = HMAC<SHA256>.authenticationCode(for: Data(userID.utf8), using: SymmetricKey(data: key.secret))
        var text = "p\(key.version):"
        for byte in code.prefix(16) {
            text.append(Self.hexDigits[Int(byte >> 4)])
            text.append(Self.hexDigits[Int(byte & 0x0f)])
        }
        return text
    }

    private static let hexDigits = Array("0123456789abcdef")
}

/// The pseudonyms of the users seen lately, by user id; forgets them all
/// when `capacity` users are kept (then it refills from the users seen next).
private final class PseudonymMemo: Sendable {
    private let capacity: Int
    private let kept = Mutex<[String: [String]]>([:])

    init(capacity: Int) { self.capacity = capacity }

    func pseudonyms(of userID: String) -> [String]? { kept.withLock { $0[userID] } }

    func keep(_ pseudonyms: [String], of userID: String) {
        kept.withLock { kept in
            if kept.count >= capacity { kept.removeAll(keepingCapacity: true) }
            kept[userID] = pseudonyms
        }
    }
}
