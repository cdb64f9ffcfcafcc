import Foundation
import Testing
import TestSupport
@testable import MediaCacheKit

private let sha256Hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
private let sha1Hex = "a9993e364706816aba3e25717850c26c9cd0d89d"
private let md5Hex = "900150983cd24fb0d6963f7d28e17f72"
// FIPS 180-2's "abc" vectors.
private let sha224Hex = "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7"
private let sha384Hex = "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
private let sha512Hex = "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"

@Suite("ExpectedChecksum parsing")
struct ExpectedChecksumTests {
    @Test(arguments: [
        ("sha-256=" + sha256Hex, DigestAlgorithm.sha256, sha256Hex),
        ("sha256=" + sha256Hex, .sha256, sha256Hex),
        ("SHA-256=" + sha256Hex, .sha256, sha256Hex),
        ("sha_256=" + sha256Hex, .sha256, sha256Hex),
        ("sha-1=" + sha1Hex, .sha1, sha1Hex),
        ("SHA1=" + sha1Hex, .sha1, sha1Hex),
        ("md5=" + md5Hex, .md5, md5Hex),
        ("MD5=" + md5Hex.uppercased(), .md5, md5Hex),
        // aria2's other SHA-2 names.
        ("sha-512=" + sha512Hex, .sha512, sha512Hex),
        ("sha384=" + sha384Hex, .sha384, sha384Hex),
        ("SHA-224=" + sha224Hex, .sha224, sha224Hex),
    ])
    func acceptedSpellings(text: String, algorithm: DigestAlgorithm, hex: String) throws {
        let checksum = try ExpectedChecksum(parsing: text)
        #expect(checksum.algorithm == algorithm)
        #expect(checksum.hex == hex)
        #expect(checksum.description == "\(algorithm.rawValue)=\(hex)")
    }

    @Test func hexIsStoredLowercase() throws {
        let checksum = try ExpectedChecksum(parsing: "sha-1=" + sha1Hex.uppercased())
        #expect(checksum.hex == sha1Hex)
        #expect(ExpectedChecksum(algorithm: .md5, hex: md5Hex.uppercased()).hex == md5Hex)
    }

    static let rejected: [(String, ChecksumParseError)] = {
        let g32 = String(repeating: "g", count: 32)
        let sha1Dash = String(sha1Hex.dropLast()) + "-"
        return [
            ("sha-256=abc", .badDigest(.sha256, "abc")),
            ("sha-256=" + sha1Hex, .badDigest(.sha256, sha1Hex)),
            ("sha-1=" + sha256Hex, .badDigest(.sha1, sha256Hex)),
            ("md5=" + md5Hex + "0", .badDigest(.md5, md5Hex + "0")),
            ("md5=", .badDigest(.md5, "")),
            ("md5=" + g32, .badDigest(.md5, g32)),
            ("sha-1=" + sha1Dash, .badDigest(.sha1, sha1Dash)),
            ("crc32=12345678", .unknownAlgorithm("crc32")),
            ("sha-512=" + sha256Hex, .badDigest(.sha512, sha256Hex)),
            ("adler32=12345678", .unknownAlgorithm("adler32")),
            ("=" + md5Hex, .unknownAlgorithm("")),
            ("sha-256", .missingEquals),
            ("", .missingEquals),
            (sha256Hex, .missingEquals),
        ]
    }()

    @Test(arguments: rejected)
    func rejectedWithSpecificError(text: String, expected: ChecksumParseError) {
        #expect(throws: expected) { try ExpectedChecksum(parsing: text) }
    }

    @Test func fullwidthDigitsAreNotHex() {
        // Character.isHexDigit accepts fullwidth forms (U+FF10…); a digest never contains them.
        let fullwidth = String(repeating: "\u{FF41}", count: 32)  // 'ａ'
        #expect(throws: ChecksumParseError.badDigest(.md5, fullwidth)) {
            try ExpectedChecksum(parsing: "md5=" + fullwidth)
        }
    }

    @Test func errorDescriptionsExplainTheFix() {
        #expect(ChecksumParseError.missingEquals.description == "checksum must look like sha-256=HEX")
        #expect(
            ChecksumParseError.unknownAlgorithm("crc32").description
                == "unknown checksum algorithm 'crc32' (use sha-256, sha-512, sha-384, sha-224, sha-1 or md5)")
        #expect(
            ChecksumParseError.badDigest(.sha1, "abc").description
                == "sha-1 digest must be 40 hex digits, got 'abc'")
    }
}

@Suite("Digest")
struct DigestTests {
    @Test(arguments: [
        (DigestAlgorithm.sha256, "abc", sha256Hex),
        (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (.sha1, "abc", sha1Hex),
        (.sha1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"),
        (.md5, "abc", md5Hex),
        (.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
        (.sha224, "abc", sha224Hex),
        (.sha384, "abc", sha384Hex),
        (.sha512, "abc", sha512Hex),
        (.sha256, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func standardTestVectors(algorithm: DigestAlgorithm, input: String, expected: String) {
        let digest = Digest(algorithm)
        digest.update(Array(input.utf8))
        #expect(digest.finalizeHex() == expected)
    }

    @Test func incrementalUpdatesEqualOneUpdate() {
        let digest = Digest(.sha256)
        digest.update(Array("a".utf8))
        digest.update([])
        digest.update(Array("bc".utf8))
        #expect(digest.finalizeHex() == sha256Hex)
    }

    @Test func sha256HexOfString() {
        #expect(Digest.sha256Hex("abc") == sha256Hex)
    }

    @Test func hexLengthsMatchAlgorithms() {
        #expect(DigestAlgorithm.sha256.hexLength == 64)
        #expect(DigestAlgorithm.sha1.hexLength == 40)
        #expect(DigestAlgorithm.md5.hexLength == 32)
    }
}

@Suite("FileDigester")
struct FileDigesterTests {
    @Test func multiBlockFileMatchesInMemoryDigest() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        // 9 MiB + a bit: three 4 MiB blocks, the last one partial.
        var generator = SeededGenerator(seed: 42)
        let bytes = (0..<(9 * 1024 * 1024 + 12345)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let path = dir.path + "/data"
        let writer = try DataFile(path: path, mode: .readWrite)
        try writer.write(bytes, at: 0)
        try writer.syncData()

        let file = try DataFile(path: path, mode: .readOnly)
        let digests = try FileDigester.digest(
            file, length: Int64(bytes.count), algorithms: Set(DigestAlgorithm.allCases))
        #expect(digests.count == DigestAlgorithm.allCases.count)
        for algorithm in DigestAlgorithm.allCases {
            let reference = Digest(algorithm)
            reference.update(bytes)
            #expect(digests[algorithm] == reference.finalizeHex(), "\(algorithm)")
        }
    }

    @Test func smallFileKnownVector() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try DataFile(path: dir.path + "/abc", mode: .readWrite)
        try file.write(Array("abc".utf8), at: 0)
        let digests = try FileDigester.digest(file, length: 3, algorithms: [.sha256, .md5])
        #expect(digests == [.sha256: sha256Hex, .md5: md5Hex])
    }

    @Test func fileShorterThanLengthThrows() throws {
        let dir = try TemporaryDirectory()
        defer { dir.remove() }
        let file = try DataFile(path: dir.path + "/short", mode: .readWrite)
        try file.write(Array("abc".utf8), at: 0)
        #expect(throws: SystemError.self) {
            try FileDigester.digest(file, length: 10, algorithms: [.sha256])
        }
    }
}
