import Foundation
import Testing
@testable import MediaCacheKit

@Suite("ServerRecord")
struct ServerRecordTests {
    /// A pid that no process has now: one that ran and was reaped.
    static func deadPid() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    /// Records of servers that are gone (killed with -9, or an older version's shared
    /// `address` file) are removed when looked at; a running server's is found.
    @Test func recordsOfServersThatAreGoneAreRemoved() throws {
        let cache = try TemporaryCache("mediacache-record")
        defer { cache.remove() }
        let dead = try Self.deadPid()
        let folder = ServerRecord.directory(in: cache.directory)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ServerRecord(baseURL: "http://127.0.0.1:1", pid: dead).write(in: cache.directory)
        try Data("http://127.0.0.1:2\n\(dead)\n".utf8).write(to: URL(fileURLWithPath: folder + "/address"))
        #expect(ServerRecord.running(in: cache.directory) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)

        let mine = ServerRecord(baseURL: "http://127.0.0.1:3", pid: getpid())
        try mine.write(in: cache.directory)
        #expect(ServerRecord.running(in: cache.directory) == mine)
    }
}
