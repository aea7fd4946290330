/// The version of this build, reported by `--version` and in node status.
public enum FareLensVersion {
    /// Semantic version of the executables and the protocol they speak.
    public static let current = "0.1.0"
}
