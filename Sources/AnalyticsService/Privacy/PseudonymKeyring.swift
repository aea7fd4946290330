import Crypto
import Foundation

/// The keys user ids are pseudonymised with: `p{version}:{hex}` where hex is
/// the first 16 bytes of HMAC-SHA256(key, user id). The highest version makes
/// every new pseudonym; every version is used to *find* a user's rows
/// (opt-out, trial conversion, delete), so a key can rotate without losing
/// or orphaning anyone's data (docs/analytics.md, "Pseudonyms").
struct PseudonymKeyring: Sendable {
    /// Highest version first.
    let keys: [PseudonymKey]

    /// A keyring; `keys` must not be empty.
    init(_ keys: [PseudonymKey]) {
        precondition(!keys.isEmpty, "a keyring needs a key")  // safe: the entry builds it from settings or the generated key, never empty
        self.keys = keys.sorted { $0.version > $1.version }
    }

    /// The current key's version.
    var currentVersion: Int { keys[0].version }

    /// The pseudonym new rows carry.
    func current(_ userID: String) -> String { Self.pseudonym(userID, keys[0]) }

    /// The user's pseudonym under every key, current first: the rows to look for.
    func all(_ userID: String) -> [String] { keys.map { Self.pseudonym(userID, $0) } }

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
