import Foundation
import Testing
import TestOrigin
import TestSupport

extension EndToEnd {
    /// `kill -9` at random moments of a mixed prefetch, then a run to the end: every
    /// object exact, nothing ever visible before it is complete, the cache consistent.
    ///
    /// CI runs a few kills; `MEDIACACHE_CHAOS_KILLS=200` runs a long session and
    /// `MEDIACACHE_CHAOS_SEED` replays the printed seed.
    @Suite struct Chaos {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// What the origin serves at `path`, and what the cache must hold afterwards.
        struct File {
            var path: String
            var served: [UInt8]
            var stored: [UInt8]
        }

        /// One large file, small ones, and a moov-at-end MP4 whose relocation is known.
        static func files() -> [File] {
            var files = [File(path: "/large.bin", served: TestBytes.make(24 << 20, seed: 51), stored: [])]
            for (index, size) in [150_000, 400_000, 650_000, 1_100_000].enumerated() {
                files.append(File(path: "/small\(index).bin", served: TestBytes.make(size, seed: 60 + UInt64(index)), stored: []))
            }
            let ftyp = SyntheticMP4.box("ftyp", Array("isom".utf8) + [0, 0, 2, 0] + Array("isomiso2".utf8))
            let mdat = SyntheticMP4.box("mdat", TestBytes.make(6 << 20, seed: 70))
            let offsets = stride(from: Int64(0), to: Int64(6 << 20), by: 256 << 10).map { Int64(ftyp.count + 8) + $0 }
            let moov = SyntheticMP4.moov(chunkOffsets: offsets)
            let relocated = ftyp + SyntheticMP4.moov(chunkOffsets: offsets.map { $0 + Int64(moov.count) }) + mdat
            files.append(File(path: "/late-moov.mp4", served: ftyp + mdat + moov, stored: relocated))
            return files.map { file in
                var file = file
                if file.stored.isEmpty { file.stored = file.served }
                return file
            }
        }

        func serve(_ files: [File], bytesPerSecond: Int?) {
            var faults = Faults()
            faults.bytesPerSecond = bytesPerSecond
            for file in files {
                let type = file.path.hasSuffix(".mp4") ? "video/mp4" : "application/octet-stream"
                origin.serve(file.path, Resource(file.served, contentType: type, faults: faults))
            }
        }

        @Test func killedAtRandomMomentsEveryObjectIsExactAndNothingPartialIsVisible() throws {
            let environment = ProcessInfo.processInfo.environment
            let kills = max(1, environment["MEDIACACHE_CHAOS_KILLS"].flatMap { Int($0) } ?? 8)
            var random = SeededGenerator(environment: "MEDIACACHE_CHAOS_SEED")
            print("chaos: seed \(random.seed) (MEDIACACHE_CHAOS_SEED=\(random.seed) replays it), up to \(kills) kills")
            let files = Self.files()
            // Slow enough that the kills land in every phase: probe, fetch, commit.
            serve(files, bytesPerSecond: max(12_000, 5_000_000 / kills))
            let list = files.map { origin.url($0.path) }.joined(separator: "\n")
            let watcher = PathWatcher(harness: harness, expected: files.map { (origin.url($0.path), $0.stored) })
            watcher.start()

            var killed = 0
            for _ in 0..<kills {
                let run = try harness.startPrefetch(list: list, ["-j", "3", "-x", "4", "--min-fragment", "256K"])
                usleep(UInt32.random(in: 250_000...1_200_000, using: &random))
                run.signal(SIGKILL)
                let result = run.wait()
                if result.status == 0 { break }  // everything was done before the kill
                #expect(result.status == 128 + SIGKILL, "\(result.stderr)")
                killed += 1
            }
            serve(files, bytesPerSecond: nil)
            let final = try harness.prefetch(list: list, ["-j", "3", "-x", "4", "--min-fragment", "256K"])
            watcher.stop()
            #expect(final.status == 0, "\(final.stderr)")

            #expect(watcher.violations.isEmpty, "path named incomplete or wrong data: \(watcher.violations)")
            #expect(watcher.answered > 0, "some object became visible while the kills went on")
            var corrupt = 0
            for file in files where try harness.cachedBytes(origin.url(file.path)) != file.stored {
                corrupt += 1
                Issue.record("\(file.path) is not byte-exact")
            }
            let verify = try harness.run(["verify"])
            #expect(verify.status == 0, "\(verify.stderr)")
            #expect(verify.stdout.hasPrefix("\(files.count) objects verified"), "\(verify.stdout)")
            #expect(!verify.stderr.contains("orphan"), "\(verify.stderr)")
            #expect(try harness.run(["status"]).stdout.isEmpty, "no partial job is left")
            #expect(FileSystemProbe.entries(harness.scratch.cache + "/partial").isEmpty)

            let total = files.reduce(0) { $0 + $1.served.count }
            let served = files.reduce(0) { $0 + Harness.bytesServed(origin, $1.path) }
            let refetched = Double(served) / Double(total) - 1
            print(
                "chaos: seed \(random.seed), \(killed) kills, \(corrupt) corrupt objects, refetched "
                    + "\(String(format: "%.1f", refetched * 100)) % of \(total) bytes; path answered \(watcher.answered) "
                    + "times, \(watcher.violations.count) times with incomplete data")
            #expect(killed >= min(kills, 3), "the kills hit running downloads")
        }
    }
}

/// Asks `mediacache path` for each URL over and over from a background thread while
/// other processes write the cache; whenever it answers, the file it names must hold
/// exactly the expected bytes. A URL is checked until its first answer.
final class PathWatcher: @unchecked Sendable {
    private let harness: Harness
    private let expected: [(url: String, bytes: [UInt8])]
    private let lock = NSLock()
    private var stopped = false
    private var _violations: [String] = []
    private var _answered = 0
    private let done = DispatchSemaphore(value: 0)

    init(harness: Harness, expected: [(String, [UInt8])]) {
        self.harness = harness
        self.expected = expected.map { (url: $0.0, bytes: $0.1) }
    }

    var violations: [String] { lock.withLock { _violations } }
    var answered: Int { lock.withLock { _answered } }

    func start() {
        Thread.detachNewThread { [self] in
            var pending = expected
            let deadline = Date().addingTimeInterval(600)
            while !pending.isEmpty, !lock.withLock({ stopped }), Date() < deadline {
                for (url, bytes) in pending {
                    guard let result = try? harness.run(["path", url], timeout: 20), result.status == 0 else { continue }
                    let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                    let held = TestBytes.read(path)
                    lock.withLock {
                        _answered += 1
                        if held != bytes { _violations.append("\(url) -> \(path) (\(held?.count ?? -1) bytes)") }
                    }
                    pending.removeAll { $0.url == url }
                }
                usleep(30_000)
            }
            done.signal()
        }
    }

    func stop() {
        lock.withLock { stopped = true }
        _ = done.wait(timeout: .now() + 30)
    }
}

enum FileSystemProbe {
    static func entries(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }
}
