import Testing
@testable import MediaCacheKit

@Suite("Unexpected Content-Encoding")
struct ContentEncodingTests {
    private func head(_ encoding: String?) -> HTTPResponseHead {
        HTTPResponseHead(status: 206, headers: encoding.map { [(name: "content-encoding", value: $0)] } ?? [])
    }

    @Test func identityOrNoneIsTheFile() {
        #expect(DownloadJob.unexpectedContentEncoding(head(nil)) == nil)
        #expect(DownloadJob.unexpectedContentEncoding(head("identity")) == nil)
        #expect(DownloadJob.unexpectedContentEncoding(head(" Identity ")) == nil)
    }

    @Test(arguments: ["gzip", "br", "deflate", "identity, gzip", "x-gzip"])
    func anyOtherCodingIsRefused(encoding: String) {
        #expect(DownloadJob.unexpectedContentEncoding(head(encoding)) == encoding)
    }

    @Test func unsatisfiedLengthReadsTheStarForm() {
        let answer = HTTPResponseHead(status: 416, headers: [(name: "content-range", value: "bytes */2048")])
        #expect(DownloadJob.unsatisfiedLength(answer) == 2048)
        let other = HTTPResponseHead(status: 416, headers: [(name: "content-range", value: "bytes 0-1/2")])
        #expect(DownloadJob.unsatisfiedLength(other) == nil)
    }
}
