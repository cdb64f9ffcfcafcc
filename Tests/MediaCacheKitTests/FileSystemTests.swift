import Foundation
import Testing
@testable import MediaCacheKit

@Suite("FileSystem")
struct FileSystemTests {
    /// `parent(of:)` stands in for `NSString.deletingLastPathComponent` on the commit
    /// path: the same answer for every shape of path the cache makes.
    @Test(arguments: [
        "/c/objects/ab/abcdef.mp4", "/c/objects/ab/abcdef.title", "/c/partial/k", "/a", "/", "a/b", "",
        "/a/b/", "/a//", "relative/dir/file", "/ü/ñ/é.mp4", "./x", "../y/z",
    ])
    func parentIsFoundationsDirectory(path: String) {
        #expect(FileSystem.parent(of: path) == (path as NSString).deletingLastPathComponent)
    }

    /// Where Foundation on Linux traps (a lone name) or rewrites the path (doubled
    /// slashes), the parent is the path's own spelling of it.
    @Test func parentOfOddPaths() {
        #expect(FileSystem.parent(of: "a") == "")
        #expect(FileSystem.parent(of: "//a//b") == "//a")
        #expect(FileSystem.parent(of: "///") == "/")
    }
}
