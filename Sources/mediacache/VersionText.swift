import MediaCacheKit

enum VersionText {
    static var full: String {
        "mediacache \(MediaCacheVersion.string)\n\(LibraryVersions.curl)\n\(LibraryVersions.archive)"
    }
}
