import Foundation
import Testing
@testable import MediaCacheKit

/// S3's XML answers as SeaweedFS, MinIO and AWS write them: entities resolved, pages
/// followed, and answers that lack what S3 always sends refused instead of guessed at.
@Suite("S3Answers")
struct S3AnswersTests {
    private func parse(_ xml: String) throws -> S3XMLElement {
        try #require(S3XMLElement.parse(Array(xml.utf8)))
    }

    @Test func aListingPageKeepsKeysSizesAndTheContinuationToken() throws {
        let root = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>b</Name><Prefix>p/</Prefix>
              <IsTruncated>true</IsTruncated><NextContinuationToken>tok+1</NextContinuationToken>
              <Contents><Key>p/a&amp;b</Key><ETag>&#34;9b2c&#34;</ETag><Size>6</Size>
                <LastModified>2026-11-23T14:39:00.000Z</LastModified></Contents>
              <Contents><Key>p/c</Key><ETag>"77"</ETag><Size>7</Size><LastModified>2026-11-23T14:39:00Z</LastModified></Contents>
            </ListBucketResult>
            """)
        let page = try #require(S3Answers.objectsPage(root))
        #expect(page.objects.map(\.key) == ["p/a&b", "p/c"])
        #expect(page.objects.map(\.size) == [6, 7])
        #expect(page.objects[0].etag == "\"9b2c\"")
        #expect(page.objects.allSatisfy { $0.lastModified == Date(timeIntervalSince1970: 1_795_444_740) })
        #expect(page.continuationToken == "tok+1")
    }

    @Test func aTruncatedPageWithoutATokenIsRefused() throws {
        let root = try parse("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>")
        #expect(S3Answers.objectsPage(root) == nil)
        let last = try parse("<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>")
        #expect(S3Answers.objectsPage(last)?.continuationToken == nil)
    }

    @Test func errorsGiveCodeAndMessage() throws {
        let root = try parse("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message><BucketName>b</BucketName></Error>
            """)
        let error = try #require(S3Answers.error(root))
        #expect(error.code == "NoSuchBucket")
        #expect(error.message == "The specified bucket does not exist")
        #expect(S3Answers.error(try parse("<ListBucketResult/>")) == nil)
    }

    @Test func uploadsAndPartsPagesGiveTheirMarkers() throws {
        let uploads = try #require(S3Answers.uploadsPage(try parse("""
            <ListMultipartUploadsResult><IsTruncated>true</IsTruncated><NextKeyMarker>p/o</NextKeyMarker>
              <NextUploadIdMarker>u2</NextUploadIdMarker>
              <Upload><Key>p/o</Key><UploadId>u1</UploadId><Initiated>2026-11-23T14:39:00Z</Initiated></Upload>
            </ListMultipartUploadsResult>
            """)))
        #expect(uploads.uploads == [S3MultipartUpload(key: "p/o", uploadID: "u1", initiated: Date(timeIntervalSince1970: 1_795_444_740))])
        #expect(uploads.next?.keyMarker == "p/o")
        #expect(uploads.next?.uploadIDMarker == "u2")

        let parts = try #require(S3Answers.partsPage(try parse("""
            <ListPartsResult><IsTruncated>true</IsTruncated><NextPartNumberMarker>2</NextPartNumberMarker>
              <Part><PartNumber>1</PartNumber><ETag>"e1"</ETag><Size>5</Size></Part>
              <Part><PartNumber>2</PartNumber><ETag>"e2"</ETag><Size>5</Size></Part>
            </ListPartsResult>
            """)))
        #expect(parts.parts == [S3UploadedPart(number: 1, etag: "\"e1\""), S3UploadedPart(number: 2, etag: "\"e2\"")])
        #expect(parts.nextMarker == 2)
    }

    @Test func notXMLIsNoAnswer() {
        #expect(S3XMLElement.parse(Array("<html><body>proxy error".utf8)) == nil)
        #expect(S3XMLElement.parse([]) == nil)
    }
}
