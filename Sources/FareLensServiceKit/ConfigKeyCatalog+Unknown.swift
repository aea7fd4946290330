import Foundation

/// A key given to the node that it does not read: a `FARELENS_…` variable
/// or a key of the config file, with the known key nearest to it. Its
/// description is the start-up warning (or, with `strictConfig`, the error).
public struct UnknownConfigKey: Sendable, Hashable, CustomStringConvertible {
    /// Where the key was given.
    public enum Origin: Sendable, Hashable {
        /// An environment variable.
        case environment
        /// A key of the JSON config file at this path.
        case file(String)
    }

    /// The name as given: an environment variable, or a dotted path in the
    /// file such as `alerts.webhook.initialBackofSeconds`.
    public let name: String
    /// Where it was given.
    public let origin: Origin
    /// The known key nearest to it.
    public let nearest: ConfigKeySpec?
    /// Whether ``nearest`` is near enough to be what was meant.
    public let isLikelyMisspelling: Bool

    /// The warning: the key, where it was given, and the nearest known key.
    public var description: String {
        let given: String
        let suggested: String?
        switch origin {
        case .environment:
            given = name
            suggested = nearest.map { "\($0.environmentName) (\($0.key))" }
        case .file(let path):
            given = "\(name) in \(path)"
            suggested = nearest.map { "\($0.key) (\($0.environmentName))" }
        }
        guard let suggested else { return "\(given) is not a configuration key; `farelens config keys` lists every key" }
        if isLikelyMisspelling { return "\(given) is not a configuration key; did you mean \(suggested)?" }
        return "\(given) is not a configuration key, nor close to one (the nearest is \(suggested)); `farelens config keys` lists every key"
    }
}

extension ConfigKeyCatalog {
    /// Every `FARELENS_…` variable of `environment` that is neither a key's
    /// variable nor one of ``otherEnvironmentVariables``, and every key of
    /// the config file (its object's leaves, as dotted paths; anything whose
    /// name starts with `_` is a comment, skipped with what it holds) that is
    /// not a known key. Sorted by name, variables first.
    ///
    /// - Parameter file: the config file's path and its parsed top-level object.
    public func unknownKeys(environment: [String: String], file: (path: String, object: [String: Any])? = nil) -> [UnknownConfigKey] {
        let others = Set(Self.otherEnvironmentVariables.map(\.name))
        let variables = environment.keys
            .filter { $0.hasPrefix(Self.environmentPrefix) && spec(forEnvironmentName: $0) == nil && !others.contains($0) }
            .sorted()
            .map { unknown($0, origin: .environment) }
        guard let file else { return variables }
        let fileKeys = Self.keyPaths(of: file.object).filter { spec(forKey: $0) == nil }.sorted()
        return variables + fileKeys.map { unknown($0, origin: .file(file.path)) }
    }

    /// `name` as unknown, with the known key nearest to it.
    func unknown(_ name: String, origin: UnknownConfigKey.Origin) -> UnknownConfigKey {
        let (nearest, likely) = self.nearest(to: name)
        return UnknownConfigKey(name: name, origin: origin, nearest: nearest, isLikelyMisspelling: likely)
    }

    /// The known key nearest to `name` (a dotted key or an environment
    /// variable), by edit distance between normalised names (lower case,
    /// letters and digits only, without `FARELENS_`: so a variable that
    /// misses the underscores of `FARELENS_ALERTS_WEBHOOK_INITIAL_BACKOFF_SECONDS`
    /// is the same name as `alerts.webhook.initialBackoffSeconds`), and
    /// whether it is near enough to be a misspelling of it: at most 2 edits,
    /// or a third of the name's length for longer names.
    public func nearest(to name: String) -> (spec: ConfigKeySpec?, isLikelyMisspelling: Bool) {
        let given = Self.normalised(name.hasPrefix(Self.environmentPrefix) ? String(name.dropFirst(Self.environmentPrefix.count)) : name)
        var best: (spec: ConfigKeySpec, distance: Int, sharedPrefix: Int)?
        for spec in specs {
            let known = Self.normalised(spec.key)
            let distance = Self.editDistance(given, known)
            let shared = zip(given, known).prefix { $0 == $1 }.count
            if let current = best, (current.distance, -current.sharedPrefix) <= (distance, -shared) { continue }
            best = (spec, distance, shared)
        }
        guard let best else { return (nil, false) }
        return (best.spec, best.distance <= max(2, given.count / 3))
    }

    /// Lower case, letters and digits only.
    static func normalised(_ name: String) -> [Character] {
        name.lowercased().filter { $0.isLetter || $0.isNumber }.map { $0 }
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0 ... b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1 ... a.count {
            current[0] = i
            for j in 1 ... b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }

    /// The dotted paths of an object's leaves (a value that is not an
    /// object: text, a number, a list); a name starting with `_` is skipped
    /// with everything under it.
    public static func keyPaths(of object: [String: Any], prefix: String = "") -> [String] {
        object.flatMap { name, value -> [String] in
            guard !name.hasPrefix("_") else { return [] }
            if let child = value as? [String: Any] { return keyPaths(of: child, prefix: prefix + name + ".") }
            return [prefix + name]
        }
    }
}
