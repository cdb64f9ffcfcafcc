import Testing
@testable import MediaCacheKit

@Suite("ByteCount")
struct ByteCountTests {
    @Test(arguments: [
        ("512K", 524_288),
        ("512k", 524_288),
        ("1M", 1_048_576),
        ("1MiB", 1_048_576),
        ("1MB", 1_048_576),
        ("1mib", 1_048_576),
        ("2G", 2_147_483_648),
        ("2GiB", 2_147_483_648),
        ("1T", 1_099_511_627_776),
        ("1.5M", 1_572_864),
        ("0.5K", 512),
        ("100", 100),
        ("100B", 100),
        ("0", 0),
        (" 4M ", 4_194_304),
    ] as [(String, Int64)])
    func parsesSizes(text: String, bytes: Int64) {
        #expect(ByteCount.parse(text) == bytes)
    }

    @Test(arguments: ["", " ", "abc", "-1", "-1M", "1X", "M", "K", "B", "MiB", "1.5.5", "1 M", "nan", "inf", "10000000000G"])
    func rejectsInvalid(text: String) {
        #expect(ByteCount.parse(text) == nil)
    }

    @Test(arguments: [
        (0, "0 B"),
        (512, "512 B"),
        (1023, "1023 B"),
        (1024, "1.00 KiB"),
        (1536, "1.50 KiB"),
        (10 * 1024, "10.0 KiB"),
        (1_048_576, "1.00 MiB"),
        (12_897_485, "12.3 MiB"),
        (1_073_741_824, "1.00 GiB"),
        (1_099_511_627_776, "1.00 TiB"),
        (2_199_023_255_552_000, "2000.0 TiB"),
    ] as [(Int64, String)])
    func formatsSizes(bytes: Int64, text: String) {
        #expect(ByteCount.format(bytes) == text)
    }

    @Test(arguments: [(0.5, "0.5 s"), (0.0, "0.0 s"), (9.44, "9.4 s"), (12.0, "12 s"), (12.6, "13 s")] as [(Double, String)])
    func formatsSeconds(seconds: Double, text: String) {
        #expect(ByteCount.formatSeconds(seconds) == text)
    }
}
