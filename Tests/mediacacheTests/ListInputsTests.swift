import Testing

@testable import mediacache

/// A URL given without its scheme: the hint names the scheme it most likely meant.
@Suite("URL arguments without a scheme")
struct ListInputsTests {
    @Test(arguments: [
        ("127.0.0.1:8080/x.mp4", "http"), ("localhost/x.mp4", "http"), ("10.0.0.2/x.mp4", "http"),
        ("cdn.example:8080/x.mp4", "http"), ("cdn.example:8443/x.mp4", "https"), ("example.com/clip.mp4", "https"),
    ])
    func theLikelySchemeIsSuggested(word: String, scheme: String) {
        #expect(ListInputs.likelyScheme(of: word) == scheme)
    }
}

/// Spaces pasted around a URL argument are not part of it (a trailing one never was).
@Suite("URL arguments with spaces around them")
struct ListInputsSpacesTests {
    @Test(arguments: [" https://example.com/a.mp4", "https://example.com/a.mp4 ", "  https://example.com/a.mp4\t"])
    func spacesAroundAURLAreDropped(word: String) throws {
        #expect(try ListInputs.classify(word) == .url("https://example.com/a.mp4"))
    }
}
