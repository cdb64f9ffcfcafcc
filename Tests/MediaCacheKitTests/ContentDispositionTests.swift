import Testing
@testable import MediaCacheKit

/// The name an origin gives its file in `Content-Disposition` (RFC 6266, RFC 8187): a
/// name, never a path, and nothing a file system would trip on.
@Suite("Content-Disposition names")
struct ContentDispositionTests {
    @Test(arguments: [
        (#"attachment; filename="EURO rates.mp4""#, "EURO rates.mp4"),
        ("inline; filename=clip.mp4", "clip.mp4"),
        ("attachment;filename=clip.mp4;size=3", "clip.mp4"),
        // filename* (RFC 8187) wins, whichever comes first.
        (#"attachment; filename="EURO rates.mp4"; filename*=utf-8''%e2%82%ac%20rates.mp4"#, "€ rates.mp4"),
        (#"attachment; filename*=UTF-8''%E2%82%AC%20rates.mp4; filename="fallback.mp4""#, "€ rates.mp4"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates.mp4", "£ rates.mp4"),
        // A filename* that cannot be read leaves filename.
        (#"attachment; filename*=UTF-8''%ZZ; filename="ok.mp4""#, "ok.mp4"),
        (#"attachment; filename*=koi8-r''%C1.mp4; filename="ok.mp4""#, "ok.mp4"),
        // Quoted strings keep `;` and take `\x` as `x`.
        (#"attachment; filename="a;b \"c\".mp4"; size=3"#, #"a;b "c".mp4"#),
        // A path's last segment only, / or \.
        (#"attachment; filename="../../etc/passwd""#, "passwd"),
        (#"attachment; filename="C:\\Videos\\x.mp4""#, "x.mp4"),
        (#"ATTACHMENT; FILENAME="Upper.mp4""#, "Upper.mp4"),
    ])
    func theNameIsRead(header: String, name: String) {
        #expect(ContentDisposition.fileName(header) == name)
    }

    @Test(arguments: [
        "attachment", "inline", #"attachment; filename="""#, #"attachment; filename="..""#, "attachment; filename=.",
        "attachment; filename=\"a\u{7}b.mp4\"",
        // U+202E shows the name from its end: "exe.jpg", for a program.
        "attachment; filename*=UTF-8''%E2%80%AEgpj.exe",
    ])
    func noUsableNameIsNil(header: String) {
        #expect(ContentDisposition.fileName(header) == nil)
    }
}
