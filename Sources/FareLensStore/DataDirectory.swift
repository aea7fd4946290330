import Foundation

/// Checks on the data directory, so a bad `--data-dir` is a clear error at
/// start-up rather than an SQLite failure later.
public enum DataDirectory {
    /// Throws unless `path` is an existing, writable directory.
    public static func check(_ path: String) throws(StoreError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .directoryMissing(path) }
        guard isDirectory.boolValue else { throw .notADirectory(path) }
        guard FileManager.default.isWritableFile(atPath: path) else { throw .directoryNotWritable(path) }
    }

    /// Creates `path` (and parents) if missing, then checks it.
    public static func prepare(_ path: String) throws(StoreError) {
        if !FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw .directoryNotWritable(path)
            }
        }
        try check(path)
    }
}
