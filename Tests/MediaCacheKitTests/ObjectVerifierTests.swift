import Foundation
import Testing
@testable import MediaCacheKit

extension ObjectVerifierTests {
    /// `verify --repair` beside a `gc` or `rm`: an object removed (row and file) while
    /// the verifier worked on another is gone, not "missing", and nothing is reported.
    @Test func anObjectRemovedDuringTheRunIsNoFinding() throws {
        let cache = try BundleTestCache("mediacache-verify")
        try cache.add(
            identity: "https://a.example/first.mp4", bytes: Array(repeating: 1, count: 200_000), added: Date(timeIntervalSinceNow: -60))
        try cache.add(identity: "https://a.example/second.mp4", bytes: Array(repeating: 2, count: 100_000))
        let maintenance = try CacheMaintenance(directory: cache.directory)
        var removed = false
        let report = try ObjectVerifier(directory: cache.directory).verify(progress: { done, _ in
            guard !removed, done > 0 else { return }
            removed = true
            _ = try? maintenance.remove("https://a.example/second.mp4")
        })
        #expect(removed)
        #expect(report.bad.isEmpty, "\(report.bad)")
        #expect(report.verified == 1)
    }

    /// What each problem means for `--repair`: damage is removed, a file this process may
    /// not read is not (it may be intact).
    @Test func onlyDamageIsRepaired() {
        let denied = SystemError("look at", path: "/c/objects/ab/x", code: EACCES)
        #expect(!ObjectVerifier.Problem.unreadable(denied).isDamage)
        #expect(!ObjectVerifier.Problem.notCached.isDamage)
        #expect(ObjectVerifier.Problem.missing.isDamage && ObjectVerifier.Problem.notRegularFile.isDamage)
        #expect(ObjectVerifier.Problem.wrongSize(actual: 1, expected: 2).isDamage)
    }
}
