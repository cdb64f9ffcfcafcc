/// The release of mediacache, for `--version`, the User-Agent and bundle manifests.
public enum MediaCacheVersion {
    public static let string = "0.1.0"
}
