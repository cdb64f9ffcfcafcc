import Foundation
import Testing
import TestOrigin

extension EndToEnd {
    /// A list on standard input is read as it arrives (`cmd | mediacache prefetch -`), as
    /// aria2c's `-i -` is: downloads start before the command writing it has finished.
    @Suite struct StreamedList {
        let origin: TestOrigin
        let harness = Harness()

        init() throws { origin = try TestOrigin() }

        /// The first URL is cached while the writer is still silent with its pipe open; an
        /// entry written later with its option lines keeps them; the run ends at the end of
        /// its input.
        @Test func aPipedListStartsBeforeItsWriterIsDone() throws {
            let (first, second) = (TestBytes.make(200_000, seed: 41), TestBytes.make(150_000, seed: 42))
            origin.serve("/first.mp4", Resource(first, contentType: "video/mp4"))
            origin.serve("/second.mp4", Resource(second, contentType: "video/mp4"))
            let run = try MediaCacheProcess.start(
                ["prefetch", "-", "--json", "--cache-dir", harness.scratch.cache], keepsInputOpen: true)
            run.write(origin.url("/first.mp4") + "\n")
            let committed = Harness.waitUntil(timeout: 20) {
                EventStream(run.stdoutSoFar).named("committed").contains { $0["url"] as? String == origin.url("/first.mp4") }
            }
            #expect(committed, "the first entry waited for the end of the list: \(run.stdoutSoFar)")
            run.write(origin.url("/second.mp4") + "\n  cache-key=catalog/second\n")
            run.closeInput()
            let result = run.wait(timeout: 30)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try harness.cachedBytes(origin.url("/first.mp4")) == first)
            #expect(try harness.cachedBytes("catalog/second") == second)
            #expect(EventStream(result.stdout).last?["done"] as? Int == 2, "\(result.stdout)")
        }

        /// Ctrl-C ends the run promptly though the list's writer keeps its pipe open and
        /// silent: the reading stops, the run says it was interrupted.
        @Test func ctrlCStopsReadingASilentPipe() throws {
            origin.serve("/only.mp4", Resource(TestBytes.make(100_000, seed: 43), contentType: "video/mp4"))
            let run = try MediaCacheProcess.start(
                ["prefetch", "-", "--json", "--cache-dir", harness.scratch.cache], keepsInputOpen: true)
            defer { run.closeInput() }
            run.write(origin.url("/only.mp4") + "\n")
            #expect(Harness.waitUntil(timeout: 20) { EventStream(run.stdoutSoFar).named("committed").count == 1 })
            run.signal(SIGINT)
            let result = run.wait(timeout: 10)
            #expect(result.status == 130, "\(result.stderr)")
            #expect(result.seconds < 9)
            let stream = EventStream(result.stdout)
            #expect(stream.last?["event"] as? String == "summary" && stream.last?["interrupted"] as? Bool == true, "\(result.stdout)")
        }
    }
}
