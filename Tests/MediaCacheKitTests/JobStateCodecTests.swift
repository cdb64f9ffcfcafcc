import Foundation
import Testing
@testable import MediaCacheKit

private func fullState() -> JobState {
    let entry = ListEntry(
        urls: ["https://cdn.example/a.mp4?token=1", "https://mirror.example/a.mp4"],
        outName: "intro.mp4",
        headers: ["Authorization: Bearer abc"],
        checksum: ExpectedChecksum(algorithm: .md5, hex: "900150983cd24fb0d6963f7d28e17f72"),
        cacheKey: "intro-v1",
        origin: "list.txt:3")
    var state = JobState(
        entry: entry, commandHeaders: ["X-Token: secret"], now: Date(timeIntervalSince1970: 1_700_000_000))
    state.validators = Validators(etag: "\"abc\"", lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", length: 10_000)
    state.finalURL = "https://edge.example/a.mp4"
    state.contentType = "video/mp4"
    state.rangesSupported = false
    state.completed = RangeSet([r(0, 1000), r(4096, 8192)])
    state.updatedAt = Date(timeIntervalSince1970: 1_700_000_123.5)
    return state
}

private func rewriteVersion(_ bytes: [UInt8], to version: Int) throws -> [UInt8] {
    var object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    #expect(object["version"] as? Int == JobState.currentVersion)
    object["version"] = version
    return Array(try JSONSerialization.data(withJSONObject: object))
}

@Suite("JobStateCodec")
struct JobStateCodecTests {
    @Test func roundTripPreservesEveryField() throws {
        let state = fullState()
        let decoded = try JobStateCodec.decode(try JobStateCodec.encode(state), path: "/c/partial/k/state")
        #expect(decoded == state)
        // Field by field, so a failure says which one was lost.
        #expect(decoded.version == JobState.currentVersion)
        #expect(decoded.entry == state.entry)
        #expect(decoded.commandHeaders == ["X-Token: secret"])
        #expect(decoded.validators == state.validators)
        #expect(decoded.finalURL == "https://edge.example/a.mp4")
        #expect(decoded.contentType == "video/mp4")
        #expect(decoded.rangesSupported == false)
        #expect(decoded.completed.ranges == [r(0, 1000), r(4096, 8192)])
        #expect(decoded.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(decoded.updatedAt == Date(timeIntervalSince1970: 1_700_000_123.5))
    }

    @Test func roundTripOfFreshState() throws {
        let state = JobState(
            entry: ListEntry(urls: ["https://a.example/x.mp4"]), commandHeaders: [],
            now: Date(timeIntervalSince1970: 1_600_000_000))
        #expect(try JobStateCodec.decode(try JobStateCodec.encode(state), path: "s") == state)
    }

    @Test(arguments: [0, 2, 99])
    func otherVersionsAreRefused(version: Int) throws {
        let bytes = try rewriteVersion(try JobStateCodec.encode(fullState()), to: version)
        let error = try #require(throws: CacheError.self) {
            try JobStateCodec.decode(bytes, path: "/c/partial/k/state")
        }
        guard case .corruptState(let path, let reason) = error else {
            Issue.record("expected corruptState, got \(error)")
            return
        }
        #expect(path == "/c/partial/k/state")
        #expect(reason.contains("version \(version)"))
        #expect(error.description.contains("version \(version)"))
        #expect(error.description.contains("/c/partial/k/state"))
    }

    @Test(arguments: [
        [UInt8](),
        [0xDE, 0xAD, 0xBE, 0xEF],
        Array("not json at all".utf8),
        Array("{\"state\": 1}".utf8),
        Array("[1, 2, 3]".utf8),
    ])
    func garbageIsRefused(bytes: [UInt8]) throws {
        let error = try #require(throws: CacheError.self) {
            try JobStateCodec.decode(bytes, path: "p")
        }
        guard case .corruptState(path: "p", _) = error else {
            Issue.record("expected corruptState, got \(error)")
            return
        }
    }

    @Test func currentVersionButIncompleteIsRefused() throws {
        let error = try #require(throws: CacheError.self) {
            try JobStateCodec.decode(Array("{\"version\": 1}".utf8), path: "p")
        }
        guard case .corruptState = error else {
            Issue.record("expected corruptState, got \(error)")
            return
        }
    }

    @Test func truncatedStateIsRefused() throws {
        let bytes = try JobStateCodec.encode(fullState())
        #expect(throws: CacheError.self) {
            try JobStateCodec.decode(Array(bytes.prefix(bytes.count / 2)), path: "p")
        }
    }

    // MARK: JobState behaviour

    @Test func isCompleteOnlyWhenLengthKnownAndCovered() {
        var state = JobState(entry: ListEntry(urls: ["https://a.example/x"]), commandHeaders: [])
        state.completed = RangeSet([r(0, 100)])
        #expect(!state.isComplete)  // length unknown
        state.validators.length = 100
        #expect(state.isComplete)
        state.validators.length = 101
        #expect(!state.isComplete)
        #expect(state.bytesDone == 100)
    }

    @Test func discardDataForgetsBytesAndValidatorsButKeepsTheEntry() {
        var state = fullState()
        state.discardData()
        #expect(state.completed.isEmpty)
        #expect(state.validators == Validators())
        #expect(state.contentType == nil)
        #expect(state.finalURL == nil)
        #expect(state.entry == fullState().entry)
        #expect(state.commandHeaders == ["X-Token: secret"])
    }
}
