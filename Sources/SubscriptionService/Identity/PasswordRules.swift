/// What a password must be (docs/api.md): at least 10 characters, so that
/// it resists guessing, and at most 72 bytes in UTF-8, bcrypt's limit
/// (beyond it bcrypt would silently ignore the rest).
enum PasswordRules {
    static let minimumCharacters = 10
    static let maximumBytes = 72

    static func check(_ password: String) throws(SubscriptionError) {
        guard password.count >= minimumCharacters else {
            throw .weakPassword("at least \(minimumCharacters) characters, got \(password.count)")
        }
        guard password.utf8.count <= maximumBytes else {
            throw .weakPassword("at most \(maximumBytes) bytes in UTF-8 (bcrypt's limit), got \(password.utf8.count)")
        }
        guard !password.unicodeScalars.contains(where: { $0.value == 0 }) else {
            throw .weakPassword("contains a NUL character")
        }
    }
}
