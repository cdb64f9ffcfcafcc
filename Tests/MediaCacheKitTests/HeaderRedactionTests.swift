import Testing
@testable import MediaCacheKit

@Suite("HeaderRedaction")
struct HeaderRedactionTests {
    @Test(arguments: [
        ("Authorization Bearer s3cret", "Authorization …"),
        ("Authorization: Bearer s3cret", "Authorization …"),
        ("  Cookie:c=s3cret", "Cookie …"),
        ("Bearer s3cret", "Bearer …"),
        ("out.mp4", "out.mp4"),
        ("", ""),
    ])
    func previewKeepsOnlyTheLikelyName(line: String, expected: String) {
        #expect(HeaderRedaction.preview(line) == expected)
        #expect(!HeaderRedaction.preview(line).contains("s3cret"))
    }
}
